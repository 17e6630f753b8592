/**
 * `tenantplane gateway`: runs the kubelet gateway (docs/kubelet-gateway.md) until SIGTERM or
 * SIGINT. One JSON line per refusal and per ended stream on stdout; never a credential or a
 * stream's content.
 */
import { readFile } from 'node:fs/promises';
import { type Command, Option } from 'commander';
import { parseDuration, parseWholeNumber } from '../duration.js';
import { ExitCode } from '../exit-codes.js';
import type { CliIo } from '../io.js';

interface GatewayFlags {
  config: string;
  tlsCert: string;
  tlsKey: string;
  address: string;
  port: string;
  idleTimeout: string;
  totalTimeout: string;
  maxStreams: string;
}

/** Adds `gateway` to `program`. */
export function addGatewayCommand(
  program: Command,
  io: CliIo,
  setExit: (code: ExitCode) => void,
): void {
  program
    .command('gateway')
    .summary('serve kubectl logs/exec/attach/port-forward of tenant Pods (the kubelet gateway)')
    .description(
      'Run the kubelet gateway: the HTTPS server the tenant apiservers call as the kubelet of their Nodes. It knows a tenant by the CA of its client certificate and relays to the host copy of the tenant Pod, with the tenant host identity.',
    )
    .requiredOption('--config <file>', 'the tenants: name, hostNamespace, clientCA, hostKubeconfig')
    .requiredOption('--tls-cert <file>', 'serving certificate (PEM)')
    .requiredOption('--tls-key <file>', 'serving key (PEM)')
    .addOption(new Option('--address <ip>', 'address to listen on').default('0.0.0.0'))
    .addOption(new Option('--port <n>', 'port to listen on').default('10250'))
    .addOption(new Option('--idle-timeout <d>', 'end a stream idle this long').default('15m'))
    .addOption(new Option('--total-timeout <d>', 'end a stream this old').default('4h'))
    .addOption(new Option('--max-streams <n>', 'open streams per tenant').default('32'))
    .action(async (flags: GatewayFlags) => {
      const limits = {
        idleTimeoutMs: parseDuration(flags.idleTimeout),
        totalTimeoutMs: parseDuration(flags.totalTimeout),
        maxStreamsPerTenant: parseWholeNumber(flags.maxStreams, '--max-streams', 1),
      };
      const port = parseWholeNumber(flags.port, '--port', 0);
      // Loaded only by this command (it brings the Kubernetes client along).
      const { createGateway, loadGatewayTenants } = await import('../../gateway/index.js');
      const tenants = await loadGatewayTenants(flags.config);
      const gateway = createGateway({
        tenants,
        cert: await readFile(flags.tlsCert),
        key: await readFile(flags.tlsKey),
        limits,
        log: (entry) => io.out(`${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`),
      });
      const bound = await gateway.listen(port, flags.address);
      io.err(`kubelet gateway for ${tenants.length} tenant(s) on ${bound.address}:${bound.port}\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGTERM', resolve);
        process.once('SIGINT', resolve);
      });
      await gateway.close();
      setExit(ExitCode.Ok);
    });
}
