/**
 * Events back on the real clusters: a host Event about a tenant's host Pod appears on the tenant
 * Pod, in tenant names (`kubectl describe pod` in the tenant shows it), a count bump on the host
 * updates it, a steady pass writes nothing in the tenant, and Events about another tenant's copy
 * in the same host namespace, or about no copy at all, are not copied.
 */
import { execFile } from 'node:child_process';
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import { EventBackKeys, Labels } from '../../../lib/engine/names/metadata.js';
import type { KindRef, KubeObject } from '../../../lib/ports/index.js';
import {
  clusters,
  createTenant,
  EVENT,
  listAll,
  pass,
  type Tenant,
  tenantObject,
  useApis,
  waitFor,
} from './support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const SPEC = {
  automountServiceAccountToken: false,
  containers: [{ name: 'web', image: 'nginx:1' }],
};

/** Runs the built kubectl against the tenant cluster. */
function tenantKubectl(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      clusters.kubectl,
      ['--kubeconfig', clusters.tenantKubeconfigPath, ...args],
      { timeout: 60_000 },
      (error, stdout, stderr) =>
        error ? reject(new Error(stderr || error.message)) : resolve(stdout),
    );
  });
}

/** A core/v1 Event on the host about `about` (what a host controller would write). */
function hostEvent(about: KubeObject, name: string, reason: string, message: string): KubeObject {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    ...EVENT,
    metadata: { namespace: about.metadata.namespace, name },
    involvedObject: {
      apiVersion: 'v1',
      kind: about.kind,
      namespace: about.metadata.namespace,
      name: about.metadata.name,
      uid: about.metadata.uid,
      fieldPath: 'spec.containers{web}',
    },
    type: 'Warning',
    reason,
    message,
    count: 1,
    firstTimestamp: now,
    lastTimestamp: now,
    source: { component: 'kubelet', host: 'kwok-node-0' },
  };
}

/** The tenant's copies of host Events (by the engine's labels). */
async function copiesOf(t: Tenant): Promise<KubeObject[]> {
  const all = await listAll(t.tenantApi, EVENT, undefined);
  return all.filter((e) => e.metadata.labels?.[Labels.Tenant] === t.name);
}

describe('Events back', () => {
  it('a host Event about a host Pod appears on the tenant Pod in tenant names; a count bump updates it; a steady pass writes nothing; other tenants’ and foreign Events stay on the host', async () => {
    const t = await createTenant(apis(), 'ev-back', {
      toHost: [POD],
      workloads: { eventsBack: 'All' },
    });
    // Another tenant in the same host namespace, with a Pod of the same name.
    const other = await createTenant(apis(), 'ev-other', {
      toHost: [POD],
      hostNamespace: t.hostNamespace,
    });
    const ns = t.vns.a;
    await t.tenantApi.create(tenantObject(t, POD, ns, 'web', { spec: SPEC }));
    await other.tenantApi.create(tenantObject(other, POD, other.vns.a, 'web', { spec: SPEC }));
    for (const tenant of [t, other]) expect((await pass(tenant)).result.errors).toEqual([]);
    const h = hostName('web', ns, t.name);
    const hOther = hostName('web', other.vns.a, other.name);
    const hostPod = (name: string) =>
      waitFor(
        `host Pod ${name} running`,
        async () => {
          const pod = await t.hostApi.get(POD, t.hostNamespace, name);
          return (pod?.status as { phase?: string } | undefined)?.phase === 'Running'
            ? pod
            : undefined;
        },
        60_000,
      );
    const ours = await hostPod(h);
    const theirs = await hostPod(hOther);
    const tenantPod = (await t.tenantApi.get(POD, ns, 'web')) as KubeObject;

    const hostNs = t.hostNamespace;
    const message = `Back-off restarting failed container web in pod ${h}_${hostNs}(${ours.metadata.uid}); see ${hostNs}/${h}`;
    const mine = await t.hostApi.create(hostEvent(ours, `${h}.back`, 'TestBackOff', message));
    const foreign = await t.hostApi.create(
      hostEvent(theirs, `${hOther}.back`, 'TestBackOff', `pod ${hOther} backs off`),
    );
    const ghost = await t.hostApi.create(
      hostEvent(
        {
          ...POD,
          metadata: { namespace: hostNs, name: hostName('ghost', ns, t.name), uid: 'no-such-uid' },
        },
        'ghost.back',
        'TestBackOff',
        'about no copy',
      ),
    );

    const back = await pass(t);
    expect(back.result.errors).toEqual([]);
    const copyOf = async (hostEventObject: KubeObject) =>
      (await copiesOf(t)).find(
        (e) =>
          e.metadata.annotations?.[EventBackKeys.HostEventUid] === hostEventObject.metadata.uid,
      );
    const copy = await copyOf(mine);
    expect(copy).toMatchObject({
      metadata: { namespace: ns },
      involvedObject: {
        apiVersion: 'v1',
        kind: 'Pod',
        namespace: ns,
        name: 'web',
        uid: tenantPod.metadata.uid,
        fieldPath: 'spec.containers{web}',
      },
      type: 'Warning',
      reason: 'TestBackOff',
      message: `Back-off restarting failed container web in pod web_${ns}(${ours.metadata.uid}); see ${ns}/web`,
      count: 1,
    });
    // The host scheduler's own Event (events.k8s.io: eventTime, action, reportingController).
    const scheduled = (await copiesOf(t)).find((e) => e.reason === 'Scheduled');
    expect(scheduled?.message).toMatch(new RegExp(`^Successfully assigned ${ns}/web to `));
    expect(scheduled?.involvedObject).toMatchObject({ name: 'web', uid: tenantPod.metadata.uid });
    expect(await copyOf(foreign)).toBeUndefined();
    expect(await copyOf(ghost)).toBeUndefined();
    // What the tenant's operator sees.
    const described = await tenantKubectl(['describe', 'pod', 'web', '-n', ns]);
    expect(described).toMatch(/TestBackOff/);
    expect(described).not.toContain(h);

    // The host's kubelet sees it again: the copy follows.
    const seen = (await t.hostApi.get(EVENT, hostNs, `${h}.back`)) as KubeObject;
    const later = new Date(Date.now() + 5_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await t.hostApi.update({ ...seen, count: 4, lastTimestamp: later });
    const bumped = await pass(t);
    expect(bumped.result.errors).toEqual([]);
    expect(
      bumped.result.decisions
        .filter((d) => d.kind === 'Event' && d.hostRef.name === `${h}.back`)
        .map((d) => d.action),
    ).toEqual(['Update']);
    expect(await copyOf(mine)).toMatchObject({ count: 4, lastTimestamp: later });
    expect((await copiesOf(t)).filter((e) => e.reason === 'TestBackOff')).toHaveLength(1);

    // Steady: the status back may still settle once; then nothing is written in the tenant.
    await pass(t, { full: true });
    for (const options of [{}, { full: true }]) {
      const steady = await pass(t, options);
      expect(steady.result.errors).toEqual([]);
      // A tenant Node comes in the pass after the host scheduled a Pod onto its node, whenever
      // that is (workloads-nodes.test.ts asserts them).
      expect(steady.result.decisions.filter((d) => d.kind !== 'Node')).toEqual([]);
      expect(steady.result.requests.tenant.writes).toBe(0);
    }

    // The other tenant's pass copies its own Event, onto its own Pod, and none of ours.
    expect((await pass(other)).result.errors).toEqual([]);
    const theirCopies = await copiesOf(other);
    expect(theirCopies.map((e) => e.metadata.annotations?.[EventBackKeys.HostEventUid])).toContain(
      foreign.metadata.uid,
    );
    expect(theirCopies.every((e) => e.metadata.namespace === other.vns.a)).toBe(true);
    expect(
      theirCopies.find(
        (e) => e.metadata.annotations?.[EventBackKeys.HostEventUid] === mine.metadata.uid,
      ),
    ).toBeUndefined();
  });
});
