/**
 * The local stand-in of the tenant DNS Pod (kwok runs no containers, so the Deployment of
 * `deploy/tenant-dns` cannot run here): CoreDNS built from Go modules, with the very Corefile of
 * `deploy/tenant-dns` (`tenant-dns-corefile.ts` says what it changes), reading the tenant
 * apiserver as an identity bound to the deployed ClusterRole, and nothing more, so a test that
 * passes here proves that role enough. It listens on 127.0.0.1:<free port>, UDP and TCP.
 */
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { BinaryPaths } from './binaries.js';
import { LocalClusterError } from './errors.js';
import { writeKubeconfig } from './kubeconfig.js';
import { type Pki, signCertificate } from './pki.js';
import { freePort, startDaemon } from './process.js';
import { adminTls, get, send, waitUntil } from './readiness.js';
import {
  type LocalCorefileSpec,
  localCorefile,
  readDeployedCorefile,
  TENANT_DNS_RBAC,
} from './tenant-dns-corefile.js';

/** What starting the DNS needs of a plane whose tenant apiserver is ready. */
export interface TenantDnsContext {
  stateDir: string;
  pki: Pki;
  binaries: BinaryPaths;
  servers: { tenant: { server: string } };
  log: (line: string) => void;
  timeoutMs: number;
}

/** The running DNS, as `state.json` records it among the components; `port` is its DNS port. */
export interface TenantDnsProcess {
  name: 'coredns';
  cluster: 'tenant';
  pid: number;
  port: number;
  binary: string;
  logFile: string;
}

/** The user the local CoreDNS is on the tenant: a client certificate of the local CA. */
export const TENANT_DNS_USER = 'tenantplane-local-dns';

/** `host:port` of a DNS server on loopback, as the status JSON shows it. */
export function dnsAddress(port: number): string {
  return `127.0.0.1:${port}`;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** The deployed ClusterRole (`00-rbac.yaml`), exactly as operators apply it. */
async function deployedClusterRole(): Promise<{ metadata: { name: string } }> {
  const docs = parseAllDocuments(await readFile(TENANT_DNS_RBAC, 'utf8')).map(
    (d) => d.toJS() as { kind?: string; metadata?: { name?: string } } | null,
  );
  const role = docs.find((d) => d?.kind === 'ClusterRole');
  if (!role?.metadata?.name) throw new LocalClusterError(`${TENANT_DNS_RBAC} has no ClusterRole`);
  return role as { metadata: { name: string } };
}

/**
 * Creates `object` at `collection` on the tenant, or replaces it when it exists, so a plane whose
 * etcd data was kept gets a ClusterRole the deployed file changed since.
 */
async function createOrReplace(
  ctx: TenantDnsContext,
  collection: string,
  object: { metadata: { name: string } },
): Promise<void> {
  const tls = adminTls(ctx.pki);
  const url = `${ctx.servers.tenant.server}${collection}`;
  let res = await send('POST', url, tls, object);
  // RBAC objects take an update without a resourceVersion: the file is the truth.
  if (res.status === 409) res = await send('PUT', `${url}/${object.metadata.name}`, tls, object);
  if (res.status !== 200 && res.status !== 201)
    throw new LocalClusterError(`writing ${collection} on the tenant: ${res.status} ${res.body}`);
}

/** The deployed ClusterRole, bound to {@link TENANT_DNS_USER} instead of the Pod's account. */
async function grantDeployedRole(ctx: TenantDnsContext): Promise<void> {
  const rbac = '/apis/rbac.authorization.k8s.io/v1';
  const role = await deployedClusterRole();
  await createOrReplace(ctx, `${rbac}/clusterroles`, role);
  await createOrReplace(ctx, `${rbac}/clusterrolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: TENANT_DNS_USER },
    roleRef: {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: role.metadata.name,
    },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: TENANT_DNS_USER }],
  } as { metadata: { name: string } });
}

/** Signs (once per state directory) the certificate and writes the tenant kubeconfig. */
async function tenantKubeconfig(ctx: TenantDnsContext, dir: string): Promise<[string, string]> {
  const certs = join(ctx.stateDir, 'pki', 'components');
  await mkdir(certs, { recursive: true, mode: 0o700 });
  if (!(await exists(join(certs, 'tenant-dns.crt')))) {
    await signCertificate(ctx.pki, {
      dir: certs,
      name: 'tenant-dns',
      subject: `/CN=${TENANT_DNS_USER}`,
      extensions: 'extendedKeyUsage=clientAuth\n',
      days: 3650,
    });
  }
  const path = join(dir, 'tenant.kubeconfig');
  const context = 'tenantplane-local-tenant-dns';
  await writeKubeconfig(path, {
    clusterName: 'tenantplane-local-tenant',
    server: ctx.servers.tenant.server,
    userName: TENANT_DNS_USER,
    contextName: context,
    caCert: ctx.pki.caCert,
    clientCert: join(certs, 'tenant-dns.crt'),
    clientKey: join(certs, 'tenant-dns.key'),
  });
  return [path, context];
}

/**
 * Starts the local tenant DNS and resolves once its `ready` plugin says the `kubernetes` plugin
 * has synced with the tenant apiserver. Its PID is pushed to `started` as soon as it exists.
 */
export async function startTenantDns(
  ctx: TenantDnsContext,
  started: number[],
): Promise<TenantDnsProcess> {
  const dir = join(ctx.stateDir, 'dns');
  await mkdir(dir, { recursive: true });
  const [[kubeconfig, context], port, healthPort, readyPort] = await Promise.all([
    tenantKubeconfig(ctx, dir),
    freePort(),
    freePort(),
    freePort(),
    grantDeployedRole(ctx),
  ]);
  const spec: LocalCorefileSpec = { port, healthPort, readyPort, kubeconfig, context };
  const corefile = join(dir, 'Corefile');
  await writeFile(corefile, localCorefile(await readDeployedCorefile(), spec));
  const binary = ctx.binaries.coredns;
  const logFile = join(ctx.stateDir, 'logs', 'coredns-tenant.log');
  const child = startDaemon(binary, ['-conf', corefile], logFile);
  if (child.pid === undefined) throw new LocalClusterError(`could not start ${binary}`);
  started.push(child.pid);
  ctx.log(`started coredns for the tenant cluster on ${dnsAddress(port)}`);
  const ready = async () => (await get(`http://127.0.0.1:${readyPort}/ready`)).status === 200;
  await waitUntil(
    'coredns of the tenant cluster (/ready)',
    ready,
    child.pid,
    binary,
    logFile,
    ctx.timeoutMs,
  );
  return { name: 'coredns', cluster: 'tenant', pid: child.pid, port, binary, logFile };
}
