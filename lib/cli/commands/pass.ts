/** `tenantplane sync` and `tenantplane plan`: one pass (or its dry run) from this machine. */
import { KubernetesEventsSink } from '../../adapters/events/index.js';
import { LogSink } from '../../adapters/log-sink.js';
import { runPass } from '../../engine/index.js';
import type { DecisionSink } from '../../ports/index.js';
import { withClusters } from '../clusters.js';
import { type ExitCode, exitCodeForPass } from '../exit-codes.js';
import { painter, passReport, withProgressLine } from '../format.js';
import { type CliIo, colorsEnabled } from '../io.js';
import { budgetFromFlags, checkTenantName, type PassFlags } from '../options.js';
import { recordWriter } from '../records.js';

export interface PassCommandOptions {
  dryRun: boolean;
}

/**
 * Runs one pass (or, with `dryRun`, its plan) for `tenantArg` and prints its Decisions.
 * @returns {@link ExitCode.Incomplete} when the pass left work for the next one.
 */
export async function passCommand(
  tenantArg: string,
  flags: PassFlags,
  io: CliIo,
  options: PassCommandOptions,
): Promise<ExitCode> {
  const tenant = checkTenantName(tenantArg);
  return withClusters(flags, io, async (clusters) => {
    const tenantApi = await clusters.tenant();
    const hostApi = await clusters.host();
    const sinks: DecisionSink[] = [];
    // -o json/yaml: the function's structured log records, streamed as the pass decides.
    if (flags.output !== 'table') sinks.push(new LogSink(recordWriter(io, flags.output)));
    if (!options.dryRun) sinks.push(new KubernetesEventsSink({ hostApi, tenant }));
    const budget = budgetFromFlags(flags, Date.now());
    // runPass bounds every request by the deadline, holds the tenant's lease (exit 3 when another
    // pass holds it) and reports a pass-level failure on the TenantCluster before throwing it.
    const result = await withProgressLine(io.err, io.stderrIsTTY, (progress) =>
      runPass({
        tenant,
        tenantApi,
        hostApi,
        sinks,
        dryRun: options.dryRun,
        // --full: every kind listed in full on both sides, whatever resume points are stored.
        path: flags.full === true ? 'full' : 'auto',
        budget,
        onProgress: (p) => progress.update(p, options.dryRun ? 'to write' : 'written'),
      }),
    );
    if (flags.output === 'table') io.out(passReport(result, painter(colorsEnabled(io))));
    return exitCodeForPass(result);
  });
}
