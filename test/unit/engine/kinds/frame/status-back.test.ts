/**
 * Status back for Services, Ingresses and claims, pass after pass: the tenant object shows its host
 * copy's status through `/status`, only when it changed; a
 * refused write is an error of the object and the next pass is full; a steady state writes nothing.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../../lib/engine/index.js';
import { ClusterError, type KubeObject } from '../../../../../lib/ports/index.js';
import { clusters, HOST_NS, hn } from '../../support.js';

const SERVICE = { apiVersion: 'v1', kind: 'Service' };
const CLAIM = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };
const INGRESS = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' };
const CREATED = Date.parse('2025-01-01T00:00:00Z');
const LATER = CREATED + 60 * 60_000;
const LB = { ingress: [{ ip: '203.0.113.7' }] };

const tenantObjects: KubeObject[] = [
  {
    ...SERVICE,
    metadata: { namespace: 'shop', name: 'web', uid: 'svc-uid' },
    spec: { type: 'LoadBalancer', selector: { app: 'web' }, ports: [{ port: 80 }] },
    status: { loadBalancer: {} },
  },
  {
    ...CLAIM,
    metadata: { namespace: 'shop', name: 'data', uid: 'claim-uid' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    status: { phase: 'Pending' },
  },
  {
    ...INGRESS,
    metadata: { namespace: 'shop', name: 'web', uid: 'ing-uid' },
    spec: {
      rules: [
        {
          host: 'web.shop.example.com',
          http: {
            paths: [
              {
                path: '/',
                pathType: 'Prefix',
                backend: { service: { name: 'web', port: { number: 80 } } },
              },
            ],
          },
        },
      ],
    },
  },
];

function setup(now = LATER) {
  const { tenantApi, hostApi } = clusters(tenantObjects, [], {
    toHost: [SERVICE, CLAIM, INGRESS],
    // A LoadBalancer Service and the Ingress's host, as the policy allows them (isolation).
    workloads: {
      services: { types: ['ClusterIP', 'LoadBalancer'] },
      ingresses: { hostSuffixes: ['.shop.example.com'] },
    },
  });
  const run = (path?: 'full') =>
    runPass({
      tenant: 'dev',
      tenantApi,
      hostApi,
      clock: { now: () => now },
      ...(path ? { path } : {}),
    });
  /** The host's controllers set `status` (and `spec` fields) on a host copy. */
  const host = (kind: typeof SERVICE, name: string, change: Partial<KubeObject>) => {
    const copy = hostApi.peek(kind, HOST_NS, hn('shop', name));
    if (!copy) throw new Error(`no host ${kind.kind} ${name}`);
    hostApi.replace({ ...copy, ...change });
  };
  return { tenantApi, hostApi, run, host };
}

function hostRun(
  host: ReturnType<typeof setup>['host'],
  hostApi: ReturnType<typeof setup>['hostApi'],
) {
  const svc = hostApi.peek(SERVICE, HOST_NS, hn('shop', 'web')) as KubeObject;
  host(SERVICE, 'web', {
    spec: { ...(svc.spec as object), clusterIP: '10.96.0.9', clusterIPs: ['10.96.0.9'] },
    status: { loadBalancer: LB },
  });
  host(CLAIM, 'data', {
    status: { phase: 'Bound', capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] },
  });
  host(INGRESS, 'web', { status: { loadBalancer: LB } });
}

describe('status back of Services, Ingresses and claims', () => {
  it('a full pass shows the host copies’ status in the tenant; then nothing is written', async () => {
    const { tenantApi, hostApi, run, host } = setup();
    expect((await run()).errors).toEqual([]);
    hostRun(host, hostApi);

    const back = await run('full');
    expect(back.errors).toEqual([]);
    expect(back.decisions).toEqual([]);
    expect(back.requests.host.writes).toBe(0);
    // Three status patches; the Service itself is not written (it has no address to align).
    expect(
      tenantApi
        .callsOf('patchStatus')
        .map((c) => c.kind)
        .sort(),
    ).toEqual(['Ingress', 'PersistentVolumeClaim', 'Service']);
    expect(tenantApi.callsOf('update')).toEqual([]);
    expect(back.requests.tenant.writes).toBe(3);
    const svc = tenantApi.peek(SERVICE, 'shop', 'web');
    expect(svc?.status).toEqual({ loadBalancer: LB });
    expect(tenantApi.peek(CLAIM, 'shop', 'data')?.status).toEqual({
      phase: 'Bound',
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
    });
    expect(tenantApi.peek(INGRESS, 'shop', 'web')?.status).toEqual({ loadBalancer: LB });

    // The next pass sees the tenant writes as changes, compares, writes nothing; so do later ones.
    for (const path of [undefined, undefined, 'full' as const]) {
      const steady = await run(path);
      expect({ path, decisions: steady.decisions, errors: steady.errors }).toEqual({
        path,
        decisions: [],
        errors: [],
      });
      expect({ path, requests: steady.requests }).toMatchObject({
        path,
        requests: { tenant: { writes: 0 }, host: { writes: 0 } },
      });
    }
  });

  it('a host copy still moving keeps its kind on full passes, so its status shows without a tenant change', async () => {
    const { tenantApi, run, host } = setup(CREATED + 60_000);
    await run();
    // The claim is not bound yet, the LoadBalancer Service has no address: the next pass is full.
    const waiting = await run();
    expect(waiting.pathReason ?? '').toContain('PersistentVolumeClaim');
    host(CLAIM, 'data', { status: { phase: 'Bound', capacity: { storage: '1Gi' } } });
    await run();
    expect(tenantApi.peek(CLAIM, 'shop', 'data')?.status).toMatchObject({ phase: 'Bound' });
  });

  it('a refused status write is an error of the object; the pass goes on and the next pass is full', async () => {
    const { tenantApi, hostApi, run, host } = setup();
    await run();
    hostRun(host, hostApi);
    tenantApi.failWhen((call) =>
      call.method === 'patchStatus' && call.kind === 'PersistentVolumeClaim'
        ? new ClusterError('Forbidden', 'persistentvolumeclaims "data" is forbidden', {
            status: 403,
          })
        : undefined,
    );
    const refused = await run('full');
    expect(refused.errors).toEqual([
      expect.objectContaining({
        kind: 'PersistentVolumeClaim',
        tenantRef: { namespace: 'shop', name: 'data' },
        reason: 'Forbidden',
      }),
    ]);
    expect(tenantApi.peek(SERVICE, 'shop', 'web')?.status).toEqual({ loadBalancer: LB });
    tenantApi.clearFailures();
    const next = await run();
    expect(next.pathReason ?? '').toContain('PersistentVolumeClaim');
    expect(next.errors).toEqual([]);
    expect(tenantApi.peek(CLAIM, 'shop', 'data')?.status).toMatchObject({ phase: 'Bound' });
  });

  it('a dry run writes no status', async () => {
    const { tenantApi, hostApi, run, host } = setup();
    await run();
    hostRun(host, hostApi);
    const writes = tenantApi.requestCount().writes;
    await runPass({
      tenant: 'dev',
      tenantApi,
      hostApi,
      clock: { now: () => LATER },
      dryRun: true,
      path: 'full',
    });
    expect(tenantApi.requestCount().writes).toBe(writes);
    expect(tenantApi.peek(CLAIM, 'shop', 'data')?.status).toEqual({ phase: 'Pending' });
  });
});
