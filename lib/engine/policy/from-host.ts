/**
 * The classes part of a SyncPolicy (`spec.fromHost`): which host StorageClasses, IngressClasses,
 * PriorityClasses, RuntimeClasses and GatewayClasses the tenant sees as read-only copies, so charts and tenant
 * admission that name them work. The other direction from `toHost`: host objects into the tenant.
 */
import { isRecord } from '../../common/index.js';
import type { KindRef, KubeObject } from '../../ports/index.js';
import {
  type LabelSelector,
  LabelSelectorError,
  matchesLabelSelector,
  parseLabelSelector,
} from './label-selector.js';

/**
 * The class kinds a tenant can get from the host, by their `spec.fromHost` field. All five are
 * cluster-scoped on both sides; their copies keep the host name (a class is named by name).
 */
export const HOST_CLASS_KINDS = {
  storageClasses: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass' },
  ingressClasses: { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass' },
  priorityClasses: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass' },
  runtimeClasses: { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass' },
  // The classes of the host Gateways a tenant's routes attach to (docs/gateway-api.md).
  gatewayClasses: { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass' },
} as const satisfies Record<string, KindRef>;

/** A `spec.fromHost` field: `storageClasses`, `ingressClasses`, ... */
export type HostClassField = keyof typeof HOST_CLASS_KINDS;

/** The fields of {@link HOST_CLASS_KINDS}, in the order a pass takes them. */
export const HOST_CLASS_FIELDS = Object.keys(HOST_CLASS_KINDS) as readonly HostClassField[];

/**
 * Which host classes of one kind the tenant gets: those named, and those the selector matches
 * (either is enough). At least one of the two is set.
 */
export interface ClassSelection {
  names?: string[];
  /** A label selector string, never blank (a blank one would copy every host class). */
  labelSelector?: string;
}

/** `spec.fromHost`: a selection per class kind; a kind left out gets no copies. */
export type FromHostPolicy = Partial<Record<HostClassField, ClassSelection>>;

/** The field of a class Kind (`StorageClass` -> `storageClasses`); `undefined` for others. */
export function classFieldOf(kind: string): HostClassField | undefined {
  return HOST_CLASS_FIELDS.find((field) => HOST_CLASS_KINDS[field].kind === kind);
}

/** The Kinds `fromHost` selects classes of (`StorageClass`...), in pass order. */
export function fromHostKinds(policy: FromHostPolicy | undefined): string[] {
  return HOST_CLASS_FIELDS.filter((field) => policy?.[field] !== undefined).map(
    (field) => HOST_CLASS_KINDS[field].kind,
  );
}

/** A class selection made ready to match host classes (the selector parsed once). */
export interface CompiledSelection {
  readonly names: ReadonlySet<string>;
  readonly selector?: LabelSelector;
  /** The selector as written, for reasons and the LIST. */
  readonly labelSelector?: string;
}

/** Compiles a parsed (so valid) selection; `undefined` selects nothing. */
export function compileSelection(selection: ClassSelection | undefined): CompiledSelection {
  if (!selection) return { names: new Set() };
  const names = new Set(selection.names ?? []);
  const { labelSelector } = selection;
  if (labelSelector === undefined) return { names };
  return { names, labelSelector, selector: parseLabelSelector(labelSelector) };
}

/** How a selection takes a host class: `'name'`, `'selector'`, or `undefined` when it does not. */
export function selectedBy(
  selection: CompiledSelection,
  hostClass: Pick<KubeObject, 'metadata'>,
): 'name' | 'selector' | undefined {
  if (selection.names.has(hostClass.metadata.name)) return 'name';
  if (selection.selector && matchesLabelSelector(selection.selector, hostClass.metadata.labels))
    return 'selector';
  return undefined;
}

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function parseSelection(
  value: unknown,
  where: string,
  problems: string[],
): ClassSelection | undefined {
  if (!isRecord(value)) {
    problems.push(`${where} must be an object with names and/or labelSelector`);
    return undefined;
  }
  const selection: ClassSelection = {};
  const before = problems.length;
  for (const key of Object.keys(value)) {
    if (key !== 'names' && key !== 'labelSelector')
      problems.push(`${where}.${key} is not a field (names, labelSelector)`);
  }
  const { names, labelSelector } = value;
  if (names !== undefined) {
    if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) {
      problems.push(`${where}.names must be a list of class names`);
    } else {
      const bad = names.filter((n) => n.length > 253 || !SUBDOMAIN.test(n));
      if (bad.length > 0)
        problems.push(`${where}.names: ${JSON.stringify(bad[0])} is not a class name`);
      else selection.names = [...new Set(names)];
    }
  }
  if (labelSelector !== undefined) {
    if (typeof labelSelector !== 'string') {
      problems.push(`${where}.labelSelector must be a string`);
    } else if (labelSelector.trim() === '') {
      // Kubernetes reads an empty selector as "everything": too easy to write by accident here.
      problems.push(`${where}.labelSelector must not be empty (it would copy every host class)`);
    } else {
      try {
        parseLabelSelector(labelSelector);
        selection.labelSelector = labelSelector;
      } catch (error) {
        if (!(error instanceof LabelSelectorError)) throw error;
        problems.push(`${where}.labelSelector: ${error.message}`);
      }
    }
  }
  if (names === undefined && labelSelector === undefined)
    problems.push(`${where} must have names or a labelSelector`);
  return problems.length === before ? selection : undefined;
}

/** Parses `spec.fromHost`; every problem goes to `problems`. */
export function parseFromHostPolicy(value: unknown, problems: string[]): FromHostPolicy {
  const policy: FromHostPolicy = {};
  if (!isRecord(value)) {
    problems.push('spec.fromHost must be an object');
    return policy;
  }
  for (const [key, entry] of Object.entries(value)) {
    const field = HOST_CLASS_FIELDS.find((f) => f === key);
    if (!field) {
      problems.push(`spec.fromHost.${key} is not a class kind (${HOST_CLASS_FIELDS.join(', ')})`);
      continue;
    }
    const selection = parseSelection(entry, `spec.fromHost.${field}`, problems);
    if (selection) policy[field] = selection;
  }
  return policy;
}
