/**
 * A second kube-apiserver of one of the run's clusters (same etcd, same prefix, same keys: the
 * cluster as an HA pair serves it) that also authenticates bearer tokens through a token
 * webhook (`--authentication-token-webhook-config-file`), as an EKS API server authenticates IAM
 * tokens through aws-iam-authenticator. Test-scoped: the shared local plane is left as it is, and
 * this process is stopped by the test (and by a reaper if the run dies).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  LOCAL_CLUSTERS,
  type LocalClusterName,
  readRunningControlPlane,
} from '../../../lib/localcluster/control-plane.js';
import { apiServerArgs } from '../../../lib/localcluster/daemons.js';
import { ensurePki } from '../../../lib/localcluster/pki.js';
import {
  freePort,
  startDaemon,
  startReaper,
  stopProcess,
} from '../../../lib/localcluster/process.js';
import { adminTls, get, waitUntil } from '../../../lib/localcluster/readiness.js';

export interface WebhookApiServer {
  /** `https://127.0.0.1:<port>` */
  server: string;
  /** The local CA's certificate (PEM), which signs its serving certificate. */
  caPem: string;
  stop(): Promise<void>;
}

/** Starts it with `webhookUrl` as its token authenticator and waits until it is ready. */
export async function startWebhookApiServer(
  cluster: LocalClusterName,
  webhookUrl: string,
): Promise<WebhookApiServer> {
  const stateDir = process.env.TENANTPLANE_TEST_STATE_DIR;
  const state = stateDir ? await readRunningControlPlane(stateDir) : undefined;
  if (!stateDir || !state) throw new Error('the integration control plane state is missing');
  const pki = await ensurePki(join(stateDir, 'pki'));
  const port = await freePort();
  const webhookConfig = join(stateDir, `token-webhook-${port}.kubeconfig`);
  await writeFile(
    webhookConfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'authenticator', cluster: { server: webhookUrl } }],
      users: [{ name: 'apiserver', user: {} }],
      contexts: [{ name: 'webhook', context: { cluster: 'authenticator', user: 'apiserver' } }],
      'current-context': 'webhook',
    }),
  );
  const logFile = join(stateDir, 'logs', `kube-apiserver-${cluster}-webhook-${port}.log`);
  const binary = state.binaries['kube-apiserver'];
  const args = [
    ...apiServerArgs({
      ...{ stateDir, pki, name: cluster, port, etcdPort: state.etcd.port },
      index: LOCAL_CLUSTERS.indexOf(cluster),
    }),
    `--authentication-token-webhook-config-file=${webhookConfig}`,
    '--authentication-token-webhook-version=v1',
    // No webhook result cache: a refused token is asked about again. (The apiserver still keeps
    // a token it authenticated for 10 s, in a cache of its own that no flag sets.)
    '--authentication-token-webhook-cache-ttl=0s',
  ];
  const child = startDaemon(binary, args, logFile);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${binary}`);
  startReaper(process.pid, [pid]);
  const server = `https://127.0.0.1:${port}`;
  const tls = adminTls(pki);
  await waitUntil(
    `the webhook ${cluster} apiserver`,
    async () => (await get(`${server}/readyz`, tls)).status === 200,
    pid,
    binary,
    logFile,
    120_000,
  );
  return { server, caPem: tls.ca.toString('utf8'), stop: () => stopProcess(pid) };
}
