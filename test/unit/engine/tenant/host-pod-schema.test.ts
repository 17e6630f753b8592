/**
 * Which Pod fields the host serves (`tenant/host-pod-schema.ts`): read from its OpenAPI v3 on a
 * full pass, a projected source naming a cluster-scoped kind counted only with that kind served,
 * remembered for resumed passes; a failed read is "unknown", never a throw.
 */
import { describe, expect, it } from '@jest/globals';
import {
  hostPodSchemaForPass,
  POD_SCHEMAS,
  type PodSchemaApi,
  readHostPodSchema,
} from '../../../../lib/engine/tenant/host-pod-schema.js';
import { ClusterError, type KindRef, type OpenApiSchemas } from '../../../../lib/ports/index.js';

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
    expect(await hostPodSchemaForPass(api, 'ns/never-read', false)).toBeUndefined();
    const full = await hostPodSchemaForPass(api, 'ns/t', true);
    expect(full).toMatchObject({ version: 'v1.33.13' });
    expect(await hostPodSchemaForPass(api, 'ns/t', false)).toBe(full);
    expect(api.reads).toBe(1);
    const failing = hostApi(new ClusterError('Transport', 'reset'));
    const unknown = await hostPodSchemaForPass(failing, 'ns/t', true);
    expect(unknown).toMatchObject({ unknown: expect.stringContaining('reset') });
    expect(await hostPodSchemaForPass(failing, 'ns/t', false)).toBe(unknown);
  });
});
