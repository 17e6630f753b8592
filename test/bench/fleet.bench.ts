/**
 * The fleet bench (issue 39): N tenants on one host apiserver, with and without the tenantplane
 * FlowSchemas, a noisy tenant among them. Not a test: it asserts nothing, it prints figures.
 *
 *   npm run bench:fleet -- --tenants 10,100,300 [-o json] [--tenant-apiservers 5]
 *     [--minute-seconds 60] [--quiet-minutes 3] [--noisy-minutes 3] [--followed-percent 10]
 *     [--noisy-writes 20000] [--noisy-pods 2000] [--variants without,with]
 *     [--max-requests-inflight 400] [--max-mutating-requests-inflight 200]
 *     [--seed-namespaces 10] [--seed-objects 6] [--probes-together]
 *   npm run bench:fleet -- --table-from fleet.jsonl   (the table of a saved `-o json` run)
 *
 * Per N and variant, on a fresh plane (fleet-plane.ts): one etcd, ONE host apiserver, and
 * `--tenant-apiservers` tenant apiservers (default 5: 2 cores and 24 GiB hold that many next to
 * the fleet; each takes ~300-500 MiB). The noisy tenant has the first to itself; the N-1 quiet
 * tenants are spread over the others (fleet-tenants.ts), each seeded with `--seed-namespaces`
 * namespaces of `--seed-objects` ConfigMaps and Secrets. Every tenant is its own host identity
 * with deploy/rbac/host-cluster's grants: priority and fairness sees one flow per tenant.
 *
 * The host's inflight limits are a managed cluster's: `--max-requests-inflight=400` and
 * `--max-mutating-requests-inflight=200`, the upstream defaults that EKS's standard control plane
 * starts from: 600 seats that priority and fairness divides by the levels' shares, so
 * `global-default` (20 of 245 shares), where an EKS IAM identity or a certificate user lands
 * without a FlowSchema, gets about 49. The variant `without` leaves the tenants there; `with`
 * applies deploy/rbac/host-fairness per tenant (the `tenantplane` level, one flow per tenant).
 * This host has 2 cores where EKS has several apiservers on bigger machines: the seats are the
 * same, the time each request holds one is longer, so queueing shows here earlier, not later.
 *
 * Each tenant's passes run as the deployed function runs them (fleet-run.ts: its handler, lease,
 * Events, follow) in this process, on `rate(1 minute)` spread over the CDK's flexible window; a
 * minute lasts `--minute-seconds` (compress time with less than 60: every tenant then ticks
 * 60/minute-seconds times as often, a harsher load than the real one). Phases:
 * 1. warm-up: every tenant's first (full) pass, a few at a time, then one quiet tenant's pass in
 *    a fresh process for the memory figure (fleet-memory.ts);
 * 2. quiet: `--quiet-minutes` of the schedule, with the followed tenants (`--followed-percent`)
 *    probed twice a minute (write, wake, host watch sees the copy), each at its own offset in the
 *    half minute (`--probes-together`: all at once, as the first runs did; fleet-run.ts says why
 *    that measured the bench's one process, not the engine);
 * 3. noisy: the noisy tenant writes `--noisy-writes` ConfigMaps then `--noisy-pods` Pods in its
 *    tenant apiserver while the fleet ticks on, for `--noisy-minutes` or until its writes are
 *    done, whichever is longer.
 * Host latency by verb (WATCH apart), request rate and rejections are the difference of the host
 * apiserver's own `/metrics` before and after each phase (fleet-metrics.ts).
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { stopBursts } from './fleet-burst.js';
import { type FleetFigures, measureFleet } from './fleet-phases.js';
import { type FleetPlane, startFleetPlane } from './fleet-plane.js';
import { printFleet } from './fleet-print.js';

const { values } = parseArgs({
  options: {
    tenants: { type: 'string', default: '10' },
    output: { type: 'string', short: 'o', default: 'table' },
    variants: { type: 'string', default: 'without,with' },
    'tenant-apiservers': { type: 'string', default: '5' },
    'minute-seconds': { type: 'string', default: '60' },
    'quiet-minutes': { type: 'string', default: '3' },
    'noisy-minutes': { type: 'string', default: '3' },
    'followed-percent': { type: 'string', default: '10' },
    'probes-together': { type: 'boolean', default: false },
    'noisy-writes': { type: 'string', default: '20000' },
    'noisy-pods': { type: 'string', default: '2000' },
    'max-requests-inflight': { type: 'string', default: '400' },
    'max-mutating-requests-inflight': { type: 'string', default: '200' },
    'seed-namespaces': { type: 'string', default: '10' },
    'seed-objects': { type: 'string', default: '6' },
    'table-from': { type: 'string' },
  },
});
// A saved `-o json` run printed as the table, without running anything.
if (values['table-from'] !== undefined) {
  const lines = (await readFile(values['table-from'], 'utf8')).split('\n');
  printFleet(lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as FleetFigures));
  process.exit(0);
}
const num = (name: keyof typeof values) => Number(values[name]);
const sizes = (values.tenants as string).split(',').map(Number);
const variants = (values.variants as string).split(',').map((v) => v.trim());
if (sizes.some((n) => !Number.isInteger(n) || n < 2)) throw new Error('--tenants: integers >= 2');
if (variants.some((v) => v !== 'with' && v !== 'without'))
  throw new Error('--variants: with, without or both');
const log = (line: string) => console.error(`[fleet] ${line}`);

let current: FleetPlane | undefined;
let stopping = false;
// Ctrl-C and SIGTERM stop every process the bench started before it exits.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping the clusters`);
    stopBursts();
    void (current?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
  });
}

const results: FleetFigures[] = [];
for (const tenants of sizes) {
  for (const variant of variants) {
    const t0 = Date.now();
    log(`N=${tenants} ${variant} FlowSchema: starting the plane`);
    current = await startFleetPlane({
      tenantApiservers: Math.max(2, num('tenant-apiservers')),
      hostArgs: [
        `--max-requests-inflight=${num('max-requests-inflight')}`,
        `--max-mutating-requests-inflight=${num('max-mutating-requests-inflight')}`,
      ],
      log,
    });
    try {
      const figures = await measureFleet(current, {
        tenants,
        withFlowSchema: variant === 'with',
        probesTogether: values['probes-together'] === true,
        followed: Math.max(1, Math.round((tenants * num('followed-percent')) / 100)),
        minuteMs: num('minute-seconds') * 1000,
        quietMinutes: num('quiet-minutes'),
        noisyMinutes: num('noisy-minutes'),
        noisyWrites: num('noisy-writes'),
        noisyPods: num('noisy-pods'),
        seedNamespaces: num('seed-namespaces'),
        seedObjects: num('seed-objects'),
        log,
      });
      figures.wallSeconds = Math.round((Date.now() - t0) / 1000);
      results.push(figures);
      if (values.output === 'json') console.log(JSON.stringify(figures));
      log(`N=${tenants} ${variant}: ${JSON.stringify(figures)}`);
    } finally {
      await current.stop();
      current = undefined;
    }
  }
}
if (values.output !== 'json') printFleet(results);
