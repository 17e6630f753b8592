/**
 * The EndpointSlice kind's turn: the tenant's own Pod IPs read from the host, once a pass and only
 * when a slice names an address outside the policy's blocks; a failed read refuses (fail closed);
 * a slice whose Pod ended is refused and its copy collected at the next pass.
 */
import { describe, expect, it } from '@jest/globals';
import { InSyncMemo, runPass } from '../../../../../lib/engine/index.js';
import { ownPodIps } from '../../../../../lib/engine/kinds/endpoint-slice/own-pod-ips.js';
import { KubernetesKeys } from '../../../../../lib/engine/names/metadata.js';
import { ClusterError, type KubeObject } from '../../../../../lib/ports/index.js';
import { clusters, HOST_NS, hn, hostCopyOf } from '../../support.js';

const POD = { apiVersion: 'v1', kind: 'Pod' };
const SERVICE = { apiVersion: 'v1', kind: 'Service' };
const SLICE = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice' };

function pod(name: string, status?: Record<string, unknown>, hostNetwork = false): KubeObject {
  return {
    ...POD,
    metadata: { namespace: 'shop', name, uid: `uid-${name}` },
    spec: {
      automountServiceAccountToken: false,
      ...(hostNetwork ? { hostNetwork } : {}),
      containers: [{ name: 'c', image: 'nginx:1' }],
    },
    ...(status ? { status } : {}),
  };
}

/** The host copy of tenant Pod `source` (of `tenant`) as its kubelet reports it. */
function copyOf(source: KubeObject, tenant = 'dev'): KubeObject {
  return { ...hostCopyOf(source, tenant), status: source.status };
}

describe('ownPodIps', () => {
  const running = (ip: string, more: Record<string, unknown> = {}) => ({
    phase: 'Running',
    podIP: ip,
    ...more,
  });
  it.each([
    {
      name: 'a running copy',
      pods: [copyOf(pod('a', running('10.0.0.1')))],
      ips: ['10.0.0.1'],
    },
    {
      name: 'both families, IPv6 spelt one way',
      pods: [
        copyOf(pod('a', running('10.0.0.1', { podIPs: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }] }))),
      ],
      ips: ['10.0.0.1', 'fd00:0:0:0:0:0:0:1'],
    },
    {
      name: 'a pending copy without an address',
      pods: [copyOf(pod('a', { phase: 'Pending' }))],
      ips: [],
    },
    {
      name: 'an ended copy (its address may be another Pod’s)',
      pods: [
        copyOf(pod('a', running('10.0.0.1', { phase: 'Succeeded' }))),
        copyOf(pod('b', running('10.0.0.2', { phase: 'Failed' }))),
      ],
      ips: [],
    },
    {
      name: 'a copy on the host network (its address is the node’s)',
      pods: [copyOf(pod('a', running('172.18.0.2'), true))],
      ips: [],
    },
    {
      name: 'another tenant’s copy, and a Pod that is no copy',
      pods: [copyOf(pod('a', running('10.0.0.1')), 'other'), pod('b', running('10.0.0.2'))],
      ips: [],
    },
  ])('$name', ({ pods, ips }) => {
    expect([...ownPodIps(pods, 'dev')].sort()).toEqual(ips);
  });
});

const service = {
  ...SERVICE,
  metadata: { namespace: 'shop', name: 'db', uid: 'uid-svc' },
  spec: { ports: [{ port: 80 }] },
};
function slice(name: string, addresses: string[]): KubeObject {
  return {
    ...SLICE,
    metadata: {
      namespace: 'shop',
      name,
      uid: `uid-${name}`,
      labels: { [KubernetesKeys.ServiceName]: 'db' },
    },
    addressType: 'IPv4',
    ports: [{ port: 80 }],
    endpoints: [{ addresses }],
  };
}

/** A tenant with a running Pod `web` at 10.244.0.7 and the given slices. */
async function world(
  slices: KubeObject[],
  toHost = [POD, SERVICE, SLICE],
  cidrs?: string[],
  memo?: InSyncMemo,
) {
  const spec = {
    toHost,
    ...(cidrs ? { workloads: { endpoints: { cidrs } } } : {}),
  };
  const { tenantApi, hostApi } = clusters([pod('web'), service, ...slices], [], spec);
  // With a memo: a warm process's full passes, which compare only what changed.
  const run = () =>
    runPass({
      tenant: 'dev',
      tenantApi,
      hostApi,
      ...(memo ? { memo, path: 'full' as const } : {}),
    });
  await run();
  const copy = hostApi.peek(POD, HOST_NS, hn('shop', 'web'));
  if (copy) hostApi.replace({ ...copy, status: { phase: 'Running', podIP: '10.244.0.7' } });
  return { tenantApi, hostApi, run };
}

const podLists = (hostApi: Awaited<ReturnType<typeof world>>['hostApi']) =>
  hostApi.callsOf('list').filter((call) => call.kind === 'Pod' && call.namespace === HOST_NS);
const skips = (result: Awaited<ReturnType<Awaited<ReturnType<typeof world>>['run']>>) =>
  result.decisions
    .filter((d) => d.action === 'Skip' && d.kind === 'EndpointSlice')
    .map((d) => `${d.tenantRef.name}: ${d.reason}`);

describe('the EndpointSlice turn, pass after pass', () => {
  it('copies a slice of the tenant’s own Pod, refuses one naming another address', async () => {
    const { hostApi, run } = await world([
      slice('own', ['10.244.0.7']),
      slice('theirs', ['10.244.9.9']),
    ]);
    const before = podLists(hostApi).length;
    const result = await run();
    expect(skips(result)).toEqual([
      expect.stringMatching(/^theirs: .*"10\.244\.9\.9" is neither one of this tenant's Pod IPs/),
    ]);
    expect(hostApi.peek(SLICE, HOST_NS, hn('shop', 'own'))).toBeDefined();
    expect(hostApi.peek(SLICE, HOST_NS, hn('shop', 'theirs'))).toBeUndefined();
    // One label-selected LIST for the slices (the Pod kind's own reads come besides).
    const lists = podLists(hostApi).slice(before);
    expect(
      lists.some((call) => call.options?.labelSelector?.includes('tenantplane.io/kind=Pod')),
    ).toBe(true);
  });

  it('reads no host Pod for slices inside the policy’s blocks', async () => {
    const { hostApi, run } = await world(
      [slice('ext', ['192.0.2.1'])],
      [SERVICE, SLICE],
      ['192.0.2.0/24'],
    );
    const result = await run();
    expect(skips(result)).toEqual([]);
    expect(hostApi.peek(SLICE, HOST_NS, hn('shop', 'ext'))).toBeDefined();
    expect(podLists(hostApi)).toEqual([]);
  });

  it('a tenant that syncs no Pods has none on the host: nothing read, every other address refused', async () => {
    const { hostApi, run } = await world([slice('own', ['10.244.0.7'])], [SERVICE, SLICE]);
    expect(skips(await run())).toEqual([expect.stringMatching(/^own: .*is neither one/)]);
    expect(podLists(hostApi)).toEqual([]);
  });

  it('a failed read keeps the kind as it is: no Skip, no delete, an error of the pass; the next pass converges', async () => {
    const { hostApi, run } = await world([slice('own', ['10.244.0.7'])]);
    expect(skips(await run())).toEqual([]);
    const copy = hostApi.peek(SLICE, HOST_NS, hn('shop', 'own'));
    expect(copy).toBeDefined();
    let failing = true;
    hostApi.failWhen((call) =>
      failing &&
      call.method === 'list' &&
      call.kind === 'Pod' &&
      call.options?.labelSelector !== undefined
        ? new ClusterError('Forbidden', 'pods is forbidden', { status: 403 })
        : undefined,
    );
    const failed = await run();
    expect(skips(failed)).toEqual([]);
    expect(failed.decisions.filter((d) => d.action === 'Delete')).toEqual([]);
    expect(hostApi.peek(SLICE, HOST_NS, hn('shop', 'own'))?.metadata.uid).toBe(copy?.metadata.uid);
    expect(
      failed.errors.some((e) => e.kind === 'Pod' && /Forbidden|forbidden/.test(e.message)),
    ).toBe(true);
    failing = false;
    const next = await run();
    expect(next.errors).toEqual([]);
    expect(skips(next)).toEqual([]);
  });

  it.each([
    ['keeps the kind on full passes', undefined],
    ['never answers from the in-sync memo', new InSyncMemo()],
  ])('%s, so a slice whose Pod ended is refused and its copy collected', async (_, memo) => {
    const { hostApi, run } = await world(
      [slice('own', ['10.244.0.7'])],
      undefined,
      undefined,
      memo,
    );
    expect(skips(await run())).toEqual([]);
    expect(hostApi.peek(SLICE, HOST_NS, hn('shop', 'own'))).toBeDefined();
    const steady = await run();
    expect(steady.requests.host.writes).toBe(0);
    // The Pod ended on the host: its address may be another tenant's by now.
    const copy = hostApi.peek(POD, HOST_NS, hn('shop', 'web')) as KubeObject;
    hostApi.replace({ ...copy, status: { phase: 'Failed', podIP: '10.244.0.7' } });
    const after = await run();
    expect(skips(after)).toEqual([expect.stringMatching(/^own: .*"10\.244\.0\.7" is neither/)]);
    expect(hostApi.peek(SLICE, HOST_NS, hn('shop', 'own'))).toBeUndefined();
  });
});
