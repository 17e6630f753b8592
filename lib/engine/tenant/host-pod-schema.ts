/**
 * Which Pod fields the host serves (docs/versions.md). A host of an older Kubernetes release
 * drops, without an error, a Pod field it does not know (`spec.hostnameOverride` on 1.33), and one
 * whose feature is off keeps an empty source (`clusterTrustBundle` on 1.33 becomes `{}`): the host
 * Pod would run other than the engine decided. So the engine reads the host's OpenAPI v3 of
 * `api/v1` (the Pod's structs) on a full pass, the same cadence as the `HostFeatures` discovery,
 * and a projected source that names a cluster-scoped kind counts as served only when the host
 * serves that kind (its API is off by default where the projection's feature is). The Pod kind
 * refuses a Pod that sets what the host lacks (`kinds/pod/fields/host-served.ts`); `HostFeatures`
 * lists it. A failed read is "unknown": the engine then writes as it did before, and says so.
 */
import { errorMessage } from '../../common/index.js';
import { type ClusterApi, isClusterError, type KindRef } from '../../ports/index.js';
import { GATED_FIELDS, gateAnswers } from './host-pod-gates.js';

/** The Pod's structs whose fields matter, by the name the walk gives them -> OpenAPI schema. */
export const POD_SCHEMAS = {
  PodSpec: 'io.k8s.api.core.v1.PodSpec',
  PodSecurityContext: 'io.k8s.api.core.v1.PodSecurityContext',
  Container: 'io.k8s.api.core.v1.Container',
  SecurityContext: 'io.k8s.api.core.v1.SecurityContext',
  Volume: 'io.k8s.api.core.v1.Volume',
  VolumeProjection: 'io.k8s.api.core.v1.VolumeProjection',
  // Not a table of its own: read for the fields a gate may keep off (`host-pod-gates.ts`).
  Lifecycle: 'io.k8s.api.core.v1.Lifecycle',
} as const;
export type PodStruct = keyof typeof POD_SCHEMAS;

/** Projected sources served only with a cluster-scoped kind (any of these versions). */
const SOURCE_KINDS: Readonly<Record<string, { kind: string; versions: readonly string[] }>> = {
  clusterTrustBundle: { kind: 'ClusterTrustBundle', versions: ['v1', 'v1beta1', 'v1alpha1'] },
  podCertificate: { kind: 'PodCertificateRequest', versions: ['v1', 'v1beta1', 'v1alpha1'] },
};

/** What the host serves of a Pod: each struct's fields, and the host's version. */
export interface HostPodSchema {
  /** `v1.33.13`, as the host's OpenAPI states it (`unknown` when it does not). */
  version: string;
  served: Readonly<Record<PodStruct, ReadonlySet<string>>>;
  /**
   * Fields the host's types list but its feature gates keep off (a dry-run create dropped them,
   * `host-pod-gates.ts`), as the tables spell them: not in `served` either. Known once a Pod
   * that sets one was met on the host (`kinds/pod/host-fields.ts` probes then).
   */
  gatedOff: readonly string[];
  /** Gated fields whose probe failed (with why): written as before, `HostFeatures` says so. */
  gatesUnknown: readonly string[];
}

/** A read: the schema, or why it could not be read (the engine then assumes every field). */
export type HostPodSchemaRead = HostPodSchema | { unknown: string };

/** The calls the read makes (optional on a client: without them it says nothing). */
export type PodSchemaApi = Pick<ClusterApi, 'openApiSchemas' | 'namespaced' | 'server'>;

/** Whose schema a pass reads: the tenant's host namespace and the tenant. */
export interface PodSchemaScope {
  hostNamespace: string;
  tenant: string;
}

/** Whether the host serves `kind` of `certificates.k8s.io` in one of `versions`. */
async function servesKind(host: PodSchemaApi, kind: string, versions: readonly string[]) {
  for (const version of versions) {
    const ref: KindRef = { apiVersion: `certificates.k8s.io/${version}`, kind };
    try {
      await host.namespaced?.(ref);
      return true;
    } catch (error) {
      if (!isClusterError(error, 'NotFound')) throw error;
    }
  }
  return false;
}

/**
 * Reads the host's Pod schema; `undefined` when the client has no OpenAPI read (nothing to say).
 * Never throws: a failure is `{unknown}` with its reason.
 */
export async function readHostPodSchema(
  host: PodSchemaApi,
): Promise<HostPodSchemaRead | undefined> {
  if (!host.openApiSchemas) return undefined;
  try {
    const names = Object.values(POD_SCHEMAS);
    const read = await host.openApiSchemas('api/v1', names);
    const served = {} as Record<PodStruct, Set<string>>;
    for (const [struct, name] of Object.entries(POD_SCHEMAS) as [PodStruct, string][]) {
      const properties = read.properties[name];
      if (!properties) return { unknown: `its OpenAPI v3 of api/v1 has no ${name}` };
      served[struct] = new Set(properties);
    }
    for (const [source, { kind, versions }] of Object.entries(SOURCE_KINDS)) {
      if (!served.VolumeProjection.has(source)) continue;
      if (!(await servesKind(host, kind, versions))) served.VolumeProjection.delete(source);
    }
    const version = read.version ?? 'unknown';
    return withGates({ version, served, gatedOff: [], gatesUnknown: [] }, host.server);
  } catch (error) {
    return { unknown: `its OpenAPI v3 of api/v1 could not be read: ${errorMessage(error)}` };
  }
}

/**
 * `schema` with what the probes found so far on its host (`host-pod-gates.ts`): the gated fields
 * it drops out of `served` and listed in `gatedOff`, and those whose probe failed.
 */
export function withGates(schema: HostPodSchema, server: string | undefined): HostPodSchema {
  const { off, unknown } = gateAnswers(server, schema.version);
  const served = { ...schema.served };
  for (const gated of GATED_FIELDS.filter((g) => off.includes(g.path))) {
    served[gated.struct] = new Set([...served[gated.struct]].filter((f) => f !== gated.field));
  }
  return { ...schema, served, gatedOff: off, gatesUnknown: unknown };
}

/** The last read per host namespace and tenant: what a resumed pass, which reads none, goes by. */
const lastReads = new Map<string, HostPodSchemaRead>();

/**
 * The host's Pod schema for this pass: read on a full pass (and remembered), the last one read
 * on a resumed pass; `undefined` when none was ever read or the client cannot tell.
 */
export async function hostPodSchemaForPass(
  host: PodSchemaApi,
  scope: PodSchemaScope,
  full: boolean,
): Promise<HostPodSchemaRead | undefined> {
  const key = `${scope.hostNamespace}/${scope.tenant}`;
  if (!full) return lastReads.get(key);
  const read = await readHostPodSchema(host);
  if (read === undefined) lastReads.delete(key);
  else lastReads.set(key, read);
  return read;
}
