/**
 * Aligned cluster IPs, pass after pass, on in-memory clusters that allocate addresses as an
 * apiserver does (an asked address taken or out of range is a 422; none asked, the next free one):
 * free on the host, the copy has the tenant's and the tenant is not written; taken, or in the
 * static band, the tenant Service is recreated once with the copy's; a tenant whose range is not
 * the host's is one Skip per Service and pass, never a write; headless and ExternalName untouched.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../../lib/engine/index.js';
import { cidrContains, parseCidr } from '../../../../../lib/engine/policy/cidr.js';
import {
  ClusterError,
  CONFIG_MAP,
  type CreateOptions,
  type KubeObject,
  SERVICE,
} from '../../../../../lib/ports/index.js';
import { MemoryCluster } from '../../../fakes/memory-cluster.js';
import { HOST_NS, hn, tenantCluster } from '../../support.js';

/**
 * A cluster that allocates Service addresses from `range`, as a kube-apiserver does; each cluster
 * from its own block of the dynamic band (a real one picks at random).
 */
class AllocatingCluster extends MemoryCluster {
  private next = 1;
  constructor(
    name: string,
    private readonly range: string,
    readonly held: Set<string> = new Set(),
    private readonly block = name === 'host' ? 200 : 100,
  ) {
    super(name);
  }

  override async create(object: KubeObject, options: CreateOptions = {}): Promise<KubeObject> {
    if (object.kind !== 'Service') return super.create(object, options);
    const spec = { ...(object.spec as Record<string, unknown>) };
    const asked = typeof spec.clusterIP === 'string' ? spec.clusterIP : undefined;
    const cidr = parseCidr(this.range);
    const refuse = (why: string) =>
      new ClusterError(
        'Invalid',
        `Service "${object.metadata.name}" is invalid: spec.clusterIPs: Invalid value: ["${asked}"]: failed to allocate IP ${asked}: ${why}`,
        { status: 422 },
      );
    if (asked === 'None') return super.create(object, options);
    if (spec.type === 'ExternalName') return super.create(object, options);
    if (asked !== undefined && cidr && !cidrContains(cidr, asked))
      throw refuse(
        `the provided IP (${asked}) is not in the valid range. The range of valid IPs is ${this.range}`,
      );
    if (options.dryRun) return super.create(object, options); // never checks who holds it
    if (asked !== undefined && this.held.has(asked))
      throw refuse('provided IP is already allocated');
    const ip =
      asked ?? `${this.range.split('.').slice(0, 2).join('.')}.${this.block}.${this.next++}`;
    this.held.add(ip);
    return super.create({ ...object, spec: { ...spec, clusterIP: ip, clusterIPs: [ip] } }, options);
  }
}

const HOST_RANGE = '10.96.0.0/16';
const SERVICE_CIDR = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name: 'kubernetes' },
  spec: { cidrs: [HOST_RANGE] },
};

function svc(name: string, spec: Record<string, unknown>): KubeObject {
  return {
    ...SERVICE,
    metadata: { namespace: 'shop', name },
    spec: { ports: [{ port: 80 }], ...spec },
  };
}

async function setup(tenantRange: string, hostHeld: string[], services: KubeObject[]) {
  const tenantApi = new AllocatingCluster('tenant', tenantRange);
  const hostApi = new AllocatingCluster('host', HOST_RANGE, new Set(hostHeld));
  hostApi.seed(tenantCluster({ toHost: [SERVICE] }), SERVICE_CIDR);
  for (const s of services) await tenantApi.create(s);
  const run = () => runPass({ tenant: 'dev', tenantApi, hostApi });
  const ip = (api: MemoryCluster, ns: string, name: string) =>
    (api.peek(SERVICE, ns, name)?.spec as { clusterIP?: string } | undefined)?.clusterIP;
  return { tenantApi, hostApi, run, ip };
}

const lines = (decisions: readonly { action: string; tenantRef: { name: string } }[]) =>
  decisions.map((d) => `${d.action} ${d.tenantRef.name}`);

describe('aligned cluster IPs', () => {
  it('free on the host: the copy has the tenant’s address, the tenant is not written', async () => {
    const { tenantApi, hostApi, run, ip } = await setup(HOST_RANGE, [], [svc('web', {})]);
    const tenantIp = ip(tenantApi, 'shop', 'web');
    const writes = tenantApi.requestCount().writes;
    const first = await run();
    expect(first.errors).toEqual([]);
    expect(lines(first.decisions)).toEqual(['Create web']);
    expect(ip(hostApi, HOST_NS, hn('shop', 'web'))).toBe(tenantIp);
    expect(tenantApi.requestCount().writes).toBe(writes);
    expect(hostApi.callsOf('list').filter((c) => c.kind === 'ServiceCIDR')).toHaveLength(1);
    // Steady: no ranges read, nothing written.
    const again = await run();
    expect(again.decisions).toEqual([]);
    expect(again.requests.tenant.writes + again.requests.host.writes).toBe(0);
    expect(hostApi.callsOf('list').filter((c) => c.kind === 'ServiceCIDR')).toHaveLength(1);
  });

  it.each([
    {
      name: 'taken on the host',
      tenantIp: '10.96.5.5',
      held: ['10.96.5.5'],
      because: 'the host holds that address',
    },
    {
      name: 'in the host’s static band (never asked for)',
      tenantIp: '10.96.0.50',
      held: [],
      because: 'keeps for static assignment',
    },
  ])(
    '$name: the tenant Service is recreated once with its copy’s address, then steady',
    async ({ tenantIp, held, because }) => {
      const { tenantApi, hostApi, run, ip } = await setup(HOST_RANGE, held, [
        svc('web', { clusterIP: tenantIp, selector: { app: 'web' } }),
        svc('other', {}),
      ]);
      const before = tenantApi.peek(SERVICE, 'shop', 'web') as KubeObject;
      const other = tenantApi.peek(SERVICE, 'shop', 'other') as KubeObject;
      const first = await run();
      expect(first.errors).toEqual([]);
      expect(lines(first.decisions).sort()).toEqual(['Create other', 'Create web', 'Update web']);
      const update = first.decisions.find((d) => d.action === 'Update');
      expect(update?.reason).toContain(because);
      const hostIp = ip(hostApi, HOST_NS, hn('shop', 'web'));
      expect(hostIp).not.toBe(tenantIp);
      const after = tenantApi.peek(SERVICE, 'shop', 'web') as KubeObject;
      expect(ip(tenantApi, 'shop', 'web')).toBe(hostIp);
      expect(after.metadata.uid).not.toBe(before.metadata.uid);
      expect(after.spec).toMatchObject({ selector: { app: 'web' }, ports: [{ port: 80 }] });
      // The other Service was asked for and given: untouched.
      expect(tenantApi.peek(SERVICE, 'shop', 'other')?.metadata.resourceVersion).toBe(
        other.metadata.resourceVersion,
      );
      // The copy records its new source (an update of its uid annotation), then nothing more.
      const second = await run();
      expect(lines(second.decisions)).toEqual(['Update web']);
      expect(second.requests.tenant.writes).toBe(0);
      const third = await run();
      expect(third.decisions).toEqual([]);
      expect(third.requests.tenant.writes + third.requests.host.writes).toBe(0);
    },
  );

  it('a lease another pass holds: the realignment waits, no request writes on either side', async () => {
    const { tenantApi, hostApi, run, ip } = await setup(
      HOST_RANGE,
      [],
      [svc('web', { clusterIP: '10.96.0.50', selector: { app: 'web' } })],
    );
    // The copy is made; the tenant refuses the realignment's delete this once.
    tenantApi.failWhen((c) =>
      c.method === 'delete' ? new ClusterError('Forbidden', 'not now', { status: 403 }) : undefined,
    );
    await run();
    tenantApi.clearFailures();
    const before = tenantApi.peek(SERVICE, 'shop', 'web') as KubeObject;
    const now = Date.now();
    const micro = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');
    hostApi.seed({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { namespace: HOST_NS, name: 'tenantplane-dev' },
      spec: {
        holderIdentity: 'a follow elsewhere',
        leaseDurationSeconds: 600,
        acquireTime: micro(now),
        renewTime: micro(now),
      },
    });
    const tenantWrites = tenantApi.requestCount().writes;
    const hostWrites = hostApi.requestCount().writes;
    // A resumed pass has nothing to write; a full one would realign, so it asks for the lease.
    const resumed = await runPass({ tenant: 'dev', tenantApi, hostApi });
    expect(resumed.decisions).toEqual([]);
    const held = await runPass({ tenant: 'dev', tenantApi, hostApi, path: 'full' });
    expect(held.leaseHeld?.holder).toBe('a follow elsewhere');
    expect(held.decisions).toEqual([]);
    // The lease's create (AlreadyExists) is the one host write request: no status, no copy.
    expect(hostApi.requestCount().writes - hostWrites).toBe(1);
    expect(hostApi.callsOf('patchStatus')).toHaveLength(1); // the first pass's
    expect(tenantApi.requestCount().writes).toBe(tenantWrites);
    expect(tenantApi.peek(SERVICE, 'shop', 'web')).toEqual(before);

    hostApi.remove(
      { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' },
      HOST_NS,
      'tenantplane-dev',
    );
    const free = await runPass({ tenant: 'dev', tenantApi, hostApi, path: 'full' });
    expect(lines(free.decisions)).toContain('Update web');
    expect(ip(tenantApi, 'shop', 'web')).toBe(ip(hostApi, HOST_NS, hn('shop', 'web')));
  });

  it('a tenant range that is not the host’s: one Skip per Service and pass naming both, no write', async () => {
    const { tenantApi, hostApi, run, ip } = await setup('10.200.0.0/16', [], [svc('web', {})]);
    const first = await run();
    expect(first.errors).toEqual([]);
    expect(lines(first.decisions)).toEqual(['Create web', 'Skip web']);
    const [create, skip] = first.decisions;
    expect(create?.reason).toContain("outside the host's service range (10.96.0.0/16)");
    expect(skip?.reason).toContain('The range of valid IPs is 10.200.0.0/16');
    expect(ip(hostApi, HOST_NS, hn('shop', 'web'))).toMatch(/^10\.96\./);
    expect(ip(tenantApi, 'shop', 'web')).toMatch(/^10\.200\./);
    for (const path of ['full', 'full'] as const) {
      const again = await runPass({ tenant: 'dev', tenantApi, hostApi, path });
      expect(lines(again.decisions)).toEqual(['Skip web']);
      expect(again.requests.tenant.writes + again.requests.host.writes).toBe(0);
    }
  });

  it('headless and ExternalName Services are never asked for nor recreated', async () => {
    const { tenantApi, hostApi, run } = await setup(
      HOST_RANGE,
      [],
      [
        svc('headless', { clusterIP: 'None', selector: { app: 'db' } }),
        {
          ...SERVICE,
          metadata: { namespace: 'shop', name: 'ext' },
          spec: { type: 'ExternalName', externalName: 'db.shop.svc.cluster.local' },
        },
      ],
    );
    const before = tenantApi.objects().map((o) => o.metadata.resourceVersion);
    const first = await run();
    expect(first.errors).toEqual([]);
    expect(tenantApi.objects().map((o) => o.metadata.resourceVersion)).toEqual(before);
    expect(hostApi.callsOf('list').filter((c) => c.kind === 'ServiceCIDR')).toHaveLength(0);
  });

  it('host ranges that cannot be read: nothing asked, the tenant realigned', async () => {
    const { tenantApi, hostApi, run, ip } = await setup(HOST_RANGE, [], [svc('web', {})]);
    hostApi.failWhen((call) =>
      call.kind === 'ServiceCIDR'
        ? new ClusterError('Forbidden', 'forbidden', { status: 403 })
        : undefined,
    );
    const first = await run();
    expect(first.errors).toEqual([]);
    expect(first.decisions.map((d) => d.reason).join('\n')).toContain(
      "the host's service ranges could not be read (forbidden)",
    );
    expect(ip(tenantApi, 'shop', 'web')).toBe(ip(hostApi, HOST_NS, hn('shop', 'web')));
  });

  const owning = async (held: string[] = ['10.96.5.5']) => {
    const env = await setup(HOST_RANGE, held, [svc('web', { clusterIP: '10.96.5.5' })]);
    const web = env.tenantApi.peek(SERVICE, 'shop', 'web') as KubeObject;
    const owner = { apiVersion: 'v1', kind: 'Service', name: 'web', uid: web.metadata.uid };
    const owned = (kind: string, apiVersion: string, name: string, labels = {}) =>
      env.tenantApi.create({
        apiVersion,
        kind,
        metadata: { namespace: 'shop', name, labels, ownerReferences: [owner] },
      });
    return { ...env, owned };
  };
  const stamps = (api: MemoryCluster) =>
    api
      .objects()
      .map((o) => `${o.kind}/${o.metadata.name} ${o.metadata.uid}@${o.metadata.resourceVersion}`);

  it('a Service to realign that owns a ConfigMap: a Skip naming it, pass after pass, no tenant write; realigned once it owns nothing', async () => {
    const { tenantApi, hostApi, ip, owned } = await owning();
    await owned('ConfigMap', 'v1', 'web-config');
    const before = stamps(tenantApi);
    for (const path of ['full', 'full'] as const) {
      const pass = await runPass({ tenant: 'dev', tenantApi, hostApi, path });
      expect(pass.errors).toEqual([]);
      expect(pass.decisions.filter((d) => d.action === 'Skip').map((d) => d.reason)).toEqual([
        `not realigned to its host copy's cluster IP ${ip(hostApi, HOST_NS, hn('shop', 'web'))}: tenant objects name it as their owner (ConfigMap/web-config), and deleting it to recreate it would take them from it; it keeps its address until none does`,
      ]);
      expect(pass.requests.tenant.writes).toBe(0);
    }
    expect(stamps(tenantApi)).toEqual(before);
    // The tenant lets go of it: a resumed pass reads only what changed (not the Service), the
    // next full pass realigns it.
    const cm = tenantApi.peek(CONFIG_MAP, 'shop', 'web-config') as KubeObject;
    await tenantApi.update({ ...cm, metadata: { ...cm.metadata, ownerReferences: [] } });
    const after = await runPass({ tenant: 'dev', tenantApi, hostApi, path: 'full' });
    expect(after.errors).toEqual([]);
    expect(lines(after.decisions)).toContain('Update web');
    expect(ip(tenantApi, 'shop', 'web')).toBe(ip(hostApi, HOST_NS, hn('shop', 'web')));
  });

  it('more than three owned: three named and more', async () => {
    const { tenantApi, hostApi, owned } = await owning();
    for (const n of ['a', 'b', 'c', 'd', 'e']) await owned('ConfigMap', 'v1', n);
    const pass = await runPass({ tenant: 'dev', tenantApi, hostApi, path: 'full' });
    const skip = pass.decisions.find((d) => d.action === 'Skip');
    expect(skip?.reason).toContain('(ConfigMap/a, ConfigMap/b, ConfigMap/c and more)');
  });

  it.each([
    {
      name: 'its EndpointSlice the tenant’s controller made (remade for the new Service)',
      kind: 'EndpointSlice',
      apiVersion: 'discovery.k8s.io/v1',
      labels: { 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' },
      fail: false,
    },
    {
      name: 'a ConfigMap of a kind the engine may not list (orphaned by the delete, not deleted)',
      kind: 'ConfigMap',
      apiVersion: 'v1',
      labels: {},
      fail: true,
    },
  ])(
    'a Service to realign with $name: realigned, the delete orphans',
    async ({ kind, apiVersion, labels, fail }) => {
      const { tenantApi, hostApi, ip, owned } = await owning();
      const dependent = await owned(kind, apiVersion, 'dep', labels);
      if (fail)
        tenantApi.failWhen((call) =>
          call.method === 'list' && call.kind === kind
            ? new ClusterError('Forbidden', 'forbidden', { status: 403 })
            : undefined,
        );
      const pass = await runPass({ tenant: 'dev', tenantApi, hostApi, path: 'full' });
      expect(pass.errors).toEqual([]);
      expect(lines(pass.decisions)).toEqual(['Create web', 'Update web']);
      expect(ip(tenantApi, 'shop', 'web')).toBe(ip(hostApi, HOST_NS, hn('shop', 'web')));
      const deletes = tenantApi.callsOf('delete').filter((c) => c.kind === 'Service');
      expect(deletes.map((c) => c.deleteOptions)).toEqual([{ propagationPolicy: 'Orphan' }]);
      // No collector here: the dependent is as it was (the real one's is the integration test's).
      expect(tenantApi.peek({ apiVersion, kind }, 'shop', 'dep')?.metadata.resourceVersion).toBe(
        dependent.metadata.resourceVersion,
      );
    },
  );
});
