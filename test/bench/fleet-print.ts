/**
 * The fleet bench's table: one column per N and variant, side by side, and the per-tenant cost
 * rows (a figure divided by N) that show how each grows with N.
 */
import type { FleetFigures, HostWindow } from './fleet-phases.js';
import { printTable } from './scenario.js';

const show = (v: number | undefined) => (v === undefined ? '-' : String(v));

function verbs(w: HostWindow): string {
  return Object.entries(w.byVerb)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([verb, v]) => `${verb} ${show(v.p50Ms)}/${show(v.p99Ms)}`)
    .join(', ');
}

/** Prints `results` as one table, then the host latency by verb of each column. */
export function printFleet(results: FleetFigures[]): void {
  const header = [
    'figure',
    ...results.map((r) => `N=${r.tenants} ${r.withFlowSchema ? 'with' : 'without'} FS`),
  ];
  const row = (name: string, f: (r: FleetFigures) => number | string | undefined) => [
    name,
    ...results.map((r) => {
      const v = f(r);
      return typeof v === 'string' ? v : show(v);
    }),
  ];
  const perTenant = (v: number) => (r: FleetFigures) => Math.round((v / r.tenants) * 100) / 100;
  printTable(header, [
    row('host req/s quiet', (r) => r.quiet.requestsPerSecond),
    row('host req/s noisy', (r) => r.noisy.requestsPerSecond),
    row('host p50/p99 ms quiet', (r) => `${show(r.quiet.p50Ms)}/${show(r.quiet.p99Ms)}`),
    row('host p50/p99 ms noisy', (r) => `${show(r.noisy.p50Ms)}/${show(r.noisy.p99Ms)}`),
    row('host p99 ms (both)', (r) => r.hostP99Ms),
    row('rejected (429 + APF)', (r) => r.rejected),
    row('quiet pass p50/p99 ms', (r) => `${show(r.quietPassP50Ms)}/${show(r.quietPassP99Ms)}`),
    row('same, noisy bursting', (r) => `${show(r.noisyPassP50Ms)}/${show(r.noisyPassP99Ms)}`),
    row('probes', (r) => (r.probesTogether === false ? 'spread' : 'together')),
    row('follow p99 ms quiet', (r) => r.followP99Ms),
    row('follow p99 ms noisy', (r) => r.followNoisyP99Ms),
    row('follow: write p99 ms', (r) => r.followPhases?.writeP99Ms),
    row('follow: woken start p99', (r) => r.followPhases?.startP99Ms),
    row('follow: start to seen p99', (r) => r.followPhases?.afterStartP99Ms),
    row(
      'woken pass p50/p99 ms',
      (r) => `${show(r.followPhases?.wokenPassP50Ms)}/${show(r.followPhases?.wokenPassP99Ms)}`,
    ),
    row('woken pass requests', (r) => r.followPhases?.wokenPassRequests),
    row(
      'tenant apiservers p50/p99 ms',
      (r) => `${show(r.quietTenantSide?.p50Ms)}/${show(r.quietTenantSide?.p99Ms)}`,
    ),
    row('CPU quiet: plane/bench', (r) =>
      r.cpu ? `${r.cpu.quiet.plane}/${r.cpu.quiet.bench}` : '-',
    ),
    row('CPU noisy: plane/bench', (r) =>
      r.cpu ? `${r.cpu.noisy.plane}/${r.cpu.noisy.bench}` : '-',
    ),
    row('pass heap MiB', (r) => r.passMemoryMiB),
    row('pass maxRss MiB', (r) => r.passMaxRssMiB),
    row('host req per quiet pass', (r) => r.hostRequestsPerQuietPass),
    row('tenant reads per pass', (r) => r.tenantReadsPerQuietPass),
    row('host req/s per tenant', (r) => perTenant(r.quiet.requestsPerSecond)(r)),
    row('bench RSS MiB / tenant', (r) => perTenant(r.benchRssMiB)(r)),
    row('plane RSS MiB', (r) => r.planeRssMiB),
    row('passes quiet/noisy', (r) => `${r.passes.quiet}/${r.passes.noisy}`),
    row(
      'dropped/failed/incompl.',
      (r) => `${r.passes.dropped}/${r.passes.failed}/${r.passes.incomplete}`,
    ),
    row('noisy passes/writes', (r) => `${r.noisyTenant.passes}/${r.noisyTenant.hostWrites}`),
    row('noisy pass p99 ms', (r) => r.noisyTenant.p99Ms),
    row('burst s', (r) => r.noisyTenant.burstSeconds),
    row('bench loop delay p99 ms', (r) => r.quietLoopDelayP99Ms),
    row('wall s', (r) => r.wallSeconds),
  ]);
  console.log('\nfollowed changes by what the wake found running (n, p50/p99 ms), the slowest:');
  for (const r of results) {
    const name = `N=${r.tenants} ${r.withFlowSchema ? 'with' : 'without'} FS`;
    const by = Object.entries(r.followPhases?.byBehind ?? {})
      .map(([k, v]) => `${k} ${v.n} ${show(v.p50Ms)}/${show(v.p99Ms)}`)
      .join(', ');
    console.log(`  ${name}: ${by}`);
    for (const p of r.followPhases?.slowest ?? []) console.log(`    ${JSON.stringify(p)}`);
  }
  console.log('\nhost p50/p99 ms by verb (WATCH apart):');
  for (const r of results) {
    const name = `N=${r.tenants} ${r.withFlowSchema ? 'with' : 'without'} FS`;
    console.log(`  ${name} quiet: ${verbs(r.quiet)}`);
    console.log(`  ${name} noisy: ${verbs(r.noisy)}`);
  }
}
