/**
 * The Pod turn's facts: the tenant DNS address (`tenant-dns.ts`) and the Pod fields the host
 * serves (`../../tenant/host-pod-schema.ts`), the latter read on a full pass (the last read on a
 * resumed one) and handed on only when the host lacks a field the engine knows: on a host that
 * serves them all, the Pods keep the in-sync memo (objects translated with facts are never
 * answered from it). A tenant Pod that sets a field a feature gate may keep off the host has the
 * host asked first, once per field per host (`../../tenant/host-pod-gates.ts`).
 */
import { type KubeObject, POD } from '../../../ports/index.js';
import type { PassContext } from '../../context/pass-context.js';
import { type CompiledKindRule, isExcluded } from '../../policy/scope.js';
import { type GatedField, gatedFieldsSet, probeGatedFields } from '../../tenant/host-pod-gates.js';
import {
  type HostPodSchema,
  hostPodSchemaForPass,
  withGates,
} from '../../tenant/host-pod-schema.js';
import type { KindTurn } from '../frame/kind-module.js';
import type { PodFacts } from './facts.js';
import { CONTAINER_FIELDS } from './fields/container-fields.js';
import { FieldHandling, type FieldTable } from './fields/field-table.js';
import { unservedPodFields } from './fields/host-served.js';
import { POD_SPEC_FIELDS } from './fields/pod-spec-fields.js';
import { VOLUME_FIELDS } from './fields/volume-fields.js';
import { tenantDnsFacts } from './tenant-dns.js';

/** The row that decides each gated field's struct: a stop signal sits in a container's lifecycle. */
const TABLE_OF = {
  PodSpec: { table: POD_SPEC_FIELDS as FieldTable, field: (g: GatedField) => g.field },
  Volume: { table: VOLUME_FIELDS as FieldTable, field: (g: GatedField) => g.field },
  Lifecycle: { table: CONTAINER_FIELDS as FieldTable, field: () => 'lifecycle' },
} as const;

/**
 * Whether the engine's own field table would write `gated` to the host: a field it does not know
 * (a newer release's) or refuses is a Skip without asking the host anything.
 */
function wouldWrite(gated: GatedField): boolean {
  const { table, field } = TABLE_OF[gated.struct];
  const row = table[field(gated)];
  return row !== undefined && row.handling !== FieldHandling.Refused;
}

/**
 * The Pod turn's `hostFacts` for the kind's `compiled` rule; `full`: the kind runs its full path
 * (it reads the schema).
 */
export function podHostFacts(
  ctx: PassContext,
  compiled: CompiledKindRule,
  full: boolean,
): KindTurn<PodFacts>['hostFacts'] {
  const dns = tenantDnsFacts(ctx);
  const { hostApi, hostNamespace, tenant } = ctx.scope;
  let read: Promise<HostPodSchema | undefined> | undefined;
  const schema = () => {
    read ??= hostPodSchemaForPass(hostApi, { hostNamespace, tenant }, full).then((r) =>
      r && 'served' in r ? r : undefined,
    );
    return read;
  };
  const lacking = async (tenantObjects: readonly KubeObject[]) => {
    const found = await schema();
    if (!found) return undefined;
    // Asked of the host only for the gated fields these Pods set: nothing for the others.
    // A page holds Pods the policy leaves out too: only the tenant's own ask anything.
    const own = tenantObjects.filter((pod) => !isExcluded(compiled, { ...POD, ...pod }));
    const gated = [...new Set(own.flatMap((pod) => gatedFieldsSet(pod.spec)))].filter(wouldWrite);
    if (gated.length > 0) {
      await probeGatedFields(hostApi, found.version, hostNamespace, gated, (struct, field) =>
        found.served[struct].has(field),
      );
    }
    const gates = withGates(found, hostApi.server);
    const refuses = unservedPodFields(gates).length > 0 || gates.gatesUnknown.length > 0;
    return refuses ? gates : undefined;
  };
  return async (tenantObjects) => {
    const [dnsFacts, hostPodSchema] = await Promise.all([
      dns ? dns(tenantObjects) : undefined,
      tenantObjects.length > 0 ? lacking(tenantObjects) : undefined,
    ]);
    if (!dnsFacts && !hostPodSchema) return undefined;
    return { ...dnsFacts, ...(hostPodSchema ? { hostPodSchema } : {}) };
  };
}
