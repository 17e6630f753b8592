/**
 * Finding 11 of the isolation review, on the real clusters: a pass that lists the tenant's host
 * Pods reads of the host only the nodes those Pods run on, a GET each, never a LIST of every host
 * node (what a pass reads of the host grows with the tenant's Pods, not with the host's size, and
 * the tenant learns nothing of the nodes its Pods do not run on). The host has more kwok nodes
 * than the one the tenant's Pod runs on, so a LIST would show.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { ClusterApi, KindRef, KubeObject } from '../../../lib/ports/index.js';
import { createTenant, pass, type Tenant, tenantObject, useApis, waitFor } from './support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const NODE: KindRef = { apiVersion: 'v1', kind: 'Node' };

/** What a pass asked the host about Nodes: the LISTs and the names it read by GET. */
interface NodeReads {
  lists: number;
  gets: string[];
}

/** `api` with its Node reads recorded in `reads` (every other call passes through as it is). */
function recordingNodeReads<T extends ClusterApi>(api: T, reads: NodeReads): T {
  return new Proxy(api, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (property === 'list') {
        return (kind: KindRef, ...rest: unknown[]) => {
          if (kind.kind === NODE.kind) reads.lists += 1;
          return (value as (...args: unknown[]) => unknown).call(target, kind, ...rest);
        };
      }
      if (property === 'get') {
        return (kind: KindRef, namespace: string | undefined, name: string) => {
          if (kind.kind === NODE.kind) reads.gets.push(name);
          return (value as (...args: unknown[]) => unknown).call(target, kind, namespace, name);
        };
      }
      return value.bind(target);
    },
  });
}

describe('host Nodes are read by name only', () => {
  let tenant: Tenant;

  afterAll(async () => {
    const { tenantApi } = apis();
    const pod = tenant ? await tenantApi.get(POD, tenant.vns.a, 'reader') : undefined;
    if (pod?.metadata.uid) {
      await tenantApi
        .delete(POD, tenant.vns.a, 'reader', { uid: pod.metadata.uid }, { gracePeriodSeconds: 0 })
        .catch(() => undefined);
    }
  });

  it('a pass GETs the nodes its Pods run on and never LISTs the host nodes', async () => {
    tenant = await createTenant(apis(), 'iso-nodes', { toHost: [POD] });
    const { tenantApi, hostApi } = apis();
    const hostNodes = (await hostApi.list(NODE)).items.map((n) => n.metadata.name);
    // More host nodes than the tenant's Pod can run on: a LIST would read the others too.
    expect(hostNodes.length).toBeGreaterThan(1);
    await tenantApi.create(
      tenantObject(tenant, POD, tenant.vns.a, 'reader', {
        spec: { containers: [{ name: 'web', image: 'nginx:1' }] },
      }),
    );
    const first = await pass(tenant);
    expect(first.result.errors).toEqual([]);
    const copy = hostName('reader', tenant.vns.a, tenant.name);
    const node = await waitFor(
      'the host scheduler to place the copy',
      async () => {
        const pod = await hostApi.get(POD, tenant.hostNamespace, copy);
        const name = (pod?.spec as { nodeName?: string } | undefined)?.nodeName;
        return name === undefined || name === '' ? undefined : name;
      },
      60_000,
    );
    const reads: NodeReads = { lists: 0, gets: [] };
    const recorded = { ...tenant, hostApi: recordingNodeReads(tenant.hostApi, reads) };
    const full = await pass(recorded, { full: true });
    expect(full.result.errors).toEqual([]);
    expect(reads.lists).toBe(0);
    expect(new Set(reads.gets)).toEqual(new Set([node]));
    // The tenant sees a Node for that node only, never one for the host's others.
    const tenantNodes: KubeObject[] = (await tenantApi.list(NODE)).items;
    const ours = tenantNodes.map((n) => n.metadata.name).filter((n) => hostNodes.includes(n));
    expect(ours).toContain(node);
  });
});
