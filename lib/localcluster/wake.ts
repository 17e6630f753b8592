/**
 * The local plane's wake path (docs/wake.md#the-local-plane): its tenant apiserver always runs
 * with the audit webhook backend, pointed at a local wake endpoint whose URL is fixed at cluster
 * up (`wake.url` in the status JSON); `npm run local:serverless` serves that endpoint.
 *
 * One tenant apiserver serves every TenantCluster of the local plane, and an apiserver has one
 * audit webhook: it posts as itself, to `<wake.url>/apiservers/tenant` with the token of
 * `<wake dir>/apiserver.token`, and the endpoint hands the batch on to each TenantCluster it runs
 * as that tenant (`/tenants/<name>` with the tenant's own token, `<wake dir>/tokens/<name>`),
 * which is what each tenant's own apiserver sends in the deployed shape. The tenant-level route is
 * open to anyone holding a tenant token, as the function URL is.
 *
 * The function reaches the tenant as `tenantplane-sync`, not as the admin: the audit policy drops
 * that user's writes (status back, bindings, Nodes, Events), so the function never wakes itself,
 * while every other writer (kubectl, the tests, the tenant's controller manager) wakes it.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  apiserverAuditFlags,
  auditResourcesOf,
  DEFAULT_ENGINE_USER,
  renderAuditPolicy,
  renderWebhookKubeconfig,
  type SyncedKind,
} from '../wake/index.js';
import { writeKubeconfig } from './kubeconfig.js';
import { exists, type Pki, signCertificate } from './pki.js';

/** What the status JSON says of the local wake endpoint. */
export interface LocalWake {
  /** The endpoint's URL (`https://127.0.0.1:<port>`): a tenant posts to `<url>/tenants/<name>`. */
  url: string;
  port: number;
  /** Directory of the tokens, the endpoint's certificate and the tenant apiserver's files. */
  dir: string;
}

/** The name the local tenant apiserver posts under (`/apiservers/tenant`). */
export const LOCAL_APISERVER = 'tenant';

/**
 * The kinds the local tenant apiserver reports: every kind the engine has a room for, since a
 * TenantCluster of the local plane may sync any of them. A deployed tenant's policy names its own
 * (`tenantplane wake-config`).
 */
export const LOCAL_AUDITED_KINDS: readonly SyncedKind[] = [
  'ConfigMap',
  'Secret',
  'Service',
  'Endpoints',
  'Pod',
  'PersistentVolumeClaim',
  'ServiceAccount',
].map((kind) => ({ apiVersion: 'v1', kind }));

const GROUPED_KINDS: readonly SyncedKind[] = [
  { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice' },
  { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' },
  { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy' },
  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' },
];

/** Files of the wake path under a state directory. */
export function wakeFiles(stateDir: string) {
  const dir = join(stateDir, 'wake');
  return {
    dir,
    tokens: join(dir, 'tokens'),
    apiserverToken: join(dir, 'apiserver.token'),
    auditPolicy: join(dir, 'audit-policy.yaml'),
    webhookKubeconfig: join(dir, 'audit-webhook.kubeconfig'),
    servingCert: join(dir, 'wake-serving.crt'),
    servingKey: join(dir, 'wake-serving.key'),
    /** The tenant kubeconfig of the function: user `tenantplane-sync`, in `system:masters`. */
    syncKubeconfig: join(dir, 'tenant-sync.kubeconfig'),
  };
}

/** Reads the token in `path`, creating a random one (0600) the first time. */
export async function ensureToken(path: string): Promise<string> {
  if (await exists(path)) return (await readFile(path, 'utf8')).trim();
  const token = randomBytes(32).toString('base64url');
  await writeFile(path, `${token}\n`, { mode: 0o600, flag: 'wx' }).catch(async (error) => {
    // Another process wrote it first: theirs stands.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  });
  return (await readFile(path, 'utf8')).trim();
}

/**
 * Prepares the wake files of a plane whose endpoint will listen on `port`: the apiserver token,
 * the audit policy, the webhook kubeconfig, the endpoint's serving certificate and the function's
 * tenant identity (signed once per state directory). Returns the kube-apiserver flags.
 */
export async function prepareWake(
  stateDir: string,
  pki: Pki,
  port: number,
): Promise<{ wake: LocalWake; apiserverArgs: string[] }> {
  const files = wakeFiles(stateDir);
  await mkdir(files.tokens, { recursive: true, mode: 0o700 });
  const url = `https://127.0.0.1:${port}`;
  const token = await ensureToken(files.apiserverToken);
  const policy = renderAuditPolicy(auditResourcesOf([...LOCAL_AUDITED_KINDS, ...GROUPED_KINDS]), {
    ignoreUsers: [DEFAULT_ENGINE_USER],
  });
  const kubeconfig = renderWebhookKubeconfig({
    tenant: LOCAL_APISERVER,
    wakeUrl: url,
    token,
    certificateAuthorityPem: await readFile(pki.caCert, 'utf8'),
  }).replace('/tenants/', '/apiservers/');
  await writeFile(files.auditPolicy, policy);
  await writeFile(files.webhookKubeconfig, kubeconfig, { mode: 0o600 });
  await Promise.all([
    (await exists(files.servingCert))
      ? undefined
      : signCertificate(pki, {
          dir: files.dir,
          name: 'wake-serving',
          subject: '/CN=tenantplane-wake',
          extensions: 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n',
          days: 3650,
        }),
    (await exists(join(files.dir, 'tenant-sync.crt')))
      ? undefined
      : signCertificate(pki, {
          dir: files.dir,
          name: 'tenant-sync',
          subject: `/O=system:masters/CN=${DEFAULT_ENGINE_USER}`,
          extensions: 'extendedKeyUsage=clientAuth\n',
          days: 3650,
        }),
  ]);
  return {
    wake: { url, port, dir: files.dir },
    apiserverArgs: [
      ...apiserverAuditFlags(files.auditPolicy, files.webhookKubeconfig),
      // Batches split below the endpoint's body limit (1 MiB), so a burst is never refused.
      '--audit-webhook-truncate-enabled',
      '--audit-webhook-truncate-max-batch-size=262144',
    ],
  };
}

/** Writes the function's tenant kubeconfig once the tenant apiserver's address is known. */
export async function writeSyncKubeconfig(
  stateDir: string,
  pki: Pki,
  server: string,
): Promise<void> {
  const files = wakeFiles(stateDir);
  await writeKubeconfig(files.syncKubeconfig, {
    clusterName: 'tenantplane-local-tenant',
    server,
    userName: DEFAULT_ENGINE_USER,
    contextName: `tenantplane-local-tenant-${DEFAULT_ENGINE_USER}`,
    caCert: pki.caCert,
    clientCert: join(files.dir, 'tenant-sync.crt'),
    clientKey: join(files.dir, 'tenant-sync.key'),
  });
}
