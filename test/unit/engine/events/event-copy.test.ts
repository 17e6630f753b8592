/**
 * A host Event as the tenant sees it, pure: which rule an involved object is a copy of, the
 * deterministic tenant Event name, host names in messages rewritten from the reverse mapping
 * only, what a copy follows, and the cheap host-name pre-filter.
 */
import { describe, expect, it } from '@jest/globals';
import {
  addRename,
  followedCopy,
  hostEventDigest,
  lastSeenMs,
  MAX_MESSAGE,
  rewriteMessage,
  ruleFor,
  tenantEventCopy,
  tenantEventName,
  timesSeen,
} from '../../../../lib/engine/events/event-copy.js';
import { EventBackKeys, HostClassKeys, Labels } from '../../../../lib/engine/names/metadata.js';
import { hostName, mayBeHostName } from '../../../../lib/engine/names/naming.js';
import type { KubeObject } from '../../../../lib/ports/index.js';

const POD = { apiVersion: 'v1', kind: 'Pod' };
const INGRESS = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' };
const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const LONG = 'a-very-long-deployment-name-that-surely-needs-hashing-abc123';
const HASHED = hostName(LONG, 'shop', 'dev');

describe('ruleFor', () => {
  it.each([
    ['a Pod', { apiVersion: 'v1', kind: 'Pod' }, POD],
    [
      'an Ingress of another version of the group',
      { apiVersion: 'networking.k8s.io/v1beta1', kind: 'Ingress' },
      INGRESS,
    ],
    [
      'an Ingress of another group',
      { apiVersion: 'extensions.example.com/v1', kind: 'Ingress' },
      undefined,
    ],
    [
      'a ConfigMap (its Events do not come back)',
      { apiVersion: 'v1', kind: 'ConfigMap' },
      undefined,
    ],
    ['a Service the policy does not sync', { apiVersion: 'v1', kind: 'Service' }, undefined],
    ['no kind', {}, undefined],
  ])('%s', (_what, involved, rule) => {
    expect(ruleFor([POD, INGRESS, CM], involved)).toEqual(rule);
  });
});

describe('mayBeHostName', () => {
  it.each([
    ['a plain copy name of the tenant', 'web-x-shop-x-dev', true],
    ['a hashed copy name', HASHED, true],
    ['a plain copy name of another tenant', 'web-x-shop-x-prod', false],
    ['a tenant that only ends like this one', 'web-x-shop-x-predev', false],
    ['a host object of its own', 'ingress-nginx-controller', false],
    ['longer than a host name can be', `${'a'.repeat(60)}-x-dev`, false],
  ])('%s', (_what, name, expected) => {
    expect(mayBeHostName(name, 'dev')).toBe(expected);
  });
  it('rules in every hostName output', () => {
    for (const [n, v] of [
      ['web', 'shop'],
      [LONG, 'shop'],
      ['a-x-b', 'c'],
      ['x', 'y'.repeat(60)],
    ])
      expect(mayBeHostName(hostName(n as string, v as string, 'dev'), 'dev')).toBe(true);
  });
});

describe('tenantEventName', () => {
  it('is the object name and 16 hex characters of the host Event uid, the same every time', () => {
    const name = tenantEventName('web', 'uid-1');
    expect(name).toMatch(/^web\.[0-9a-f]{16}$/);
    expect(tenantEventName('web', 'uid-1')).toBe(name);
    expect(tenantEventName('web', 'uid-2')).not.toBe(name);
  });
  it('stays a valid name for the longest object names', () => {
    const name = tenantEventName(`${'a'.repeat(235)}-${'b'.repeat(17)}`, 'uid-1');
    expect(name.length).toBeLessThanOrEqual(253);
    expect(name).toMatch(/^a+\.[0-9a-f]{16}$/);
  });
});

describe('rewriteMessage', () => {
  const renames = new Map<string, string>();
  addRename(renames, 'tenant-dev', 'web-x-shop-x-dev', {
    virtualNamespace: 'shop',
    virtualName: 'web',
  });
  addRename(renames, 'tenant-dev', HASHED, { virtualNamespace: 'shop', virtualName: LONG });
  addRename(renames, 'tenant-dev', 'data-x-shop-x-dev', {
    virtualNamespace: 'shop',
    virtualName: 'data',
  });
  it.each([
    [
      'namespace/name as the scheduler says it',
      'Successfully assigned tenant-dev/web-x-shop-x-dev to kwok-node-0',
      'Successfully assigned shop/web to kwok-node-0',
    ],
    [
      'a quoted name',
      'persistentvolumeclaim "data-x-shop-x-dev" not found',
      'persistentvolumeclaim "data" not found',
    ],
    [
      'a hashed name',
      `Back-off restarting failed container in pod ${HASHED}.`,
      `Back-off restarting failed container in pod ${LONG}.`,
    ],
    ['a kind/name', 'ensured pod/web-x-shop-x-dev', 'ensured pod/web'],
    [
      'the kubelet’s name_namespace',
      'Back-off restarting failed container web in pod web-x-shop-x-dev_tenant-dev(uid-1)',
      'Back-off restarting failed container web in pod web_shop(uid-1)',
    ],
    [
      'another tenant’s copy and a foreign name stay as they are',
      '0/3 nodes: web-x-shop-x-prod, tenant-dev/db-x-shop-x-dev, web-x-shop-x-devx',
      '0/3 nodes: web-x-shop-x-prod, tenant-dev/db-x-shop-x-dev, web-x-shop-x-devx',
    ],
    [
      'only whole words',
      'xweb-x-shop-x-dev web-x-shop-x-dev.a',
      'xweb-x-shop-x-dev web-x-shop-x-dev.a',
    ],
  ])('%s', (_what, message, expected) => {
    expect(rewriteMessage(message, renames)).toBe(expected);
  });
  it('cuts a message to the events.k8s.io limit', () => {
    const cut = rewriteMessage('m'.repeat(2000), renames);
    expect(cut).toHaveLength(MAX_MESSAGE);
    expect(cut.endsWith('…')).toBe(true);
  });
});

const hostEvent: KubeObject = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: {
    namespace: 'tenant-dev',
    name: 'web-x-shop-x-dev.1',
    uid: 'host-event-uid',
    resourceVersion: '9',
  },
  involvedObject: {
    apiVersion: 'v1',
    kind: 'Pod',
    namespace: 'tenant-dev',
    name: 'web-x-shop-x-dev',
    uid: 'host-pod-uid',
    fieldPath: 'spec.containers{web}',
  },
  type: 'Warning',
  reason: 'BackOff',
  message: 'Back-off restarting failed container web in pod web-x-shop-x-dev_tenant-dev',
  count: 3,
  firstTimestamp: '2030-01-01T00:00:00Z',
  lastTimestamp: '2030-01-01T00:05:00Z',
  source: { component: 'kubelet', host: 'kwok-node-0' },
  related: { kind: 'Node', name: 'kwok-node-0' },
};
const target = {
  rule: POD,
  namespace: 'shop',
  name: 'web',
  uid: 'tenant-pod-uid',
  fieldPath: 'spec.containers{web}',
};

describe('tenantEventCopy', () => {
  it('is about the tenant object, in its namespace, with what it follows and carries, host-only parts left out', () => {
    const copy = tenantEventCopy(hostEvent, target, new Map(), 'dev');
    expect(copy).toEqual({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name: tenantEventName('web', 'host-event-uid'),
        namespace: 'shop',
        labels: {
          [Labels.ManagedBy]: 'tenantplane',
          [Labels.Tenant]: 'dev',
          [HostClassKeys.FromHost]: 'true',
        },
        annotations: {
          [EventBackKeys.HostEventUid]: 'host-event-uid',
          [EventBackKeys.HostEventDigest]: hostEventDigest(hostEvent),
        },
      },
      involvedObject: {
        apiVersion: 'v1',
        kind: 'Pod',
        namespace: 'shop',
        name: 'web',
        uid: 'tenant-pod-uid',
        fieldPath: 'spec.containers{web}',
      },
      type: 'Warning',
      reason: 'BackOff',
      message: hostEvent.message,
      count: 3,
      firstTimestamp: '2030-01-01T00:00:00Z',
      lastTimestamp: '2030-01-01T00:05:00Z',
      source: { component: 'kubelet', host: 'kwok-node-0' },
    });
  });

  it('a follow-up keeps the copy’s metadata and involved object and takes the new count and times', () => {
    const observed = { ...tenantEventCopy(hostEvent, target, new Map(), 'dev') };
    observed.metadata = { ...observed.metadata, resourceVersion: '41', uid: 'tenant-event-uid' };
    const again = { ...hostEvent, count: 4, lastTimestamp: '2030-01-01T00:06:00Z' };
    const body = followedCopy(observed, again, new Map(), 'dev');
    expect(body.metadata).toMatchObject({
      resourceVersion: '41',
      uid: 'tenant-event-uid',
      name: observed.metadata.name,
    });
    expect(body.metadata.annotations?.[EventBackKeys.HostEventDigest]).toBe(hostEventDigest(again));
    expect(body).toMatchObject({
      count: 4,
      lastTimestamp: '2030-01-01T00:06:00Z',
      involvedObject: observed.involvedObject,
    });
  });
});

describe('what a copy follows', () => {
  it.each([
    ['the count', { count: 4 }, true],
    ['the last time', { lastTimestamp: '2030-01-01T00:09:00Z' }, true],
    ['the series', { series: { count: 2, lastObservedTime: '2030-01-01T00:09:00.000000Z' } }, true],
    ['the message', { message: 'other' }, true],
    [
      'the host’s resourceVersion only',
      { metadata: { ...hostEvent.metadata, resourceVersion: '10' } },
      false,
    ],
    ['who reported it only', { source: { component: 'other' } }, false],
  ])('%s', (_what, change, differs) => {
    const changed = hostEventDigest({ ...hostEvent, ...change }) !== hostEventDigest(hostEvent);
    expect(changed).toBe(differs);
  });
  it('counts and times of old and new style Events', () => {
    expect(timesSeen(hostEvent)).toBe(3);
    expect(timesSeen({ ...hostEvent, count: undefined, series: { count: 7 } })).toBe(7);
    expect(timesSeen({ ...hostEvent, count: undefined })).toBe(1);
    expect(lastSeenMs(hostEvent)).toBe(Date.parse('2030-01-01T00:05:00Z'));
    expect(
      lastSeenMs({ ...hostEvent, lastTimestamp: null, eventTime: '2030-01-01T00:07:00.000000Z' }),
    ).toBe(Date.parse('2030-01-01T00:07:00Z'));
  });
});
