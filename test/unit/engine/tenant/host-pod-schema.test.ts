/**
 * Which Pod fields the host serves (`tenant/host-pod-schema.ts`): read from its OpenAPI v3 on a
 * full pass, a projected source naming a cluster-scoped kind counted only with that kind served,
 * remembered for resumed passes; a failed read is "unknown", never a throw.
 */
import { describe, expect, it } from '@jest/globals';
import {
  gateAnswers,
  gatedFieldsSet,
  gateProbesSent,
  probeGatedFields,
} from '../../../../lib/engine/tenant/host-pod-gates.js';
import {
  hostPodSchemaForPass,
  POD_SCHEMAS,
  type PodSchemaApi,
  readHostPodSchema,
  withGates,
} from '../../../../lib/engine/tenant/host-pod-schema.js';
import {
  type ClusterApi,
  ClusterError,
  type CreateOptions,
  type KindRef,
  type KubeObject,
  type OpenApiSchemas,
} from '../../../../lib/ports/index.js';

const SOURCES = ['configMap', 'clusterTrustBundle', 'podCertificate'];

/** A host: its OpenAPI answer (or failure) and the certificates.k8s.io kinds it serves. */
function hostApi(
  answer: OpenApiSchemas | Error,
  kinds: string[] = [],
): PodSchemaApi & { reads: number } {
  const api = {
    reads: 0,
    async openApiSchemas(groupVersion: string, names: readonly string[]) {
      api.reads++;
      expect(groupVersion).toBe('api/v1');
      expect(names).toEqual(Object.values(POD_SCHEMAS));
      if (answer instanceof Error) throw answer;
      return answer;
    },
    async namespaced(kind: KindRef) {
      if (!kinds.includes(`${kind.apiVersion}/${kind.kind}`)) {
        throw new ClusterError('NotFound', 'not served', { status: 404 });
      }
      return false;
    },
  };
  return api;
}

function schemas(version: string | undefined, spec: string[]): OpenApiSchemas {
  const properties: Record<string, string[]> = {};
  for (const name of Object.values(POD_SCHEMAS)) properties[name] = ['name'];
  properties[POD_SCHEMAS.PodSpec] = spec;
  properties[POD_SCHEMAS.VolumeProjection] = SOURCES;
  return { ...(version ? { version } : {}), properties };
}

describe('readHostPodSchema', () => {
  const cases: {
    name: string;
    api: PodSchemaApi;
    expected: { version?: string; spec?: string[]; sources?: string[]; unknown?: RegExp };
  }[] = [
    {
      name: 'a current host: every source served with its kind',
      api: hostApi(schemas('v1.37.2', ['containers', 'hostnameOverride']), [
        'certificates.k8s.io/v1/ClusterTrustBundle',
        'certificates.k8s.io/v1beta1/PodCertificateRequest',
      ]),
      expected: { version: 'v1.37.2', spec: ['containers', 'hostnameOverride'], sources: SOURCES },
    },
    {
      name: 'an older host: the sources whose kind it does not serve are not served',
      api: hostApi(schemas('v1.33.13', ['containers'])),
      expected: { version: 'v1.33.13', spec: ['containers'], sources: ['configMap'] },
    },
    {
      name: 'no version in the document',
      api: hostApi(schemas(undefined, ['containers'])),
      expected: { version: 'unknown', spec: ['containers'], sources: ['configMap'] },
    },
    {
      name: 'a failed read: unknown, with why',
      api: hostApi(new ClusterError('TooLarge', 'answered over 16777216 bytes: cut off')),
      expected: { unknown: /could not be read: .*cut off/ },
    },
    {
      name: 'a schema missing: unknown',
      api: hostApi({ properties: {} }),
      expected: { unknown: /has no io\.k8s\.api\.core\.v1\.PodSpec/ },
    },
  ];
  it.each(cases)('$name', async ({ api, expected }) => {
    const read = await readHostPodSchema(api);
    if (expected.unknown) {
      expect(read).toEqual({ unknown: expect.stringMatching(expected.unknown) });
      return;
    }
    expect(read && 'served' in read).toBe(true);
    if (!read || !('served' in read)) return;
    expect(read.version).toBe(expected.version);
    expect([...read.served.PodSpec]).toEqual(expected.spec);
    expect([...read.served.VolumeProjection]).toEqual(expected.sources);
  });

  it('says nothing with a client that has no OpenAPI read', async () => {
    expect(await readHostPodSchema({})).toBeUndefined();
  });
});

describe('hostPodSchemaForPass', () => {
  it('reads on a full pass only; a resumed pass goes by the last read of its tenant', async () => {
    const api = hostApi(schemas('v1.33.13', ['containers']));
    expect(
      await hostPodSchemaForPass(api, { hostNamespace: 'ns', tenant: 'never-read' }, false),
    ).toBeUndefined();
    const full = await hostPodSchemaForPass(api, { hostNamespace: 'ns', tenant: 't' }, true);
    expect(full).toMatchObject({ version: 'v1.33.13' });
    expect(await hostPodSchemaForPass(api, { hostNamespace: 'ns', tenant: 't' }, false)).toBe(full);
    expect(api.reads).toBe(1);
    const failing = hostApi(new ClusterError('Transport', 'reset'));
    const unknown = await hostPodSchemaForPass(failing, { hostNamespace: 'ns', tenant: 't' }, true);
    expect(unknown).toMatchObject({ unknown: expect.stringContaining('reset') });
    expect(await hostPodSchemaForPass(failing, { hostNamespace: 'ns', tenant: 't' }, false)).toBe(
      unknown,
    );
  });
});

describe('fields a feature gate keeps off (host-pod-gates.ts)', () => {
  const RESOURCES = gatedFieldsSet({ resources: { limits: { cpu: '1' } } });
  const listed = (struct: string, field: string) => struct === 'PodSpec' && field === 'resources';

  /** A host whose dry-run create answers through `drop`, recording each create it is asked. */
  function gatedHost(server: string, drop: (spec: Record<string, unknown>) => Error | undefined) {
    const sent: { namespace?: string; dryRun?: boolean }[] = [];
    const api: PodSchemaApi & Pick<ClusterApi, 'create'> = {
      ...hostApi(schemas('v1.33.13', ['containers', 'resources'])),
      server,
      async create(object: KubeObject, options?: CreateOptions) {
        sent.push({ namespace: object.metadata.namespace, dryRun: options?.dryRun });
        const spec = structuredClone(object.spec) as Record<string, unknown>;
        const failure = drop(spec);
        if (failure) throw failure;
        return { ...object, metadata: { ...object.metadata, name: 'tenantplane-probe-x' }, spec };
      },
    };
    return { api, sent };
  }
  const dropResources = (spec: Record<string, unknown>) => {
    delete spec.resources;
    return undefined;
  };

  it('finds which gated fields a Pod sets', () => {
    const spec = {
      containers: [{ name: 'a', lifecycle: { stopSignal: 'SIGUSR1' } }],
      volumes: [{ name: 'm', image: { reference: 'x:1' } }],
      resources: {},
    };
    expect(gatedFieldsSet(spec).map((g) => g.path)).toEqual([
      'spec.volumes[].image',
      'spec.containers[].lifecycle.stopSignal',
    ]);
    expect(RESOURCES.map((g) => g.path)).toEqual(['spec.resources']);
    expect(gatedFieldsSet('x')).toEqual([]);
  });

  it('a field the host drops at a dry-run create is not served; asked once per host and release', async () => {
    const { api, sent } = gatedHost('https://gated.example', dropResources);
    const before = gateProbesSent();
    const unasked = await readHostPodSchema(api);
    expect(unasked).toMatchObject({ gatedOff: [], gatesUnknown: [] });
    await probeGatedFields(api, 'v1.33.13', 'h-ns', RESOURCES, listed);
    await probeGatedFields(api, 'v1.33.13', 'h-ns', RESOURCES, listed);
    expect(sent).toEqual([{ namespace: 'h-ns', dryRun: true }]);
    expect(gateProbesSent() - before).toBe(1);
    const read = await readHostPodSchema(api);
    expect(read).toMatchObject({ gatedOff: ['spec.resources'], gatesUnknown: [] });
    expect(read && 'served' in read && read.served.PodSpec.has('resources')).toBe(false);
    // The read before the probe, with what the probes found since.
    if (!unasked || !('served' in unasked)) throw new Error('no schema');
    expect(withGates(unasked, api.server).served.PodSpec.has('resources')).toBe(false);
    // Another release of the same server is asked again (an upgrade may turn the gate on).
    await probeGatedFields(api, 'v1.34.4', 'h-ns', RESOURCES, listed);
    expect(sent).toHaveLength(2);
  });

  it('a field the host keeps is served; one its types lack is not asked', async () => {
    const kept = gatedHost('https://kept.example', () => undefined);
    await probeGatedFields(kept.api, 'v1.33.13', 'h-ns', RESOURCES, listed);
    expect(await readHostPodSchema(kept.api)).toMatchObject({ gatedOff: [] });
    const image = gatedFieldsSet({ volumes: [{ name: 'm', image: {} }] });
    await probeGatedFields(kept.api, 'v1.33.13', 'h-ns', image, listed);
    expect(kept.sent).toHaveLength(1);
  });

  it('a failed probe is unknown and asked again when needed; an echoed create answers nothing', async () => {
    const refused = gatedHost(
      'https://refused.example',
      () => new Error('webhook refuses dry runs'),
    );
    await probeGatedFields(refused.api, 'v1.33.13', 'h-ns', RESOURCES, listed);
    const read = await readHostPodSchema(refused.api);
    expect(read).toMatchObject({
      gatedOff: [],
      gatesUnknown: ['spec.resources (webhook refuses dry runs)'],
    });
    expect(read && 'served' in read && read.served.PodSpec.has('resources')).toBe(true);
    await probeGatedFields(refused.api, 'v1.33.13', 'h-ns', RESOURCES, listed);
    expect(refused.sent).toHaveLength(2);
    // The engine's own dry run answers a create with the object as sent: no name, no answer.
    const echo = { server: 'https://echo.example', create: async (o: KubeObject) => o };
    await probeGatedFields(echo, 'v1.33.13', 'h-ns', RESOURCES, listed);
    expect(gateAnswers(echo.server, 'v1.33.13')).toEqual({
      off: [],
      unknown: ['spec.resources (not asked: the client answers creates itself)'],
    });
  });
});
