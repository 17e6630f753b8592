/**
 * The default RBAC manifests in deploy/rbac are enough, and no more: applied to the real tenant and host
 * apiservers (RBAC authorizer), a pass run with certificate identities bound only by them creates,
 * updates and garbage-collects host copies, writes its Events and status.lastPass with zero
 * errors; the same identities are Forbidden outside those bounds.
 *
 * The tenant apiserver is shared with other test files: this tenant's policy excludes every tenant
 * object not labelled `tenantplane-test=<tenant>`, so only its own objects sync.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeClusterApi } from '../../../lib/adapters/kube/cluster-client.js';
import { createClusterApi } from '../../../lib/adapters/kube/cluster-client.js';
import { hostName } from '../../../lib/engine/index.js';
import { issueUserKubeconfig } from '../../../lib/localcluster/users.js';
import type { KindRef, KubeObject } from '../../../lib/ports/index.js';
import { restrictedHostIdentity } from '../support/rbac.js';
import {
  adminApis,
  applyTenantManifest,
  CONFIGMAP,
  controlPlane,
  EVENT,
  eventually,
  expectClean,
  expectForbidden,
  LABEL,
  lines,
  NAMESPACE,
  tenantObject as objectOf,
  POD,
  pass as passAs,
  RUN,
  SECRET,
  TENANT_CLUSTER,
} from './least-privilege/support.js';

const TENANT = `rbac-${RUN}`;
const HOST_NS = `h-${TENANT}`;
const VNS = `${TENANT}-a`;
const OTHER_TENANT = `rbac-other-${RUN}`;
const OTHER_NS = `h-${OTHER_TENANT}`;

const admin = adminApis();
let restricted: { tenant: KubeClusterApi; host: KubeClusterApi };

function tenantObject(kind: KindRef, name: string, body: Record<string, unknown>): KubeObject {
  return objectOf(kind, name, body, TENANT, VNS);
}

/** A pass of this file's tenant as its restricted identities. */
const pass = () => passAs(TENANT, restricted);

beforeAll(async () => {
  // As the operators would: the manifests, applied with admin credentials.
  await applyTenantManifest('tenant-cluster.yaml');
  const hostKc = await restrictedHostIdentity(TENANT, HOST_NS, ['host-cluster.yaml']);
  await admin.tenant.create({ ...NAMESPACE, metadata: { name: VNS } });
  for (const [name, hostNamespace] of [
    [TENANT, HOST_NS],
    [OTHER_TENANT, OTHER_NS],
  ] as const) {
    await admin.host.create({
      ...TENANT_CLUSTER,
      metadata: { name },
      spec: {
        hostNamespace,
        toHost: [CONFIGMAP, SECRET].map((k) => ({
          ...k,
          exclude: { labelSelector: `${LABEL}!=${name}` },
        })),
      },
    });
  }
  await admin.tenant.create(tenantObject(CONFIGMAP, 'app', { data: { color: 'blue' } }));
  await admin.tenant.create(
    tenantObject(SECRET, 'token', { type: 'Opaque', stringData: { t: 's3cret' } }),
  );

  const tenantKc = await issueUserKubeconfig(await controlPlane(), 'tenant', 'tenantplane-sync');
  restricted = { tenant: createClusterApi(tenantKc), host: createClusterApi(hostKc) };
  await eventually('the tenant binding takes effect', () => restricted.tenant.list(SECRET));
  await eventually('the host bindings take effect', async () => {
    await restricted.host.get(TENANT_CLUSTER, undefined, TENANT);
    await restricted.host.list(SECRET, { namespace: HOST_NS });
    await restricted.host.get(EVENT, 'default', 'none');
  });
});

afterAll(async () => {
  await Promise.all([
    admin.tenant.close(),
    admin.host.close(),
    restricted?.tenant.close(),
    restricted?.host.close(),
  ]);
});

describe('the engine with only the deploy/rbac permissions', () => {
  it('the first pass creates the host copies, its Events and status.lastPass', async () => {
    const run = await pass();
    expect(lines(run.result)).toEqual(['Create ConfigMap app', 'Create Secret token']);
    await expectClean(run, TENANT, admin);
    expect(run.events.lastReport).toMatchObject({ created: 2, summary: 'created' });
    const copy = await admin.host.get(CONFIGMAP, HOST_NS, hostName('app', VNS, TENANT));
    expect(copy?.data).toEqual({ color: 'blue' });
    expect(await admin.host.get(SECRET, HOST_NS, hostName('token', VNS, TENANT))).toBeDefined();
  });

  it('tenant edits update the copy; a repeated decision bumps its Event (get + update)', async () => {
    for (const color of ['green', 'red']) {
      const source = await admin.tenant.get(CONFIGMAP, VNS, 'app');
      await admin.tenant.update({ ...(source as KubeObject), data: { color } });
      const run = await pass();
      expect(lines(run.result)).toEqual(['Update ConfigMap app']);
      // `watch` is granted: the change came from a resumed watch, not a full listing.
      expect(run.result.path).toBe('resumed');
      await expectClean(run, TENANT, admin);
      const copy = await admin.host.get(CONFIGMAP, HOST_NS, hostName('app', VNS, TENANT));
      expect(copy?.data).toEqual({ color });
      if (color === 'red') expect(run.events.lastReport).toMatchObject({ bumped: 1 });
      if (color === 'red') expect(run.events.lastReport?.summary).toBe('bumped');
    }
  });

  it('a tenant delete garbage-collects the host copy', async () => {
    const source = await admin.tenant.get(SECRET, VNS, 'token');
    await admin.tenant.delete(SECRET, VNS, 'token', { uid: source?.metadata.uid as string });
    const run = await pass();
    expect(lines(run.result)).toEqual(['Delete Secret token']);
    await expectClean(run, TENANT, admin);
    expect(await admin.host.get(SECRET, HOST_NS, hostName('token', VNS, TENANT))).toBeUndefined();
  });
});

describe('the bounds of the restricted identities', () => {
  const foreignConfigMap = (namespace: string): KubeObject => ({
    ...CONFIGMAP,
    metadata: { name: `rbac-probe-${RUN}`, namespace },
    data: { k: 'v' },
  });

  it('the host identity cannot write outside its namespace or read another tenant', async () => {
    const host = restricted.host;
    await expectForbidden('create in another tenant namespace', () =>
      host.create(foreignConfigMap(OTHER_NS)),
    );
    await expectForbidden('list another tenant namespace', () =>
      host.list(SECRET, { namespace: OTHER_NS }),
    );
    await expectForbidden('create a ConfigMap in default', () =>
      host.create(foreignConfigMap('default')),
    );
    await expectForbidden('read another TenantCluster', () =>
      host.get(TENANT_CLUSTER, undefined, OTHER_TENANT),
    );
    await expectForbidden('write another TenantCluster status', () =>
      host.patchStatus(TENANT_CLUSTER, undefined, OTHER_TENANT, { lastPass: null }),
    );
    await expectForbidden('list TenantClusters', () => host.list(TENANT_CLUSTER));
    const LEASE = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' };
    await expectForbidden('take a lease in another tenant namespace', () =>
      host.create({ ...LEASE, metadata: { name: `tenantplane-${TENANT}`, namespace: OTHER_NS } }),
    );
    await expectForbidden('read another lease in its own namespace', () =>
      host.get(LEASE, HOST_NS, `tenantplane-${OTHER_TENANT}`),
    );
    await expectForbidden('list leases', () => host.list(LEASE, { namespace: HOST_NS }));
    const own = (await host.get(TENANT_CLUSTER, undefined, TENANT)) as KubeObject;
    await expectForbidden('edit its own TenantCluster spec', () =>
      host.update({ ...own, spec: { ...(own.spec as object), paused: true } }),
    );
    await expectForbidden('delete its own TenantCluster', () =>
      host.delete(TENANT_CLUSTER, undefined, TENANT, { uid: own.metadata.uid as string }),
    );
    await expectForbidden('create a namespace', () =>
      host.create({ ...NAMESPACE, metadata: { name: `rbac-probe-${RUN}` } }),
    );
    // Its one namespace GET is its own host namespace (the HostPodSecurity condition), which the
    // manifest labelled for the host's Pod Security admission; no other namespace.
    const hostNamespace = await host.get(NAMESPACE, undefined, HOST_NS);
    expect(hostNamespace?.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('baseline');
    await expectForbidden('get another tenant namespace', () =>
      host.get(NAMESPACE, undefined, OTHER_NS),
    );
    expect(await admin.host.get(CONFIGMAP, OTHER_NS, `rbac-probe-${RUN}`)).toBeUndefined();
  });

  it('the tenant identity can only list and watch: no create, get, update, delete or other kinds', async () => {
    const tenant = restricted.tenant;
    await expectForbidden('create on the tenant', () => tenant.create(foreignConfigMap(VNS)));
    await expectForbidden('create a namespace on the tenant', () =>
      tenant.create({ ...NAMESPACE, metadata: { name: `rbac-probe-${RUN}` } }),
    );
    await expectForbidden('get on the tenant', () => tenant.get(CONFIGMAP, VNS, 'app'));
    const source = (await admin.tenant.get(CONFIGMAP, VNS, 'app')) as KubeObject;
    await expectForbidden('update on the tenant', () =>
      tenant.update({ ...source, data: { color: 'hacked' } }),
    );
    await expectForbidden('delete on the tenant', () =>
      tenant.delete(CONFIGMAP, VNS, 'app', { uid: source.metadata.uid as string }),
    );
    await expectForbidden('list an ungranted kind', () => tenant.list(POD));
    // Its one GET is the kube-system namespace (the tenant cluster's identity), nothing else.
    expect((await tenant.get(NAMESPACE, undefined, 'kube-system'))?.metadata.name).toBe(
      'kube-system',
    );
    await expectForbidden('get another namespace', () =>
      tenant.get(NAMESPACE, undefined, 'default'),
    );
    expect((await admin.tenant.get(CONFIGMAP, VNS, 'app'))?.data).toEqual({ color: 'red' });
    expect(await admin.tenant.get(CONFIGMAP, VNS, `rbac-probe-${RUN}`)).toBeUndefined();
  });
});
