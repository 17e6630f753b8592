/**
 * Issue 40, point 3, on the real clusters. The engine's Pod field tables list exactly the fields
 * of the real apiserver's own types (its OpenAPI v3, `/openapi/v3/api/v1`), both ways, so a new
 * Kubernetes cannot add a field unnoticed. The fields of 1.35-1.37 on the host: a host
 * ClusterTrustBundle or certificate signer the policy does not list is a Skip naming the field,
 * with nothing written; a listed bundle reaches the host Pod, a selector by signer kept off every
 * bundle marked as a tenant's; `hostnameOverride`, an image volume, pod-level resources and a
 * sidecar reach the host Pod as written, and the sidecar's status comes back.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import {
  CONTAINER_FIELDS,
  EPHEMERAL_CONTAINER_FIELDS,
  POD_SECURITY_CONTEXT_FIELDS,
  SECURITY_CONTEXT_FIELDS,
} from '../../../lib/engine/kinds/pod/fields/container-fields.js';
import type { FieldTable } from '../../../lib/engine/kinds/pod/fields/field-table.js';
import { POD_SPEC_FIELDS } from '../../../lib/engine/kinds/pod/fields/pod-spec-fields.js';
import {
  VOLUME_FIELDS,
  VOLUME_PROJECTION_FIELDS,
} from '../../../lib/engine/kinds/pod/fields/volume-fields.js';
import { unservedPodFields } from '../../../lib/engine/kinds/registry.js';
import { readHostPodSchema } from '../../../lib/engine/tenant/host-pod-schema.js';
import type { KindRef, KubeObject } from '../../../lib/ports/index.js';
import { snapshot } from '../faults/support.js';
import {
  type Apis,
  clusters,
  createTenant,
  decisionLines,
  diffSnapshots,
  kubectl,
  pass,
  type Tenant,
  tenantObject,
  useApis,
  waitFor,
} from './support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const NOTHING = { created: [], changed: [], deleted: [] };

/** Each table, by the schema of the apiserver's OpenAPI it lists. */
const TABLES: Record<string, FieldTable> = {
  PodSpec: POD_SPEC_FIELDS,
  Container: CONTAINER_FIELDS,
  EphemeralContainer: EPHEMERAL_CONTAINER_FIELDS,
  Volume: VOLUME_FIELDS,
  VolumeProjection: VOLUME_PROJECTION_FIELDS,
  SecurityContext: SECURITY_CONTEXT_FIELDS,
  PodSecurityContext: POD_SECURITY_CONTEXT_FIELDS,
};

interface OpenApi {
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
}

type Spec = Record<string, unknown>;
const podSpec = (extra: Spec = {}): Spec => ({
  automountServiceAccountToken: false,
  containers: [{ name: 'web', image: 'nginx:1' }],
  ...extra,
});
const CERTIFICATE = {
  signerName: 'example.com/pods',
  keyType: 'ED25519',
  credentialBundlePath: 'credentials.pem',
  maxExpirationSeconds: 86400,
};
const projected = (source: Spec): Spec[] => [{ name: 'trust', projected: { sources: [source] } }];

/** The Pod fields of the engine's tables the host lacks, as the engine reads them. */
async function hostLacks(a: Apis): Promise<string[]> {
  const read = await readHostPodSchema(a.hostApi);
  if (read === undefined || 'unknown' in read) throw new Error(`no host Pod schema: ${read}`);
  return unservedPodFields(read);
}

/** The OpenAPI v3 of api/v1 of the tenant apiserver (the pinned release the tables follow). */
async function tenantOpenApi(): Promise<OpenApi> {
  const args = [
    '--kubeconfig',
    clusters.tenantKubeconfigPath,
    'get',
    '--raw',
    '/openapi/v3/api/v1',
  ];
  const run = await promisify(execFile)(clusters.kubectl, args, { maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(run.stdout) as OpenApi;
}

async function podOf(t: Tenant, name: string): Promise<KubeObject | undefined> {
  return t.hostApi.get(POD, t.hostNamespace, hostName(name, t.vns.a, t.name));
}

describe('every Pod field on purpose', () => {
  it('the field tables list exactly the fields of the apiserver’s own types; the engine reads which of them the host lacks', async () => {
    // The tenant runs the pinned release, whose fields the tables list.
    const openapi = await tenantOpenApi();
    for (const [schema, table] of Object.entries(TABLES)) {
      const properties = openapi.components.schemas[`io.k8s.api.core.v1.${schema}`]?.properties;
      const served = Object.keys(properties ?? {}).sort();
      // Compared as lists, so a failure names each field the table lacks or lists in excess.
      expect({ schema, fields: Object.keys(table).sort() }).toEqual({ schema, fields: served });
    }
    // The host may be older (docs/versions.md): every table field its own types lack is one the
    // engine finds it lacks (a Pod that sets it is a Skip), and none when it serves them all.
    const host = JSON.parse(await kubectl(['get', '--raw', '/openapi/v3/api/v1'])) as OpenApi;
    const lacks = await hostLacks(apis());
    for (const [schema, table] of Object.entries(TABLES)) {
      if (schema === 'EphemeralContainer') continue; // never on the host Pod
      const served = host.components.schemas[`io.k8s.api.core.v1.${schema}`]?.properties ?? {};
      for (const field of Object.keys(table).filter((f) => !Object.hasOwn(served, f))) {
        expect(lacks.filter((path) => path.endsWith(`.${field}`))).not.toEqual([]);
      }
    }
    if (clusters.version === '' || clusters.version.replace(/^v/, '').startsWith('1.37.')) {
      expect(lacks).toEqual([]);
    }
  });

  it('a trust bundle or certificate signer the policy does not list is a Skip naming the field; a listed one reaches the host Pod, its selector kept off bundles marked as a tenant’s', async () => {
    const t = await createTenant(apis(), 'pf-trust', {
      toHost: [POD],
      workloads: {
        pods: {
          trustBundleNames: ['corp-ca'],
          trustBundleSigners: ['example.com/corp'],
          podCertificateSigners: ['example.com/pods'],
        },
      },
    });
    const ns = t.vns.a;
    const cases: Array<[string, Spec, string]> = [
      [
        'other-bundle',
        { clusterTrustBundle: { name: 'other-tenant-ca', path: 'ca.pem' } },
        'spec.volumes[trust].projected.sources[0].clusterTrustBundle.name',
      ],
      [
        'other-signer',
        {
          clusterTrustBundle: { signerName: 'example.com/other', labelSelector: {}, path: 'a.pem' },
        },
        'spec.volumes[trust].projected.sources[0].clusterTrustBundle.signerName',
      ],
      [
        'certificate',
        {
          podCertificate: {
            signerName: 'example.com/other-pods',
            keyType: 'ED25519',
            credentialBundlePath: 'credentials.pem',
          },
        },
        'spec.volumes[trust].projected.sources[0].podCertificate.signerName',
      ],
    ];
    for (const [name, source] of cases) {
      await t.tenantApi.create(
        tenantObject(t, POD, ns, name, { spec: podSpec({ volumes: projected(source) }) }),
      );
    }
    // A host that does not serve a source refuses it before the policy is asked (docs/versions.md).
    const lacks = await hostLacks(apis());
    const unserved = (field: string) => {
      const source = field.replace(
        /^spec\.volumes\[trust\]\.projected\.sources\[0\]\.(\w+)\..*$/,
        '$1',
      );
      return lacks.includes(`spec.volumes[].projected.sources[].${source}`)
        ? `does not serve spec.volumes[trust].projected.sources[0].${source}`
        : undefined;
    };
    const before = await snapshot(t.hostNamespace);
    const refused = await pass(t);
    expect(refused.result.errors).toEqual([]);
    for (const [name, , field] of cases) {
      const skip = refused.result.decisions.find(
        (d) => d.action === 'Skip' && d.tenantRef.name === name,
      );
      expect(skip?.reason).toContain(unserved(field) ?? field);
      expect(await podOf(t, name)).toBeUndefined();
    }
    expect(diffSnapshots(before, await snapshot(t.hostNamespace))).toEqual(NOTHING);

    await t.tenantApi.create(
      tenantObject(t, POD, ns, 'listed', {
        spec: podSpec({
          volumes: [
            {
              name: 'trust',
              projected: {
                sources: [
                  { clusterTrustBundle: { name: 'corp-ca', path: 'corp.pem', optional: true } },
                  {
                    clusterTrustBundle: {
                      signerName: 'example.com/corp',
                      labelSelector: { matchLabels: { team: 'a' } },
                      path: 'signer.pem',
                      optional: true,
                    },
                  },
                  { podCertificate: CERTIFICATE },
                ],
              },
            },
          ],
        }),
      }),
    );
    const beforeListed = await snapshot(t.hostNamespace);
    const listed = await pass(t);
    expect(listed.result.errors).toEqual([]);
    const lacking = unserved('spec.volumes[trust].projected.sources[0].clusterTrustBundle.name');
    if (lacking) {
      // An older host would keep an empty source: nothing is written, the Skip says why.
      const skip = listed.result.decisions.find((d) => d.tenantRef.name === 'listed');
      expect(skip).toMatchObject({ action: 'Skip' });
      expect(skip?.reason).toContain(lacking);
      expect(diffSnapshots(beforeListed, await snapshot(t.hostNamespace))).toEqual(NOTHING);
      return;
    }
    expect(decisionLines(listed.result).filter((line) => line.includes('listed'))).toEqual([
      expect.stringMatching(/^Create /),
    ]);
    const host = (await podOf(t, 'listed'))?.spec as
      | { volumes?: Array<{ projected?: { sources: Spec[] } }> }
      | undefined;
    const sources = host?.volumes?.[0]?.projected?.sources;
    expect(sources?.[0]).toEqual({
      clusterTrustBundle: { name: 'corp-ca', path: 'corp.pem', optional: true },
    });
    expect(sources?.[1]).toEqual({
      clusterTrustBundle: {
        signerName: 'example.com/corp',
        labelSelector: {
          matchLabels: { team: 'a' },
          matchExpressions: [{ key: 'tenantplane.io/tenant', operator: 'DoesNotExist' }],
        },
        path: 'signer.pem',
        optional: true,
      },
    });
    expect(sources?.[2]).toEqual({ podCertificate: CERTIFICATE });
  });

  it('hostnameOverride, an image volume, pod-level resources and a sidecar reach the host Pod as written; the sidecar’s status comes back', async () => {
    const t = await createTenant(apis(), 'pf-new', { toHost: [POD] });
    const ns = t.vns.a;
    const spec = podSpec({
      hostnameOverride: 'web.example.internal',
      resources: { requests: { cpu: '200m', memory: '64Mi' }, limits: { memory: '128Mi' } },
      initContainers: [{ name: 'proxy', image: 'envoy:1', restartPolicy: 'Always' }],
      volumes: [
        {
          name: 'models',
          image: { reference: 'example.com/models:1', pullPolicy: 'IfNotPresent' },
        },
      ],
      containers: [
        {
          name: 'web',
          image: 'nginx:1',
          volumeMounts: [{ name: 'models', mountPath: '/models', readOnly: true }],
        },
      ],
    });
    await t.tenantApi.create(tenantObject(t, POD, ns, 'web', { spec }));
    const tenantSpec = (await t.tenantApi.get(POD, ns, 'web'))?.spec as Spec;
    const before = await snapshot(t.hostNamespace);
    const created = await pass(t);
    expect(created.result.errors).toEqual([]);
    if ((await hostLacks(apis())).includes('spec.hostnameOverride')) {
      // An older host would drop it: a Skip naming the field and the host's version, no write.
      const skip = created.result.decisions.find((d) => d.tenantRef.name === 'web');
      expect(skip).toMatchObject({ action: 'Skip' });
      expect(skip?.reason).toMatch(
        /^the host \(Kubernetes v1\.\d+\.\d+\) does not serve spec\.(hostnameOverride|resources)\b.*; the Pod would run without it/,
      );
      expect(diffSnapshots(before, await snapshot(t.hostNamespace))).toEqual(NOTHING);
      return;
    }
    const host = (await podOf(t, 'web'))?.spec as Spec;
    for (const field of ['hostnameOverride', 'resources', 'volumes']) {
      expect({ field, value: host[field] }).toEqual({ field, value: tenantSpec[field] });
    }
    const sidecar = (host.initContainers as Spec[])[0];
    expect(sidecar).toMatchObject({ name: 'proxy', image: 'envoy:1', restartPolicy: 'Always' });

    const h = hostName('web', ns, t.name);
    await waitFor(
      'the host Pod Running',
      async () => {
        const status = (await t.hostApi.get(POD, t.hostNamespace, h))?.status as
          | { phase?: string }
          | undefined;
        return status?.phase === 'Running' ? status : undefined;
      },
      60_000,
    );
    expect((await pass(t)).result.errors).toEqual([]);
    const back = (await t.tenantApi.get(POD, ns, 'web'))?.status as {
      initContainerStatuses?: Array<{ name: string }>;
      phase?: string;
    };
    expect(back.phase).toBe('Running');
    expect(back.initContainerStatuses?.map((s) => s.name)).toEqual(['proxy']);
  });
});
