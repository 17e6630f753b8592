import { describe, expect, it } from '@jest/globals';
import {
  type GoneHostObject,
  gatherExplanation,
  isGone,
  podStatusText,
} from '../../../lib/cli/commands/explain/gather.js';
import { explainOutput } from '../../../lib/cli/commands/explain/render.js';
import { CommandError } from '../../../lib/cli/errors.js';
import {
  reverseMappingAnnotations,
  reverseMappingLabels,
} from '../../../lib/engine/names/reverse-mapping.js';
import { ClusterError, type KubeObject, TENANT_CLUSTER } from '../../../lib/ports/index.js';
import { MemoryCluster } from '../fakes/memory-cluster.js';

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const hostRef = { namespace: 'tenant-dev', name: 'app-x-default-x-dev' };
const now = Date.parse('2030-01-01T12:00:00Z');

function hostCopy(extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return {
    ...CONFIG_MAP,
    metadata: {
      ...hostRef,
      uid: 'host-uid',
      labels: reverseMappingLabels('dev', 'ConfigMap', 'default'),
      annotations: reverseMappingAnnotations('default', 'app', 'tenant-uid'),
      ...extra,
    },
  };
}

function tenantCluster(spec: unknown = { hostNamespace: 'tenant-dev' }): KubeObject {
  return { ...TENANT_CLUSTER, metadata: { name: 'dev' }, spec };
}

function event(message: string, lastTimestamp: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name: `e-${lastTimestamp}`,
      namespace: 'default',
      annotations: { 'tenantplane.io/host-ref': `${hostRef.namespace}/${hostRef.name}` },
    },
    involvedObject: { ...TENANT_CLUSTER, name: 'dev' },
    type: 'Normal',
    reason: 'Delete',
    message,
    lastTimestamp,
  };
}

function tenantWithSource(uid = 'tenant-uid'): MemoryCluster {
  return new MemoryCluster('tenant').seed({
    ...CONFIG_MAP,
    metadata: { namespace: 'default', name: 'app', uid },
  });
}

describe('gatherExplanation', () => {
  it('finds the source, the rule and the Decisions of a managed object', async () => {
    const host = new MemoryCluster('host').seed(
      hostCopy(),
      tenantCluster(),
      event('created', '2030-01-01T11:00:00Z'),
    );
    const found = await gatherExplanation(
      host,
      async () => tenantWithSource(),
      CONFIG_MAP,
      hostRef,
    );
    expect(isGone(found)).toBe(false);
    expect(found).toMatchObject({
      host: { ...CONFIG_MAP, ...hostRef, uid: 'host-uid' },
      managed: true,
      source: { tenant: 'dev', virtualName: 'app', exists: true, currentUid: 'tenant-uid' },
      rule: { index: 0, excludesSource: false },
      hostNamespaceOfPolicy: 'tenant-dev',
      decisions: [expect.objectContaining({ message: 'created' })],
    });
  });

  it('notes a recreated source and a TenantCluster that is gone', async () => {
    const host = new MemoryCluster('host').seed(hostCopy());
    const found = await gatherExplanation(
      host,
      async () => tenantWithSource('new-uid'),
      CONFIG_MAP,
      hostRef,
    );
    expect(found).toMatchObject({
      source: { exists: true, uidChanged: true, currentUid: 'new-uid' },
      ruleProblem: expect.stringContaining('TenantCluster "dev" no longer exists'),
    });
  });

  it('never opens the tenant cluster for a foreign object', async () => {
    const host = new MemoryCluster('host').seed(hostCopy({ labels: {}, annotations: {} }));
    const found = await gatherExplanation(
      host,
      () => Promise.reject(new Error('opened the tenant cluster')),
      CONFIG_MAP,
      hostRef,
    );
    expect(found).toEqual({
      host: { ...CONFIG_MAP, ...hostRef, uid: 'host-uid' },
      managed: false,
      notManagedReason: 'it has no app.kubernetes.io/managed-by=tenantplane label',
      decisions: [],
    });
  });

  it('answers a missing object with the Decisions still recorded about it', async () => {
    const host = new MemoryCluster('host').seed(
      event('deleted: source gone', '2030-01-01T11:00:00Z'),
    );
    const found = await gatherExplanation(
      host,
      () => Promise.reject(new Error('opened the tenant cluster')),
      CONFIG_MAP,
      hostRef,
    );
    expect(isGone(found)).toBe(true);
    expect(found).toEqual({
      host: { ...CONFIG_MAP, ...hostRef },
      exists: false,
      decisions: [expect.objectContaining({ message: 'deleted: source gone' })],
    });
  });

  it('says when the host cluster is unreachable', async () => {
    const host = new MemoryCluster('host').failWhen(
      () => new ClusterError('Transport', 'connect ECONNREFUSED'),
    );
    const gathering = gatherExplanation(host, async () => tenantWithSource(), CONFIG_MAP, hostRef);
    await expect(gathering).rejects.toThrow(CommandError);
    await expect(gathering).rejects.toThrow(
      'the host cluster is unreachable: connect ECONNREFUSED',
    );
  });
});

describe('explainOutput', () => {
  const gone: GoneHostObject = {
    host: { ...CONFIG_MAP, ...hostRef },
    exists: false,
    decisions: [
      {
        type: 'Normal',
        reason: 'Delete',
        message: 'deleted',
        count: 1,
        lastSeen: '2030-01-01T11:59:00Z',
        annotations: {},
      },
    ],
  };

  it('prints the Decisions about a missing object, as text or one JSON record', () => {
    const text = explainOutput(gone, 'table', now);
    expect(text).toMatch(
      /^Latest decisions about ConfigMap tenant-dev\/app-x-default-x-dev \(Events on TenantClusters, latest first\):\nLAST SEEN/,
    );
    expect(text).toMatch(/60s\s+Normal\s+Delete\s+1\s+deleted\n$/);
    expect(JSON.parse(explainOutput(gone, 'json', now))).toEqual(gone);
  });

  it('prints nothing for a missing object without recorded Decisions', () => {
    expect(explainOutput({ ...gone, decisions: [] }, 'table', now)).toBe('');
    expect(explainOutput({ ...gone, decisions: [] }, 'json', now)).toBe('');
  });

  it('prints an explanation as one JSON line', () => {
    const foreign = {
      host: { ...CONFIG_MAP, ...hostRef },
      managed: false,
      notManagedReason: 'it has no app.kubernetes.io/managed-by=tenantplane label',
      decisions: [],
    };
    const out = explainOutput(foreign, 'json', now);
    expect(out.endsWith('\n')).toBe(true);
    expect(out.trimEnd().includes('\n')).toBe(false);
    expect(JSON.parse(out)).toEqual(foreign);
  });
});

describe('podStatusText: what explain shows of a host Pod’s tenant Pod', () => {
  const pod = (
    status: Record<string, unknown>,
    nodeName?: string,
    deleting = false,
  ): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web',
      namespace: 'shop',
      ...(deleting ? { deletionTimestamp: '2030-01-01T00:00:00Z' } : {}),
    },
    spec: nodeName ? { nodeName } : {},
    status,
  });

  it.each([
    [
      'running, bound and ready',
      pod(
        { phase: 'Running', podIP: '10.0.0.5', conditions: [{ type: 'Ready', status: 'True' }] },
        'kwok-node-0',
      ),
      'Running, IP 10.0.0.5, node kwok-node-0, Ready',
    ],
    ['pending, nowhere yet', pod({ phase: 'Pending' }), 'Pending, no IP, no node, not Ready'],
    [
      'terminating',
      pod({ phase: 'Running', podIP: '10.0.0.5' }, 'n', true),
      'Running (terminating), IP 10.0.0.5, node n, not Ready',
    ],
    ['no status at all', pod({}), undefined],
  ])('%s', (_name, tenantPod, text) => {
    expect(podStatusText(tenantPod)).toBe(text);
  });
});
