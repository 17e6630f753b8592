/**
 * The downward API of a host Pod reads the tenant Pod's identity, labels and annotations: whole
 * maps from engine annotations in the kubelet's own format, reserved keys from their carried keys.
 */
import { describe, expect, it } from '@jest/globals';
import {
  downwardMap,
  goQuote,
  tenantFieldRefs,
} from '../../../../../../lib/engine/kinds/pod/translate/downward.js';
import { translate, writeTraits } from '../../../../../../lib/engine/kinds/registry.js';
import { Annotations } from '../../../../../../lib/engine/names/metadata.js';
import { planUpdate } from '../../../../../../lib/engine/object/write-record.js';
import { compileKeyExclusions } from '../../../../../../lib/engine/policy/key-exclusions.js';
import type { KubeObject } from '../../../../../../lib/ports/index.js';
import { HOST_NAMESPACE, hostOf, TENANT, tenantObject } from '../../support.js';

/** How Pod copies are written (the Pod's module). */
const POD_WRITES = writeTraits({ apiVersion: 'v1', kind: 'Pod' });

type Spec = Record<string, unknown>;
const CARRIED_HELM = 'app.kubernetes.io.carried.tenantplane.io/managed-by';
const annotation = (key: string) => `metadata.annotations['${key}']`;
const LABELS = { app: 'web', 'app.kubernetes.io/managed-by': 'Helm' };
const ANNOTATIONS = { note: 'say "hi"\nbye', 'tenantplane.io/owner': 'team-a' };

/** A tenant Pod whose env and a downward API volume read `fieldPaths`. */
function pod(fieldPaths: string[], metadata: Partial<KubeObject['metadata']> = {}): KubeObject {
  const items = fieldPaths.map((fieldPath, i) => ({ path: `f${i}`, fieldRef: { fieldPath } }));
  return tenantObject(
    'v1',
    'Pod',
    {
      spec: {
        automountServiceAccountToken: false,
        containers: [
          {
            name: 'web',
            image: 'nginx:1',
            // Whole maps are volume-only in the API: env reads single keys.
            env: fieldPaths
              .filter((p) => p.includes('['))
              .map((fieldPath, i) => ({ name: `E${i}`, valueFrom: { fieldRef: { fieldPath } } })),
          },
        ],
        volumes: [
          { name: 'info', downwardAPI: { items } },
          { name: 'bundle', projected: { sources: [{ downwardAPI: { items } }] } },
        ],
      },
    },
    { labels: LABELS, annotations: ANNOTATIONS, ...metadata },
  );
}

/** Every fieldPath a host Pod reads, env first, then the volume, then the projected volume. */
function fieldPathsOf(host: KubeObject): string[] {
  const spec = host.spec as {
    containers: Array<{ env?: Array<{ valueFrom: { fieldRef: { fieldPath: string } } }> }>;
    volumes: Array<{
      downwardAPI?: { items: Array<{ fieldRef: { fieldPath: string } }> };
      projected?: {
        sources: Array<{ downwardAPI: { items: Array<{ fieldRef: { fieldPath: string } }> } }>;
      };
    }>;
  };
  const env = (spec.containers[0]?.env ?? []).map((e) => e.valueFrom.fieldRef.fieldPath);
  const volume = spec.volumes[0]?.downwardAPI?.items.map((i) => i.fieldRef.fieldPath) ?? [];
  const projected =
    spec.volumes[1]?.projected?.sources[0]?.downwardAPI.items.map((i) => i.fieldRef.fieldPath) ??
    [];
  return [...env, ...volume, ...projected];
}

describe('Pod downward API: tenant values', () => {
  const cases = [
    {
      name: 'whole label map: read from the annotation holding the tenant’s, in the kubelet’s format',
      fieldPaths: ['metadata.labels'],
      expectedPaths: [annotation(Annotations.TenantLabels)],
      expectedAnnotations: {
        [Annotations.TenantLabels]: 'app="web"\napp.kubernetes.io/managed-by="Helm"',
      },
    },
    {
      name: 'whole annotation map: the tenant’s, reserved keys and quoting included',
      fieldPaths: ['metadata.annotations'],
      expectedPaths: [annotation(Annotations.TenantAnnotations)],
      expectedAnnotations: {
        [Annotations.TenantAnnotations]: 'note="say \\"hi\\"\\nbye"\ntenantplane.io/owner="team-a"',
      },
    },
    {
      name: 'one label under a reserved key: its carried key; a plain one as it is',
      fieldPaths: ["metadata.labels['app.kubernetes.io/managed-by']", "metadata.labels['app']"],
      expectedPaths: [`metadata.labels['${CARRIED_HELM}']`, "metadata.labels['app']"],
      expectedAnnotations: {},
    },
    {
      name: 'one annotation under a reserved key: carried, with the tenant’s value',
      fieldPaths: ["metadata.annotations['tenantplane.io/owner']", "metadata.annotations['note']"],
      expectedPaths: [
        annotation('tenantplane.io.carried.tenantplane.io/owner'),
        "metadata.annotations['note']",
      ],
      expectedAnnotations: { 'tenantplane.io.carried.tenantplane.io/owner': 'team-a' },
    },
    {
      name: 'a reserved annotation the tenant Pod lacks: carried key, no value (empty, as in the tenant)',
      fieldPaths: ["metadata.annotations['tenantplane.io/missing']"],
      expectedPaths: [annotation('tenantplane.io.carried.tenantplane.io/missing')],
      expectedAnnotations: {},
    },
    {
      name: 'identity: name, namespace, uid and service account as before; status fields kept',
      fieldPaths: ['metadata.name', 'metadata.uid', 'status.podIP', 'spec.nodeName'],
      expectedPaths: [
        annotation(Annotations.VirtualName),
        annotation(Annotations.VirtualUid),
        'status.podIP',
        'spec.nodeName',
      ],
      expectedAnnotations: {},
    },
  ];

  it.each(cases)('$name', ({ fieldPaths, expectedPaths, expectedAnnotations }) => {
    const host = hostOf(pod(fieldPaths));
    const single = expectedPaths.filter((_, i) => fieldPaths[i]?.includes('['));
    expect(fieldPathsOf(host)).toEqual([...single, ...expectedPaths, ...expectedPaths]);
    const engine = [Annotations.TenantLabels, Annotations.TenantAnnotations];
    const added = Object.fromEntries(
      Object.entries(host.metadata.annotations ?? {}).filter(
        ([key]) => engine.includes(key as never) || key.includes('.carried.'),
      ),
    );
    expect(added).toEqual(expectedAnnotations);
  });

  it('the host Pod carries no map annotation when nothing reads a whole map', () => {
    const annotations = hostOf(pod(['metadata.name'])).metadata.annotations ?? {};
    expect(annotations[Annotations.TenantLabels]).toBeUndefined();
    expect(annotations[Annotations.TenantAnnotations]).toBeUndefined();
  });

  it('a tenant cannot spoof the map annotation: its own is dropped, the engine’s written', () => {
    const spoof = { ...ANNOTATIONS, [Annotations.TenantLabels]: 'admin="true"' };
    const host = hostOf(pod(['metadata.labels'], { annotations: spoof }));
    expect(host.metadata.annotations?.[Annotations.TenantLabels]).toBe(
      'app="web"\napp.kubernetes.io/managed-by="Helm"',
    );
  });

  it('keys the policy keeps off the host stay off the maps too', () => {
    const source = pod(['metadata.labels', 'metadata.annotations']);
    const result = translate(source, {
      tenant: TENANT,
      hostNamespace: HOST_NAMESPACE,
      excludeKeys: compileKeyExclusions({ labelKeys: ['app'], annotationKeys: ['note'] }),
    });
    if (!('host' in result)) throw new Error(result.refused);
    expect(result.host.metadata.annotations).toMatchObject({
      [Annotations.TenantLabels]: 'app.kubernetes.io/managed-by="Helm"',
      [Annotations.TenantAnnotations]: 'tenantplane.io/owner="team-a"',
    });
  });

  it('is idempotent: the host spec rewritten again is the same', () => {
    const host = hostOf(
      pod([
        'metadata.labels',
        'metadata.annotations',
        'metadata.name',
        "metadata.labels['app.kubernetes.io/managed-by']",
        "metadata.annotations['tenantplane.io/owner']",
      ]),
    );
    const spec = structuredClone(host.spec) as Spec;
    tenantFieldRefs(spec, host.metadata);
    expect(spec).toEqual(host.spec);
  });
});

describe('Pod downward API: updates of labels and annotations', () => {
  /** The host's copy of `desired` as the host keeps it. */
  const stored = (desired: KubeObject): KubeObject => ({
    ...structuredClone(desired),
    metadata: { ...structuredClone(desired.metadata), uid: 'host-uid', resourceVersion: '7' },
    spec: { ...(structuredClone(desired.spec) as Spec), nodeName: 'kwok-node-0' },
  });
  const cases = [
    {
      name: 'labels unchanged: no write',
      labels: LABELS,
      expectedChanged: [],
      expectedMap: undefined,
    },
    {
      name: 'a label added in the tenant: the label and the map annotation, in one update',
      labels: { ...LABELS, tier: 'front' },
      expectedChanged: ['labels', 'annotations'],
      expectedMap: 'app="web"\napp.kubernetes.io/managed-by="Helm"\ntier="front"',
    },
    {
      name: 'a reserved label changed: the carried label and the map',
      labels: { ...LABELS, 'app.kubernetes.io/managed-by': 'Kustomize' },
      expectedChanged: ['labels', 'annotations'],
      expectedMap: 'app="web"\napp.kubernetes.io/managed-by="Kustomize"',
    },
  ];
  it.each(cases)('$name', ({ labels, expectedChanged, expectedMap }) => {
    const observed = stored(hostOf(pod(['metadata.labels'])));
    const desired = hostOf(pod(['metadata.labels'], { labels }));
    const plan = planUpdate(desired, observed, POD_WRITES);
    if (expectedChanged.length === 0) {
      expect(plan.action).toBe('InSync');
      return;
    }
    if (plan.action !== 'Update') throw new Error(`expected an Update, got ${plan.action}`);
    expect(plan.changed).toEqual(expectedChanged);
    expect(plan.body.metadata.annotations?.[Annotations.TenantLabels]).toBe(expectedMap);
    // The spec is the host's: the fieldRefs did not change.
    expect(plan.body.spec).toEqual(observed.spec);
    // What was written is in sync the next time: no write pass after pass.
    expect(planUpdate(desired, plan.body, POD_WRITES).action).toBe('InSync');
  });
});

describe('the downward API file format', () => {
  it.each([
    { name: 'plain', value: 'web', expected: '"web"' },
    { name: 'quote and backslash', value: 'a"b\\c', expected: '"a\\"b\\\\c"' },
    { name: 'named escapes', value: '\x07\b\f\n\r\t\v', expected: '"\\a\\b\\f\\n\\r\\t\\v"' },
    { name: 'other controls as \\x', value: '\x00\x1b\x7f', expected: '"\\x00\\x1b\\x7f"' },
    { name: 'printable Unicode kept', value: 'é日本😀', expected: '"é日本😀"' },
    {
      name: 'separators and format as \\u',
      value: '\u00a0\u2028\u200b',
      expected: '"\\u00a0\\u2028\\u200b"',
    },
    { name: 'beyond the BMP as \\U', value: '\u{e0001}', expected: '"\\U000e0001"' },
  ])('a value is quoted as Go’s %q does: $name', ({ value, expected }) => {
    expect(goQuote(value)).toBe(expected);
  });

  it('one key="value" line per key, sorted, no newline after the last', () => {
    expect(downwardMap({ z: '1', a: 'x y', 'b.io/k': '' })).toBe('a="x y"\nb.io/k=""\nz="1"');
    expect(downwardMap({})).toBe('');
  });
});
