/**
 * `npm run local:serverless -- [--quiet-seconds N] [--schedule-seconds N]`: the deployed shape on
 * the local plane (docs/wake.md#the-local-plane), until SIGINT or SIGTERM. It runs the wake
 * endpoint on the plane's `wake.url` (`wake-server.ts`) and, for every TenantCluster of the plane,
 * its sync function: the shipped bundle, built as the CDK app builds it, invoked as Lambda
 * invokes it (`functions.ts`, `invoke.ts`), its kubeconfigs from a local Secrets Manager endpoint,
 * woken by the endpoint and ticked by a schedule. One JSON line per invocation on stdout; what
 * this process says about itself goes to stderr; the functions' own logs to
 * `<state dir>/logs/serverless-<tenant>.log`.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:https';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SERVICE_NAME, SyncEnv } from '../../../functions/sync/contract.js';
import { BUNDLE_HANDLER, bundleSyncHandler } from '../../../infra/bundle.js';
import { createClusterApi } from '../../adapters/kube/cluster-client.js';
import { errorMessage } from '../../common/index.js';
import { TENANT_CLUSTER } from '../../ports/index.js';
import { DEFAULT_WAKE_QUIET_SECONDS } from '../../wake/index.js';
import { ensureControlPlane } from '../control-plane.js';
import { defaultStateDir } from '../paths.js';
import { ensureToken, wakeFiles } from '../wake.js';
import { type InvocationLine, TenantFunction } from './functions.js';
import { startSecretsManagerEndpoint } from './secrets-manager-endpoint.js';
import { startWakeServer } from './wake-server.js';

const USAGE = `usage: npm run local:serverless -- [--quiet-seconds N] [--schedule-seconds N]
       [--timeout-seconds N] [--tenants a,b] [--state-dir DIR]`;

/** The local function's memory (the deployed default, DEFAULT_MEMORY_MIB of infra/). */
const MEMORY_MIB = 512;
const TENANT_SECRET = 'tenantplane/local/tenant-kubeconfig';
const HOST_SECRET = 'tenantplane/local/host-kubeconfig';
/** How often the TenantClusters of the plane are listed again (new ones join, deleted ones go). */
const REFRESH_MS = 5_000;
/** How soon a wake endpoint that could not listen tries again. */
const RELISTEN_MS = 2_000;

const say = (entry: Record<string, unknown>) =>
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`);

function seconds(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number >= 1`);
  return n;
}

function settings(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      'quiet-seconds': { type: 'string' },
      'schedule-seconds': { type: 'string' },
      'timeout-seconds': { type: 'string' },
      tenants: { type: 'string' },
      'state-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return undefined;
  const quietSeconds = seconds(
    values['quiet-seconds'],
    'quiet-seconds',
    DEFAULT_WAKE_QUIET_SECONDS,
  );
  const timeoutSeconds = seconds(values['timeout-seconds'], 'timeout-seconds', 900);
  if (timeoutSeconds <= quietSeconds + 5)
    throw new Error('--timeout-seconds must leave time beyond --quiet-seconds for a pass');
  return {
    quietSeconds,
    timeoutSeconds,
    scheduleSeconds: seconds(values['schedule-seconds'], 'schedule-seconds', 300),
    only: values.tenants ? new Set(values.tenants.split(',').filter(Boolean)) : undefined,
    stateDir: values['state-dir'] ?? defaultStateDir(),
  };
}

async function main(argv: string[]): Promise<number> {
  const opts = settings(argv);
  if (!opts) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let stopping = false;
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      if (!stopping) say({ message: 'stopping' });
      stopping = true;
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });

  const state = await ensureControlPlane({
    stateDir: opts.stateDir,
    log: (line) => say({ message: line }),
  });
  const files = wakeFiles(state.stateDir);
  const hostKubeconfig = await readFile(state.clusters.host.kubeconfig, 'utf8');
  const hostApi = createClusterApi({
    text: hostKubeconfig,
    origin: state.clusters.host.kubeconfig,
  });
  const bundle = await bundleSyncHandler(join(state.stateDir, 'serverless', 'bundle'));
  const secrets = await startSecretsManagerEndpoint({
    [TENANT_SECRET]: await readFile(files.syncKubeconfig, 'utf8'),
    [HOST_SECRET]: hostKubeconfig,
  });
  const environment = (tenant: string): Record<string, string> => ({
    [SyncEnv.Tenant]: tenant,
    [SyncEnv.TenantSecretId]: TENANT_SECRET,
    [SyncEnv.HostSecretId]: HOST_SECRET,
    [SyncEnv.FollowQuietSeconds]: String(opts.quietSeconds),
    POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
    POWERTOOLS_METRICS_NAMESPACE: 'Tenantplane/Local',
    NODE_OPTIONS: '--enable-source-maps',
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIDLOCALTENANTPLANE',
    AWS_SECRET_ACCESS_KEY: 'local-secret-access-key',
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.url,
    // Nothing of the machine's own AWS configuration.
    AWS_CONFIG_FILE: join(bundle.dir, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(bundle.dir, 'no-aws-credentials'),
  });

  const emit = (line: InvocationLine) => process.stdout.write(`${JSON.stringify(line)}\n`);
  const functions = new Map<string, TenantFunction>();
  const tokens = new Map<string, string>();
  const logs: WriteStream[] = [];
  async function refresh(): Promise<void> {
    const { items } = await hostApi.list(TENANT_CLUSTER);
    const names = items
      .filter((tc) => !tc.metadata.deletionTimestamp)
      .map((tc) => tc.metadata.name)
      .filter((name) => !opts?.only || opts.only.has(name));
    for (const name of names) {
      if (functions.has(name)) continue;
      tokens.set(name, await ensureToken(join(files.tokens, name)));
      const log = createWriteStream(join(state.stateDir, 'logs', `serverless-${name}.log`), {
        flags: 'a',
      });
      logs.push(log);
      const fn = {
        functionName: `tenantplane-sync-${name}`,
        bundleDir: bundle.dir,
        handler: BUNDLE_HANDLER,
        environment: environment(name),
        memoryMiB: MEMORY_MIB,
        timeoutSeconds: opts?.timeoutSeconds ?? 900,
      };
      functions.set(name, new TenantFunction(name, fn, emit, (chunk) => log.write(chunk)));
    }
    for (const [name, fn] of functions) {
      if (names.includes(name)) continue;
      functions.delete(name);
      tokens.delete(name);
      await fn.stop();
    }
  }
  await refresh();

  let server: Server | undefined;
  const [cert, key] = await Promise.all([
    readFile(files.servingCert, 'utf8'),
    readFile(files.servingKey, 'utf8'),
  ]);
  const apiserverToken = await ensureToken(files.apiserverToken);
  const listen = async (): Promise<void> => {
    if (stopping) return;
    try {
      server = await startWakeServer(state.wake.port, {
        cert,
        key,
        tenants: () => [...functions.keys()],
        tokenOf: async (tenant) => tokens.get(tenant),
        apiserverToken: async () => apiserverToken,
        invoke: async (tenant) => functions.get(tenant)?.invoke('wake'),
        window: { quietMs: opts.quietSeconds * 1000, maxInvocationMs: opts.timeoutSeconds * 1000 },
        log: (entry) => say(entry),
      });
      say({ message: 'wake endpoint listening', url: state.wake.url });
    } catch (error) {
      // Down, as a function URL can be: the schedule still converges every tenant.
      say({ message: 'wake endpoint cannot listen; retrying', error: errorMessage(error) });
      relisten = setTimeout(() => void listen(), RELISTEN_MS);
    }
  };
  let relisten: NodeJS.Timeout | undefined;
  await listen();

  const tick = setInterval(() => {
    for (const fn of functions.values()) fn.invoke('schedule');
  }, opts.scheduleSeconds * 1000);
  const refresher = setInterval(() => {
    refresh().catch((error: unknown) =>
      say({ message: 'listing TenantClusters failed', error: errorMessage(error) }),
    );
  }, REFRESH_MS);
  say({
    message: 'ready',
    wakeUrl: state.wake.url,
    tenants: [...functions.keys()],
    ...{ quietSeconds: opts.quietSeconds, scheduleSeconds: opts.scheduleSeconds },
    timeoutSeconds: opts.timeoutSeconds,
    functionLogs: join(state.stateDir, 'logs', 'serverless-<tenant>.log'),
  });

  await stopped;
  clearInterval(tick);
  clearInterval(refresher);
  clearTimeout(relisten);
  server?.closeAllConnections();
  server?.close();
  await Promise.all([...functions.values()].map((fn) => fn.stop()));
  await Promise.allSettled([secrets.close(), hostApi.close()]);
  await Promise.all(logs.map((log) => new Promise((resolve) => log.end(resolve))));
  say({ message: 'stopped' });
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    say({ message: 'local:serverless failed', error: errorMessage(error) });
    process.stderr.write(`${USAGE}\n`);
    process.exit(1);
  },
);
