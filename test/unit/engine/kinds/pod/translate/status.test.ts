/** The status back of a Pod: the tenant Pod shows its host copy's status, and only what changed. */
import { describe, expect, it } from '@jest/globals';
import {
  podStatusPatch,
  podStatusSettled,
} from '../../../../../../lib/engine/kinds/pod/translate/status.js';
import type { KubeObject } from '../../../../../../lib/ports/index.js';
import { tenantObject } from '../../support.js';

type Fields = Record<string, unknown>;
const SPEC: Fields = {
  containers: [{ name: 'web', image: 'nginx:1' }],
  initContainers: [{ name: 'setup', image: 'busybox' }],
};
const tenantPod = (status: Fields, spec: Fields = SPEC): KubeObject =>
  tenantObject('v1', 'Pod', { spec, status });

const READY = { type: 'Ready', status: 'True', lastTransitionTime: '2026-12-01T10:00:05Z' };
const WEB = { name: 'web', ready: true, restartCount: 0, state: { running: {} } };
const SETUP = { name: 'setup', ready: false, restartCount: 0, state: { terminated: {} } };
const RUNNING: Fields = {
  phase: 'Running',
  conditions: [READY],
  podIP: '10.244.0.7',
  podIPs: [{ ip: '10.244.0.7' }],
  hostIP: '172.18.0.3',
  hostIPs: [{ ip: '172.18.0.3' }],
  startTime: '2026-12-01T10:00:00Z',
  containerStatuses: [WEB],
  initContainerStatuses: [SETUP],
  qosClass: 'Guaranteed',
};
/** What the tenant shows once it has RUNNING written back (its own qosClass kept). */
const SHOWN: Fields = { ...RUNNING, qosClass: 'BestEffort' };

describe('podStatusPatch', () => {
  const cases: Array<{
    name: string;
    hostStatus: unknown;
    tenantPod: KubeObject;
    expected: Fields | undefined;
  }> = [
    {
      name: 'a Pending tenant Pod whose host copy runs gets every field but qosClass',
      hostStatus: RUNNING,
      tenantPod: tenantPod({ phase: 'Pending', qosClass: 'BestEffort' }),
      expected: {
        phase: 'Running',
        conditions: [READY],
        podIP: '10.244.0.7',
        podIPs: [{ ip: '10.244.0.7' }],
        hostIP: '172.18.0.3',
        hostIPs: [{ ip: '172.18.0.3' }],
        startTime: '2026-12-01T10:00:00Z',
        containerStatuses: [WEB],
        initContainerStatuses: [SETUP],
      },
    },
    {
      name: 'the tenant already shows it: nothing to write',
      hostStatus: RUNNING,
      tenantPod: tenantPod(SHOWN),
      expected: undefined,
    },
    {
      name: 'only what changed is written',
      hostStatus: { ...RUNNING, containerStatuses: [{ ...WEB, restartCount: 1 }] },
      tenantPod: tenantPod(SHOWN),
      expected: { containerStatuses: [{ ...WEB, restartCount: 1 }] },
    },
    {
      name: 'a container the host added is not the tenant’s',
      hostStatus: { ...RUNNING, containerStatuses: [WEB, { ...WEB, name: 'host-sidecar' }] },
      tenantPod: tenantPod(SHOWN),
      expected: undefined,
    },
    {
      name: 'ephemeral containers of the tenant are kept, others dropped',
      hostStatus: {
        ...RUNNING,
        ephemeralContainerStatuses: [{ name: 'debug' }, { name: 'host-debug' }],
      },
      tenantPod: tenantPod(SHOWN, { ...SPEC, ephemeralContainers: [{ name: 'debug' }] }),
      expected: { ephemeralContainerStatuses: [{ name: 'debug' }] },
    },
    {
      name: 'nominatedNodeName and observedGeneration of the host are dropped',
      hostStatus: {
        ...RUNNING,
        nominatedNodeName: 'host-node-1',
        observedGeneration: 4,
        conditions: [{ ...READY, observedGeneration: 4 }],
      },
      tenantPod: tenantPod(SHOWN),
      expected: undefined,
    },
    {
      name: 'a field the host no longer has is removed (null in the merge patch)',
      hostStatus: { ...RUNNING, message: undefined },
      tenantPod: tenantPod({ ...SHOWN, message: 'Evicted' }),
      expected: { message: null },
    },
    {
      name: 'fields the status back does not own are left to the tenant',
      hostStatus: RUNNING,
      tenantPod: tenantPod({ ...SHOWN, resize: 'Proposed' }),
      expected: undefined,
    },
    {
      name: 'a host failure shows with its reason and message',
      hostStatus: { ...RUNNING, phase: 'Failed', reason: 'Evicted', message: 'low on memory' },
      tenantPod: tenantPod(SHOWN),
      expected: { phase: 'Failed', reason: 'Evicted', message: 'low on memory' },
    },
    {
      name: 'a host copy without a status (just created): nothing to write',
      hostStatus: undefined,
      tenantPod: tenantPod({ phase: 'Pending' }),
      expected: undefined,
    },
    {
      name: 'a tenant Pod without a status gets the host’s',
      hostStatus: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True' }] },
      tenantPod: tenantObject('v1', 'Pod', { spec: SPEC }),
      expected: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True' }] },
    },
  ];

  it.each(cases)('$name', ({ hostStatus, tenantPod: pod, expected }) => {
    expect(podStatusPatch(hostStatus, pod)).toEqual(expected);
  });

  it('never mutates its inputs', () => {
    const host = structuredClone(RUNNING);
    const pod = tenantPod({ phase: 'Pending' });
    const before = structuredClone(pod);
    podStatusPatch(host, pod);
    expect(host).toEqual(RUNNING);
    expect(pod).toEqual(before);
  });
});

describe('podStatusSettled', () => {
  it.each([
    ['Ready', RUNNING, true],
    [
      'Running, not Ready',
      { phase: 'Running', conditions: [{ ...READY, status: 'False' }] },
      false,
    ],
    ['Pending', { phase: 'Pending' }, false],
    ['Succeeded', { phase: 'Succeeded' }, true],
    ['Failed', { phase: 'Failed' }, true],
    ['no status yet', undefined, false],
  ])('%s: %s', (_name, status, settled) => {
    expect(podStatusSettled(status)).toBe(settled);
  });
});
