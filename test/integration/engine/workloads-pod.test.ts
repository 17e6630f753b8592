/**
 * Pods on the real clusters: references land renamed to copies that exist, a Pod whose reference
 * is not synced waits with a Decision that names it, and an image change and a resource change
 * (an in-place resize) update the host Pod in place while a host-added toleration stays; converged
 * passes write nothing (uid/resourceVersion snapshot of the host namespace); a change the running
 * host Pod cannot take is a Skip that says so, with no write.
 */
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { KindRef, KubeObject } from '../../../lib/ports/index.js';
import {
  CONFIGMAP,
  createTenant,
  decisionLines,
  diffSnapshots,
  listAll,
  pass,
  RUN,
  SECRET,
  type Snapshot,
  type Tenant,
  tenantClusterObject,
  tenantObject,
  useApis,
} from './support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const CLAIM: KindRef = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };
// Pods first: the pass applies what they refer to before them anyway.
const TO_HOST = [POD, CONFIGMAP, SECRET, CLAIM];

/** The web container's resources after the tenant's in-place resize (100m before). */
const RESIZED = { requests: { cpu: '200m', memory: '64Mi' } };

const HOST_TOLERATION = {
  key: 'example.com/host-added',
  operator: 'Exists',
  effect: 'NoSchedule',
};

function podSpec(config: string): Record<string, unknown> {
  return {
    // The tenant token a Pod otherwise gets is workloads-token.test.ts's subject.
    automountServiceAccountToken: false,
    volumes: [
      { name: 'config', configMap: { name: config } },
      { name: 'creds', secret: { secretName: 'db' } },
      { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
      {
        name: 'bundle',
        projected: { sources: [{ configMap: { name: config } }, { secret: { name: 'db' } }] },
      },
    ],
    initContainers: [
      { name: 'init', image: 'busybox:1', envFrom: [{ secretRef: { name: 'db' } }] },
    ],
    containers: [
      {
        name: 'web',
        image: 'nginx:1',
        resources: { requests: { cpu: '100m', memory: '64Mi' } },
        env: [
          { name: 'A', valueFrom: { configMapKeyRef: { name: config, key: 'a' } } },
          { name: 'B', valueFrom: { secretKeyRef: { name: 'db', key: 'b' } } },
          { name: 'ME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        ],
        envFrom: [{ configMapRef: { name: config } }],
      },
    ],
    imagePullSecrets: [{ name: 'registry' }],
  };
}

async function seedReferences(t: Tenant, ns: string, config: string): Promise<void> {
  const { tenantApi } = t;
  await tenantApi.create(tenantObject(t, CONFIGMAP, ns, config, { data: { a: '1' } }));
  await tenantApi.create(tenantObject(t, SECRET, ns, 'db', { stringData: { b: '2' } }));
  await tenantApi.create(tenantObject(t, SECRET, ns, 'registry', { stringData: { x: 'y' } }));
  await tenantApi.create(
    tenantObject(t, CLAIM, ns, 'data', {
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Mi' } } },
    }),
  );
}

/** `Kind/name` -> `uid@resourceVersion` of every object of the synced kinds in the host namespace. */
async function snapshot(t: Tenant): Promise<Snapshot> {
  const all: Snapshot = new Map();
  for (const kind of TO_HOST) {
    for (const o of await listAll(t.hostApi, kind, t.hostNamespace)) {
      all.set(`${kind.kind}/${o.metadata.name}`, `${o.metadata.uid}@${o.metadata.resourceVersion}`);
    }
  }
  return all;
}

/** Every name the host Pod refers to, with its kind, and whether that host object exists. */
async function referredTo(t: Tenant, hostPod: KubeObject): Promise<string[]> {
  const spec = hostPod.spec as {
    volumes: Array<
      Record<
        string,
        {
          name?: string;
          secretName?: string;
          claimName?: string;
          sources?: Array<Record<string, { name: string }>>;
        }
      >
    >;
    initContainers: Array<{ envFrom: Array<{ secretRef: { name: string } }> }>;
    containers: Array<{
      env: Array<{ valueFrom?: Record<string, { name?: string }> }>;
      envFrom: Array<{ configMapRef: { name: string } }>;
    }>;
    imagePullSecrets: Array<{ name: string }>;
  };
  const refs: Array<[KindRef, string]> = [];
  for (const v of spec.volumes) {
    if (v.configMap?.name) refs.push([CONFIGMAP, v.configMap.name]);
    if (v.secret?.secretName) refs.push([SECRET, v.secret.secretName]);
    if (v.persistentVolumeClaim?.claimName) refs.push([CLAIM, v.persistentVolumeClaim.claimName]);
    for (const s of v.projected?.sources ?? []) {
      if (s.configMap) refs.push([CONFIGMAP, s.configMap.name]);
      if (s.secret) refs.push([SECRET, s.secret.name]);
    }
  }
  for (const c of spec.initContainers)
    for (const e of c.envFrom) refs.push([SECRET, e.secretRef.name]);
  for (const c of spec.containers) {
    for (const e of c.env) {
      // KUBERNETES_SERVICE_HOST/PORT (the tenant's endpoint) are values, no reference.
      const from = e.valueFrom ?? {};
      if (from.configMapKeyRef?.name) refs.push([CONFIGMAP, from.configMapKeyRef.name]);
      if (from.secretKeyRef?.name) refs.push([SECRET, from.secretKeyRef.name]);
    }
    for (const e of c.envFrom) refs.push([CONFIGMAP, e.configMapRef.name]);
  }
  for (const p of spec.imagePullSecrets) refs.push([SECRET, p.name]);
  const lines: string[] = [];
  for (const [kind, name] of refs) {
    const found = await t.hostApi.get(kind, t.hostNamespace, name);
    lines.push(`${kind.kind} ${name} ${found ? 'exists' : 'MISSING'}`);
  }
  return lines;
}

describe('Pods on the host', () => {
  it('a Pod with every kind of reference lands referring to copies that exist, without host credentials', async () => {
    const t = await createTenant(apis(), 'wl-refs', { toHost: TO_HOST });
    const ns = t.vns.a;
    const h = (name: string) => hostName(name, ns, t.name);
    await seedReferences(t, ns, 'storefront');
    await t.tenantApi.create(tenantObject(t, POD, ns, 'web', { spec: podSpec('storefront') }));

    const first = await pass(t);
    expect(first.result.errors).toEqual([]);
    expect(decisionLines(first.result)).toEqual(
      [
        `Create ConfigMap ${ns}/storefront -> ${h('storefront')}`,
        `Create PersistentVolumeClaim ${ns}/data -> ${h('data')}`,
        `Create Pod ${ns}/web -> ${h('web')}`,
        `Create Secret ${ns}/db -> ${h('db')}`,
        `Create Secret ${ns}/registry -> ${h('registry')}`,
      ].sort(),
    );
    const hostPod = await t.hostApi.get(POD, t.hostNamespace, h('web'));
    if (!hostPod) throw new Error('no host Pod');
    const refs = await referredTo(t, hostPod);
    expect(refs).toHaveLength(10);
    expect(refs.filter((line) => !line.endsWith(' exists'))).toEqual([]);
    expect(hostPod.spec).toMatchObject({
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      hostname: 'web',
    });
    const volumes = (hostPod.spec as { volumes: Array<{ name: string }> }).volumes;
    expect(volumes.map((v) => v.name)).not.toContain(expect.stringMatching(/^kube-api-access/));
  });

  it('a Pod whose ConfigMap is not synced waits, named in its Decision, and is created in the pass where it exists; an image change and a resource change update it in place, a host toleration stays, then nothing is written', async () => {
    const t = await createTenant(apis(), 'wl-wait', { toHost: TO_HOST });
    const ns = t.vns.a;
    const h = (name: string) => hostName(name, ns, t.name);
    await seedReferences(t, ns, 'other');
    await t.tenantApi.create(tenantObject(t, POD, ns, 'web', { spec: podSpec('later') }));

    const waiting = await pass(t);
    expect(waiting.result.errors).toEqual([]);
    const skip = waiting.result.decisions.find((d) => d.kind === 'Pod');
    expect(skip).toMatchObject({ action: 'Skip', hostRef: { name: h('web') } });
    expect(skip?.reason).toMatch(/ConfigMap "later", which has no host copy yet/);
    expect(await t.hostApi.get(POD, t.hostNamespace, h('web'))).toBeUndefined();

    await t.tenantApi.create(tenantObject(t, CONFIGMAP, ns, 'later', { data: { a: '1' } }));
    const created = await pass(t);
    expect(created.result.errors).toEqual([]);
    expect(decisionLines(created.result)).toEqual([
      `Create ConfigMap ${ns}/later -> ${h('later')}`,
      `Create Pod ${ns}/web -> ${h('web')}`,
    ]);
    const made = await t.hostApi.get(POD, t.hostNamespace, h('web'));
    if (!made) throw new Error('no host Pod');

    // A host controller adds a toleration (as taint-based eviction and webhooks do).
    const spec = made.spec as { tolerations?: unknown[] };
    await t.hostApi.update({
      ...made,
      spec: { ...spec, tolerations: [...(spec.tolerations ?? []), HOST_TOLERATION] },
    });
    const tenantPod = await t.tenantApi.get(POD, ns, 'web');
    if (!tenantPod) throw new Error('no tenant Pod');
    const tenantSpec = tenantPod.spec as { containers: Array<Record<string, unknown>> };
    const imaged = await t.tenantApi.update({
      ...tenantPod,
      spec: {
        ...tenantSpec,
        containers: tenantSpec.containers.map((c) => ({ ...c, image: 'nginx:2' })),
      },
    });
    // The tenant resizes its Pod in place, as `kubectl edit --subresource resize` does.
    if (!t.tenantApi.resize) throw new Error('the cluster client cannot resize');
    const imagedSpec = imaged.spec as { containers: Array<Record<string, unknown>> };
    await t.tenantApi.resize({
      ...imaged,
      spec: {
        ...imagedSpec,
        containers: imagedSpec.containers.map((c) => ({ ...c, resources: RESIZED })),
      },
    });

    const updated = await pass(t);
    expect(updated.result.errors).toEqual([]);
    expect(decisionLines(updated.result)).toEqual([`Update Pod ${ns}/web -> ${h('web')}`]);
    const after = await t.hostApi.get(POD, t.hostNamespace, h('web'));
    expect(after?.metadata.uid).toBe(made.metadata.uid);
    expect(after?.spec).toMatchObject({
      containers: [expect.objectContaining({ image: 'nginx:2', resources: RESIZED })],
      tolerations: expect.arrayContaining([HOST_TOLERATION]),
    });

    const before = await snapshot(t);
    for (const n of [1, 2]) {
      const steady = await pass(t, { full: true });
      // A tenant Node comes in the pass after the host scheduled a Pod onto its node, whenever
      // that is (workloads-nodes.test.ts asserts them).
      const decisions = steady.result.decisions.filter((d) => d.kind !== 'Node');
      expect({ n, decisions }).toEqual({ n, decisions: [] });
      expect({ n, writes: steady.result.requests.host.writes }).toEqual({ n, writes: 0 });
      // The status of the updated Pod may come back once; then the tenant is not written either.
      if (n === 2) expect(steady.result.requests.tenant.writes).toBe(0);
    }
    expect(diffSnapshots(before, await snapshot(t))).toEqual({
      created: [],
      changed: [],
      deleted: [],
    });

    // A policy change the running host Pod cannot take (its DNS settings): a Skip naming the
    // fields and what to do, no write; the same again in the next pass.
    const tc = await tenantClusterObject(t);
    const tcSpec = tc.spec as Record<string, unknown>;
    await t.hostApi.update({
      ...tc,
      spec: { ...tcSpec, workloads: { tenantDns: { nameserver: '10.96.0.10' } } },
    });
    for (const n of [1, 2]) {
      const refused = await pass(t, { full: true });
      expect({ n, errors: refused.result.errors }).toEqual({ n, errors: [] });
      expect(refused.result.decisions.filter((d) => d.kind !== 'Node')).toEqual([
        expect.objectContaining({
          action: 'Skip',
          kind: 'Pod',
          reason: expect.stringMatching(
            /^the Pod's spec\.dnsPolicy, spec\.dnsConfig changed; a running Pod cannot change them; delete the tenant Pod to recreate it$/,
          ),
        }),
      ]);
      if (n === 2) expect(refused.result.requests.host.writes).toBe(0);
    }
    expect(diffSnapshots(before, await snapshot(t))).toEqual({
      created: [],
      changed: [],
      deleted: [],
    });
  });

  it('a Pod gets the host priority class the policy names, and the priority the host gives it', async () => {
    const PRIORITY_CLASS: KindRef = { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass' };
    const hostClass = `tenantplane-test-${RUN}`;
    const { hostApi } = apis();
    await hostApi.create({ ...PRIORITY_CLASS, metadata: { name: hostClass }, value: 1000 });
    try {
      const t = await createTenant(apis(), 'wl-prio', { toHost: [POD] });
      const tc = await tenantClusterObject(t);
      await t.hostApi.update({
        ...tc,
        spec: { ...(tc.spec as object), workloads: { priorityClassName: hostClass } },
      });
      const ns = t.vns.a;
      await t.tenantApi.create(
        tenantObject(t, POD, ns, 'web', {
          spec: {
            automountServiceAccountToken: false,
            containers: [{ name: 'web', image: 'nginx:1' }],
          },
        }),
      );
      const run = await pass(t);
      expect(run.result.errors).toEqual([]);
      expect(decisionLines(run.result)).toEqual([
        `Create Pod ${ns}/web -> ${hostName('web', ns, t.name)}`,
      ]);
      const hostPod = await t.hostApi.get(POD, t.hostNamespace, hostName('web', ns, t.name));
      expect(hostPod?.spec).toMatchObject({ priorityClassName: hostClass, priority: 1000 });
      const steady = await pass(t, { full: true });
      // A tenant Node comes in the pass after the host scheduled a Pod onto its node, whenever
      // that is (workloads-nodes.test.ts asserts them).
      expect(steady.result.decisions.filter((d) => d.kind !== 'Node')).toEqual([]);
    } finally {
      const found = await hostApi.get(PRIORITY_CLASS, undefined, hostClass);
      if (found) {
        await hostApi.delete(PRIORITY_CLASS, undefined, hostClass, {
          uid: found.metadata.uid as string,
        });
      }
    }
  });

  it('the host namespace’s Pod Security admission stays the final word: its refusal is the Pod’s error, naming the rule; the compliant Pod lands', async () => {
    const NAMESPACE: KindRef = { apiVersion: 'v1', kind: 'Namespace' };
    const t = await createTenant(apis(), 'wl-psa', { toHost: [POD] });
    const hostNs = (await t.hostApi.get(NAMESPACE, undefined, t.hostNamespace)) as KubeObject;
    await t.hostApi.update({
      ...hostNs,
      metadata: {
        ...hostNs.metadata,
        labels: { ...hostNs.metadata.labels, 'pod-security.kubernetes.io/enforce': 'restricted' },
      },
    });
    const ns = t.vns.a;
    const container = { name: 'web', image: 'nginx:1' };
    const restricted = {
      allowPrivilegeEscalation: false,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    };
    await t.tenantApi.create(
      tenantObject(t, POD, ns, 'loose', {
        spec: { automountServiceAccountToken: false, containers: [container] },
      }),
    );
    await t.tenantApi.create(
      tenantObject(t, POD, ns, 'strict', {
        spec: {
          automountServiceAccountToken: false,
          containers: [{ ...container, securityContext: restricted }],
        },
      }),
    );
    const before = await snapshot(t);
    const run = await pass(t);
    expect(run.result.errors).toEqual([
      expect.objectContaining({
        kind: 'Pod',
        tenantRef: { namespace: ns, name: 'loose' },
        reason: 'Forbidden',
        message: expect.stringMatching(/violates PodSecurity "restricted:latest"/),
      }),
    ]);
    expect(
      run.result.decisions
        .filter((d) => d.kind === 'Pod' && d.error === undefined)
        .map((d) => d.tenantRef.name),
    ).toEqual(['strict']);
    const after = await snapshot(t);
    // Only the compliant Pod was created; nothing else in the host namespace changed.
    expect(diffSnapshots(before, after)).toEqual({
      created: [`Pod/${hostName('strict', ns, t.name)}`],
      changed: [],
      deleted: [],
    });
  });
});
