/**
 * Pod Security in the engine, on the real clusters (issue 28, finding 1): a tenant Pod that would
 * reach the node through a capability, an unconfined seccomp profile, root under the restricted
 * level or an unsafe sysctl makes no host Pod, and its Skip names the field, the level and the
 * check, pass after pass; a compliant Pod is created. The host namespace carries no Pod Security
 * label here (the host's own admission would let every one of them in), and is shared with
 * another tenant (the victim): a uid/resourceVersion snapshot of it shows that nothing but the
 * compliant Pod was written. The TenantCluster's `HostPodSecurity` condition says when the host
 * namespace's own Pod Security admission (the second wall) is missing or lower than the policy.
 */
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { KindRef, KubeObject, PassResult } from '../../../lib/ports/index.js';
import { snapshot } from '../faults/support.js';
import {
  CONFIGMAP,
  createTenant,
  decisionLines,
  diffSnapshots,
  NAMESPACE,
  pass,
  SECRET,
  type Snapshot,
  type Tenant,
  tenantClusterObject,
  tenantConfigMap,
  tenantObject,
  useApis,
} from './support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const ENFORCE = 'pod-security.kubernetes.io/enforce';

/** A Pod spec with one container `web` whose security context is `security`. */
function podSpec(security: Record<string, unknown> = {}, pod: Record<string, unknown> = {}) {
  return {
    automountServiceAccountToken: false,
    ...pod,
    containers: [{ name: 'web', image: 'nginx:1', securityContext: security }],
  };
}

/** What the restricted level asks of a container. */
const HARDENED = {
  allowPrivilegeEscalation: false,
  runAsNonRoot: true,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
};

/** The Skip reasons of the pass's Pods, by tenant name. */
function podSkips(result: PassResult): Record<string, string> {
  return Object.fromEntries(
    result.decisions
      .filter((d) => d.kind === 'Pod' && d.action === 'Skip')
      .map((d) => [d.tenantRef.name, d.reason]),
  );
}

/**
 * The victim: another tenant whose copies already live in the shared host namespace (a ConfigMap
 * and a Secret: what a container on the node could read; no Pod, whose status the host's
 * scheduler and kubelet keep writing, so the snapshots compare state the engine alone writes).
 */
async function victimBeside(attacker: Tenant, base: string): Promise<void> {
  const victim = await createTenant(apis(), base, {
    toHost: [CONFIGMAP, SECRET],
    hostNamespace: attacker.hostNamespace,
  });
  await victim.tenantApi.create(tenantConfigMap(victim, victim.vns.a, 'plans'));
  await victim.tenantApi.create(
    tenantObject(victim, SECRET, victim.vns.a, 'db', { stringData: { password: 'x' } }),
  );
  const { result } = await pass(victim);
  expect(result.errors).toEqual([]);
  expect(decisionLines(result)).toEqual([
    `Create ConfigMap ${victim.vns.a}/plans -> ${hostName('plans', victim.vns.a, victim.name)}`,
    `Create Secret ${victim.vns.a}/db -> ${hostName('db', victim.vns.a, victim.name)}`,
  ]);
}

/** The TenantCluster's `HostPodSecurity` condition. */
async function wallOf(t: Tenant): Promise<Record<string, unknown> | undefined> {
  const status = (await tenantClusterObject(t)).status as
    | { conditions?: Record<string, unknown>[] }
    | undefined;
  return status?.conditions?.find((c) => c.type === 'HostPodSecurity');
}

/** Sets the host namespace's Pod Security enforce label (as `deploy/rbac/host-cluster/host-cluster.yaml` does). */
async function enforce(t: Tenant, level: string): Promise<void> {
  const ns = (await t.hostApi.get(NAMESPACE, undefined, t.hostNamespace)) as KubeObject;
  const labels = { ...ns.metadata.labels, [ENFORCE]: level };
  await t.hostApi.update({ ...ns, metadata: { ...ns.metadata, labels } });
}

/** `snapshot` without `key`: a host Pod the host's scheduler and kubelet go on writing. */
async function snapshotBut(namespace: string, key: string): Promise<Snapshot> {
  const all = await snapshot(namespace);
  all.delete(key);
  return all;
}

describe('Pod Security in the engine (the host Pod at the policy’s level)', () => {
  it('baseline (the default): capabilities, an unconfined profile and unsafe sysctls make no host Pod; the Skips name the field; the compliant Pod lands', async () => {
    const t = await createTenant(apis(), 'psa-base', { toHost: [POD] });
    await victimBeside(t, 'psa-victim-b');
    const ns = t.vns.a;
    const pods = {
      'sys-admin': podSpec({ capabilities: { add: ['SYS_ADMIN'] } }),
      unconfined: podSpec({}, { securityContext: { seccompProfile: { type: 'Unconfined' } } }),
      sysctls: podSpec(
        {},
        { securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '65536' }] } },
      ),
      plain: podSpec(),
    };
    for (const [name, spec] of Object.entries(pods)) {
      await t.tenantApi.create(tenantObject(t, POD, ns, name, { spec }));
    }
    const before = await snapshot(t.hostNamespace);

    const { result } = await pass(t);

    expect(result.errors).toEqual([]);
    const level = 'by the Pod Security Standard "baseline"';
    expect(podSkips(result)).toEqual({
      'sys-admin': expect.stringContaining(
        `spec.containers[web].securityContext.capabilities.add: SYS_ADMIN is not allowed ${level} (capabilities_baseline)`,
      ),
      unconfined: expect.stringContaining(
        `spec.securityContext.seccompProfile.type: Unconfined is not allowed ${level} (seccompProfile_baseline)`,
      ),
      sysctls: expect.stringContaining(
        `spec.securityContext.sysctls[0].name: kernel.msgmax is not allowed ${level} (sysctls)`,
      ),
    });
    expect(diffSnapshots(before, await snapshot(t.hostNamespace))).toEqual({
      created: [`Pod/${hostName('plain', ns, t.name)}`],
      changed: [],
      deleted: [],
    });

    // Pass after pass: the same Skips, no write (the compliant Pod's status is the host's).
    const plain = `Pod/${hostName('plain', ns, t.name)}`;
    const settled = await snapshotBut(t.hostNamespace, plain);
    const again = await pass(t);
    expect(Object.keys(podSkips(again.result)).sort()).toEqual([
      'sys-admin',
      'sysctls',
      'unconfined',
    ]);
    expect(again.result.requests.host.writes).toBe(0);
    expect(diffSnapshots(settled, await snapshotBut(t.hostNamespace, plain))).toEqual({
      created: [],
      changed: [],
      deleted: [],
    });

    // The second wall: the host namespace has no enforce label, and the TenantCluster says so;
    // once labelled, the next full pass says the wall stands.
    expect(await wallOf(t)).toMatchObject({
      status: 'False',
      reason: 'NotEnforced',
      message: expect.stringContaining(
        `kubectl label namespace ${t.hostNamespace} ${ENFORCE}=baseline`,
      ),
    });
    await enforce(t, 'baseline');
    await pass(t, { full: true });
    expect(await wallOf(t)).toMatchObject({ status: 'True', reason: 'Enforced' });
  });

  it('restricted: root (runAsUser 0) makes no host Pod, its Skip names the field; the hardened Pod lands', async () => {
    const t = await createTenant(apis(), 'psa-restr', {
      toHost: [POD],
      workloads: { podSecurity: 'restricted' },
    });
    await victimBeside(t, 'psa-victim-r');
    const ns = t.vns.a;
    await t.tenantApi.create(
      tenantObject(t, POD, ns, 'root', { spec: podSpec({ ...HARDENED, runAsUser: 0 }) }),
    );
    // Baseline would take it: restricted asks for more.
    await t.tenantApi.create(tenantObject(t, POD, ns, 'loose', { spec: podSpec() }));
    await t.tenantApi.create(tenantObject(t, POD, ns, 'hardened', { spec: podSpec(HARDENED) }));
    const before = await snapshot(t.hostNamespace);

    const { result } = await pass(t);

    expect(result.errors).toEqual([]);
    const level = 'by the Pod Security Standard "restricted"';
    expect(podSkips(result)).toEqual({
      root: expect.stringContaining(
        `spec.containers[web].securityContext.runAsUser: 0 is not allowed ${level} (runAsUser)`,
      ),
      loose: expect.stringContaining(
        `spec.containers[web].securityContext.allowPrivilegeEscalation: false is required ${level} (allowPrivilegeEscalation)`,
      ),
    });
    expect(diffSnapshots(before, await snapshot(t.hostNamespace))).toEqual({
      created: [`Pod/${hostName('hardened', ns, t.name)}`],
      changed: [],
      deleted: [],
    });

    // A baseline label is lower than the policy's level: the condition names both.
    await enforce(t, 'baseline');
    await pass(t, { full: true });
    expect(await wallOf(t)).toMatchObject({
      status: 'False',
      reason: 'NotEnforced',
      message: expect.stringContaining(
        'at least as strict as the policy\'s level "restricted" (it has "baseline")',
      ),
    });
  });
});
