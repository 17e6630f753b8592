/**
 * Pod fields the host's types list but its feature gates keep off (docs/versions.md). A field in
 * the host's OpenAPI may still be dropped at create, without an error, when its feature gate is
 * off: on 1.33 an image volume (`ImageVolume`, beta, off by default) and pod-level `resources`
 * (`PodLevelResources`, alpha), a container's `lifecycle.stopSignal` (`ContainerStopSignals`,
 * alpha); on 1.34 `hostnameOverride` (alpha). The OpenAPI cannot tell, so the engine asks the
 * host: a server-side dry-run create (`dryRun=All`: admitted, never stored) in the host namespace
 * of a small Pod setting the field, and whether the answer kept it. Once per field per host and
 * release, for the life of the process: a gate changes only with a restart of the host's
 * apiservers, which an upgrade (a new release, so a new key) is. Asked only when a tenant Pod
 * sets the field (`kinds/pod/host-fields.ts`). A probe that fails (a webhook that refuses dry
 * runs, a quota, a namespace whose `default` ServiceAccount is not made yet) says "unknown", is
 * asked again when next needed, and a Pod that sets the field waits (a Skip) meanwhile.
 */
import { errorMessage, isRecord } from '../../common/index.js';
import type { ClusterApi, KubeObject } from '../../ports/index.js';

/** The structs of the host's Pod schema (`host-pod-schema.ts`) a gated field sits in. */
export type GatedStruct = 'PodSpec' | 'Volume' | 'Lifecycle';

/** A field a gate may keep off: where it sits, and how a probe sets and finds it. */
export interface GatedField {
  /** The path as the field tables and `HostFeatures` spell it. */
  path: string;
  /** The struct and field the host's types list it under (probed only when listed). */
  struct: GatedStruct;
  field: string;
  /** The probe Pod's spec with the field set. */
  probe: (spec: Record<string, unknown>) => Record<string, unknown>;
  /** Whether the host's answer kept it. */
  kept: (spec: Record<string, unknown>) => boolean;
}

const SMALL = { cpu: '10m', memory: '16Mi' };

function firstContainer(spec: Record<string, unknown>): Record<string, unknown> {
  const containers = Array.isArray(spec.containers) ? spec.containers : [];
  return isRecord(containers[0]) ? containers[0] : {};
}

/** Each gated field the engine copies (refused ones need no probe: nothing is written). */
export const GATED_FIELDS: readonly GatedField[] = [
  {
    path: 'spec.volumes[].image',
    struct: 'Volume',
    field: 'image',
    probe: (spec) => ({
      ...spec,
      volumes: [{ name: 'probe', image: { reference: 'registry.k8s.io/pause:3.10' } }],
    }),
    kept: (spec) =>
      Array.isArray(spec.volumes) && spec.volumes.some((v) => isRecord(v) && isRecord(v.image)),
  },
  {
    path: 'spec.resources',
    struct: 'PodSpec',
    field: 'resources',
    probe: (spec) => ({ ...spec, resources: { requests: SMALL, limits: SMALL } }),
    kept: (spec) => isRecord(spec.resources) && Object.keys(spec.resources).length > 0,
  },
  {
    path: 'spec.hostnameOverride',
    struct: 'PodSpec',
    field: 'hostnameOverride',
    probe: (spec) => ({ ...spec, hostnameOverride: 'probe' }),
    kept: (spec) => typeof spec.hostnameOverride === 'string',
  },
  {
    path: 'spec.containers[].lifecycle.stopSignal',
    struct: 'Lifecycle',
    field: 'stopSignal',
    probe: (spec) => ({
      ...spec,
      os: { name: 'linux' },
      containers: [{ ...firstContainer(spec), lifecycle: { stopSignal: 'SIGTERM' } }],
    }),
    kept: (spec) => {
      const lifecycle = firstContainer(spec).lifecycle;
      return isRecord(lifecycle) && typeof lifecycle.stopSignal === 'string';
    },
  },
];

/** A Pod the host namespace's Pod Security admits at any level (restricted), asking little of a quota. */
function probePod(namespace: string, spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: '', generateName: 'tenantplane-probe-', namespace },
    spec,
  };
}

function baseSpec(): Record<string, unknown> {
  return {
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    securityContext: {
      runAsNonRoot: true,
      runAsUser: 65532,
      seccompProfile: { type: 'RuntimeDefault' },
    },
    containers: [
      {
        name: 'probe',
        image: 'registry.k8s.io/pause:3.10',
        resources: { requests: SMALL, limits: SMALL },
        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
      },
    ],
  };
}

/** What is known of the gated fields on one host: those it drops, those whose probe failed. */
export interface GateAnswers {
  off: readonly string[];
  unknown: readonly string[];
}

/** Probe answers per host, release and field path (`true`: kept). */
const answers = new Map<string, boolean>();
/** Probes on their way: a second ask of the same field waits for the first (pages overlap). */
const asking = new Map<string, Promise<void>>();
/** The last failure of a probe not answered yet, per the same key (tried again when needed). */
const failures = new Map<string, string>();
let sent = 0;

/** How many probes this process sent: the cost docs/versions.md states, read by a test. */
export function gateProbesSent(): number {
  return sent;
}

const keyOf = (server: string | undefined, release: string, gated: GatedField) =>
  `${server ?? 'host'} ${release} ${gated.path}`;

/** The gated fields a Pod spec sets. */
export function gatedFieldsSet(spec: unknown): GatedField[] {
  if (!isRecord(spec)) return [];
  const containers = ['initContainers', 'containers'].flatMap((list) =>
    Array.isArray(spec[list]) ? spec[list].filter(isRecord) : [],
  );
  const volumes = Array.isArray(spec.volumes) ? spec.volumes.filter(isRecord) : [];
  const sets: Record<string, boolean> = {
    'spec.volumes[].image': volumes.some((v) => v.image !== undefined && v.image !== null),
    'spec.resources': isRecord(spec.resources) && Object.keys(spec.resources).length > 0,
    'spec.hostnameOverride': typeof spec.hostnameOverride === 'string',
    'spec.containers[].lifecycle.stopSignal': containers.some(
      (c) => isRecord(c.lifecycle) && typeof c.lifecycle.stopSignal === 'string',
    ),
  };
  return GATED_FIELDS.filter((gated) => sets[gated.path]);
}

/** What is known of `server` at `release`, in the table's order. */
export function gateAnswers(server: string | undefined, release: string): GateAnswers {
  const off: string[] = [];
  const unknown: string[] = [];
  for (const gated of GATED_FIELDS) {
    const key = keyOf(server, release, gated);
    if (answers.get(key) === false) off.push(gated.path);
    const failure = failures.get(key);
    if (failure !== undefined) unknown.push(`${gated.path} (${failure})`);
  }
  return { off, unknown };
}

/**
 * Asks the host, by a dry-run create in `namespace`, whether it keeps each of `fields` that its
 * types list (`listed`) and that was not answered yet: once per field per host and release for
 * the life of the process. A failed probe is kept as "unknown" and tried again when next needed.
 * A client that answers a create itself (a dry run of the engine) answers nothing. Never throws.
 */
export async function probeGatedFields(
  api: Pick<ClusterApi, 'create' | 'server'>,
  release: string,
  namespace: string,
  fields: readonly GatedField[],
  listed: (struct: GatedStruct, field: string) => boolean,
): Promise<void> {
  const asked = fields.filter(
    (g) => listed(g.struct, g.field) && !answers.has(keyOf(api.server, release, g)),
  );
  await Promise.all(
    asked.map((gated) => {
      const key = keyOf(api.server, release, gated);
      let probe = asking.get(key);
      if (!probe) {
        probe = ask(api, namespace, gated, key).finally(() => asking.delete(key));
        asking.set(key, probe);
      }
      return probe;
    }),
  );
}

/** One probe of `gated`; its answer or failure kept under `key`. */
async function ask(
  api: Pick<ClusterApi, 'create'>,
  namespace: string,
  gated: GatedField,
  key: string,
): Promise<void> {
  try {
    sent += 1;
    const answer = await api.create(probePod(namespace, gated.probe(baseSpec())), { dryRun: true });
    // The apiserver names what it admits; a client that echoes the create does not.
    if (!answer.metadata.name) throw new Error('not asked: the client answers creates itself');
    answers.set(key, isRecord(answer.spec) && gated.kept(answer.spec));
    failures.delete(key);
  } catch (error) {
    failures.set(key, errorMessage(error));
  }
}
