/**
 * The tenant DNS of the local plane, a real CoreDNS running the Corefile of deploy/tenant-dns with
 * only the deployed ClusterRole on the tenant (docs/tenant-dns.md), answers tenant names with
 * tenant addresses, over UDP and TCP, and never answers `kubernetes.default.svc` at all.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import { TENANT_DNS_DIR } from '../../../lib/localcluster/tenant-dns-corefile.js';
import type { KubeObject } from '../../../lib/ports/index.js';
import {
  clusters,
  createTenant,
  listAll,
  pass,
  RUN,
  SERVICE,
  type Tenant,
  tenantObject,
  useApis,
  waitFor,
} from '../engine/support.js';
import {
  type Answer,
  askA,
  knownToDns,
  resolveA,
  resolveAAAA,
  resolveATcp,
  resolveSrv,
  tenantDnsServer,
} from '../support/dns.js';

const dns = tenantDnsServer();
const apis = useApis();
const POD = { apiVersion: 'v1', kind: 'Pod' };
const NODE = { apiVersion: 'v1', kind: 'Node' };
const ENDPOINT_SLICE = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice' };
const NXDOMAIN = 3;
const LONG_NAME = 'orders-api-with-a-name-long-enough-that-the-host-name-is-hashed';

const clusterIpOf = (service: KubeObject | undefined): string => {
  const spec = service?.spec as { clusterIP?: string } | undefined;
  if (!spec?.clusterIP) throw new Error(`no cluster IP: ${JSON.stringify(service)}`);
  return spec.clusterIP;
};

/**
 * The answer to `name` once the plugin has it. The plugin learns objects through its watch, and
 * a question asked before it has them is answered NXDOMAIN, which the Corefile's `cache 30` then
 * serves for 30 s (docs/tenant-dns.md): so the first A question waits until the plugin's view has
 * the name (`knownToDns`, which asks only questions nothing else asks), and is asked once.
 */
async function answerOnceKnown(name: string, ask: () => Promise<Answer>): Promise<Answer> {
  await knownToDns(dns, name);
  return ask();
}

describe('the tenant DNS (CoreDNS with the Corefile of deploy/tenant-dns)', () => {
  let tenant: Tenant;

  beforeAll(async () => {
    tenant = await createTenant(apis(), 'dns', { toHost: [SERVICE] });
  });
  afterAll(async () => {
    const node = await tenant.tenantApi.get(NODE, undefined, `dns-node-${RUN}`);
    if (node)
      await tenant.tenantApi.delete(NODE, undefined, node.metadata.name, {
        uid: node.metadata.uid as string,
      });
  });

  async function createService(namespace: string, name: string, spec: Record<string, unknown>) {
    return tenant.tenantApi.create(tenantObject(tenant, SERVICE, namespace, name, { spec }));
  }
  const ports = [{ name: 'http', port: 80, targetPort: 8080 }];

  it('answers <svc>.<ns>.svc.cluster.local with the tenant Service cluster IP, over UDP and TCP', async () => {
    const ns = tenant.vns.a;
    const ip = clusterIpOf(await createService(ns, 'web', { selector: { app: 'web' }, ports }));
    const name = `web.${ns}.svc.cluster.local`;
    expect(await answerOnceKnown(name, () => resolveA(dns, name))).toEqual({ addresses: [ip] });
    // Aligned: the address the tenant DNS answers is the host copy's, which the host serves.
    expect((await pass(tenant)).result.errors).toEqual([]);
    const copy = await tenant.hostApi.get(
      SERVICE,
      tenant.hostNamespace,
      hostName('web', ns, tenant.name),
    );
    expect(clusterIpOf(copy)).toBe(ip);
    expect(await resolveATcp(dns, name)).toEqual({ addresses: [ip] });
    expect(await resolveA(dns, `nothing-here.${ns}.svc.cluster.local`)).toEqual({
      code: 'ENOTFOUND',
    });
  });

  it('answers a Service whose host copy has a hashed name by its tenant name, the same way', async () => {
    const ns = tenant.vns.a;
    const ip = clusterIpOf(await createService(ns, LONG_NAME, { selector: { app: 'x' }, ports }));
    const copy = hostName(LONG_NAME, ns, tenant.name);
    expect(copy).not.toBe(`${LONG_NAME}-x-${ns}-x-${tenant.name}`);
    await pass(tenant);
    const hosted = await tenant.hostApi.get(SERVICE, tenant.hostNamespace, copy);
    expect(clusterIpOf(hosted)).toBe(ip);
    const long = `${LONG_NAME}.${ns}.svc.cluster.local`;
    expect(await answerOnceKnown(long, () => resolveA(dns, long))).toEqual({ addresses: [ip] });
    // The tenant DNS knows tenant names only: the host copy's name means nothing there.
    const hostFqdn = `${copy}.${tenant.hostNamespace}.svc.cluster.local`;
    expect(await resolveA(dns, hostFqdn)).toEqual({ code: 'ENOTFOUND' });
  });

  it('never answers kubernetes.default.svc.cluster.local: NXDOMAIN, whatever the type or transport', async () => {
    const tenantKubernetes = await tenant.tenantApi.get(SERVICE, 'default', 'kubernetes');
    const hostKubernetes = await tenant.hostApi.get(SERVICE, 'default', 'kubernetes');
    const forbidden = [clusterIpOf(tenantKubernetes), clusterIpOf(hostKubernetes)];
    const name = 'kubernetes.default.svc.cluster.local';
    const answers = [
      await resolveA(dns, name),
      await resolveATcp(dns, name),
      await resolveAAAA(dns, name),
      await resolveSrv(dns, `_https._tcp.${name}`),
    ];
    for (const a of answers) expect(a).toEqual({ code: 'ENOTFOUND' });
    expect(JSON.stringify(answers)).not.toMatch(
      new RegExp(forbidden.join('|').replace(/\./g, '\\.')),
    );
    // Only that name: a tenant Service called `kubernetes` in another namespace answers as usual.
    const ns = tenant.vns.b;
    const own = clusterIpOf(
      await createService(ns, 'kubernetes', { selector: { app: 'k' }, ports }),
    );
    const ownName = `kubernetes.${ns}.svc.cluster.local`;
    expect(await answerOnceKnown(ownName, () => resolveA(dns, ownName))).toEqual({
      addresses: [own],
    });
  });

  it('a name asked before its Service exists stays NXDOMAIN while the cache holds the denial (whatever its case), then answers', async () => {
    const ns = tenant.vns.a;
    // Each step waits on what the DNS itself says (the plugin's view, the denial's remaining
    // TTL), never on a wall clock. Only if the plugin learnt the Service after the denial had
    // already expired (a starved machine) is there nothing to see: then again, with a new name.
    for (let attempt = 1; ; attempt++) {
      const service = `late-${attempt}`;
      const name = `${service}.${ns}.svc.cluster.local`;
      const denied = await askA(dns, name);
      expect(denied).toMatchObject({ rcode: NXDOMAIN, addresses: [] });
      expect(denied.ttl).toBe(30);
      const ip = clusterIpOf(
        await createService(ns, service, { selector: { app: 'late' }, ports }),
      );
      await knownToDns(dns, name);
      const held = await askA(dns, name);
      const heldAt = Date.now();
      if (held.rcode === 0 && attempt < 3) continue;
      // The plugin has the Service; the cache still holds the denial, by the lowercased name.
      expect(held).toMatchObject({ rcode: NXDOMAIN, addresses: [] });
      expect(held.ttl).toBeLessThanOrEqual(30);
      expect(await askA(dns, name.toUpperCase())).toMatchObject({ rcode: NXDOMAIN });
      // Then the answer, once the denial's TTL has run out; every answer before it the denial.
      const seen: number[] = [];
      const answered = await waitFor(
        'the answer once the cached denial expires',
        async () => {
          const a = await askA(dns, name);
          seen.push(a.rcode);
          return a.rcode === 0 ? a : undefined;
        },
        ((held.ttl ?? 30) + 90) * 1000,
      );
      expect(answered.addresses).toEqual([ip]);
      expect(seen.slice(0, -1).every((rcode) => rcode === NXDOMAIN)).toBe(true);
      // Not before the cache let go (TTLs count in whole seconds).
      expect(Date.now() - heldAt).toBeGreaterThanOrEqual(((held.ttl ?? 30) - 1) * 1000);
      return;
    }
  }, 600_000);

  it('answers <pod>.<headless svc>.<ns>.svc.cluster.local with the tenant EndpointSlice address', async () => {
    const ns = tenant.vns.b;
    await createService(ns, 'db', { clusterIP: 'None', selector: { app: 'db' }, ports });
    const ips = { 'db-0': '10.244.1.10', 'db-1': '10.244.2.11' };
    // The EndpointSlice controller skips a Pod whose Node it does not know: the tenant Node a
    // pass makes for a host node, here one of this test's own.
    const nodeName = `dns-node-${RUN}`;
    await tenant.tenantApi.create({ ...NODE, metadata: { name: nodeName } });
    for (const [pod, ip] of Object.entries(ips)) {
      const spec = {
        hostname: pod,
        subdomain: 'db',
        nodeName,
        containers: [{ name: 'db', image: 'registry.k8s.io/pause:3.10' }],
      };
      await tenant.tenantApi.create(
        tenantObject(tenant, POD, ns, pod, { spec }, { labels: { app: 'db' } }),
      );
      // The tenant has no kubelet: its Pods get the status a pass brings back from the host.
      const ready = { type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString() };
      await tenant.tenantApi.patchStatus(POD, ns, pod, {
        phase: 'Running',
        podIP: ip,
        podIPs: [{ ip }],
        conditions: [ready],
      });
    }
    // The tenant's EndpointSlice controller names each endpoint by its Pod's hostname.
    const sliced = await waitFor('the tenant EndpointSlice with both hostnames', async () => {
      const slices = await listAll(tenant.tenantApi, ENDPOINT_SLICE, ns);
      const endpoints = slices
        .filter((s) => s.metadata.labels?.['kubernetes.io/service-name'] === 'db')
        .flatMap((s) => (s.endpoints as { hostname?: string; addresses: string[] }[]) ?? []);
      return endpoints.filter((e) => e.hostname).length === 2 ? endpoints : undefined;
    });
    for (const [pod, ip] of Object.entries(ips)) {
      expect(sliced.find((e) => e.hostname === pod)?.addresses).toEqual([ip]);
      const podName = `${pod}.db.${ns}.svc.cluster.local`;
      expect(await answerOnceKnown(podName, () => resolveA(dns, podName))).toEqual({
        addresses: [ip],
      });
    }
    expect(await resolveA(dns, `db.${ns}.svc.cluster.local`)).toEqual({
      addresses: Object.values(ips).sort(),
    });
  });

  it('deploy/tenant-dns applies to a tenant as it is, with no Pod Security warning', async () => {
    const run = promisify(execFile);
    const args = ['--kubeconfig', clusters.tenantKubeconfigPath, 'apply', '-k', TENANT_DNS_DIR];
    const applied = await run(clusters.kubectl, args);
    expect(applied.stdout).toMatch(/^namespace\/tenant-dns (created|unchanged|configured)$/m);
    expect(applied.stdout).toMatch(/^deployment\.apps\/coredns (created|unchanged|configured)$/m);
    expect(applied.stdout).toMatch(/^service\/coredns (created|unchanged|configured)$/m);
    // (kubectl warns that the ClusterRole the local plane created lacks its last-applied note.)
    expect(applied.stderr).not.toMatch(/PodSecurity|would violate/i);
    // The ClusterRole the local CoreDNS answered every test above with is this very one.
    const role = await tenant.tenantApi.get(
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' },
      undefined,
      'tenant-dns',
    );
    expect(role?.rules).toEqual([
      { apiGroups: [''], resources: ['services', 'namespaces'], verbs: ['list', 'watch'] },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
    ]);
    // Gone again (its ConfigMap would meet tests that sync a whole shared tenant); the ClusterRole
    // stays, since the local CoreDNS is bound to it.
    await run(clusters.kubectl, [
      ...args.slice(0, 2),
      'delete',
      'namespace/tenant-dns',
      'clusterrolebinding/tenant-dns',
      '--wait=true',
      '--timeout=60s',
    ]);
  });
});
