/**
 * The SyncPolicy (TenantCluster.spec): parsed and validated in one go, so an operator sees every
 * problem at once. Which objects a rule then leaves out is `scope.ts`.
 */
import { isDnsLabel, isRecord, tenantNameProblem } from '../../common/index.js';
import { InvalidPolicyError } from '../errors.js';
import { groupKind } from '../names/resource-key.js';
import { type FromHostPolicy, parseFromHostPolicy } from './from-host.js';
import { parseKeyExclusions } from './key-exclusions.js';
import { LabelSelectorError, parseLabelSelector } from './label-selector.js';
import { tenantDnsRuleProblem } from './tenant-dns.js';
import { parseWorkloadPolicy, type WorkloadPolicy } from './workloads.js';

/** Per-kind exclusions: a tenant object matching any of them is silently not synced. */
export interface KindExclusions {
  /** Virtual namespaces whose objects of this kind are not synced. */
  namespaces?: string[];
  /** Object names not synced, in any namespace. */
  names?: string[];
  /** Objects whose labels match this selector are not synced, e.g. `sync=off`. */
  labelSelector?: string;
  /** Label keys never copied to the host (glob patterns, `key-exclusions.ts`). */
  labelKeys?: string[];
  /** Annotation keys never copied to the host (glob patterns), e.g. `nginx.ingress.kubernetes.io/*`. */
  annotationKeys?: string[];
}

/** One `toHost` entry: a namespaced kind to copy, with optional exclusions. */
export interface KindRule {
  apiVersion: string;
  kind: string;
  exclude?: KindExclusions;
  /** Errors about its objects carry no server text (always so for Secrets; `error-text.ts`). */
  sensitive?: boolean;
}

/** A tenant's parsed, validated sync policy. */
export interface SyncPolicy {
  hostNamespace: string;
  paused: boolean;
  /** The mass-delete guard (see `delete-guard.ts`); absent means {@link DEFAULT_DELETE_GUARD}. */
  deleteGuard?: DeleteGuardPolicy;
  /** Kinds to copy, in the order a pass processes them. */
  toHost: KindRule[];
  /** What tenant Pods may have on the host (`workloads.ts`); absent: the hardened default. */
  workloads?: WorkloadPolicy;
  /** Host classes the tenant gets read-only copies of (`from-host.ts`); absent: none. */
  fromHost?: FromHostPolicy;
}

/**
 * How many of a kind's copies whose sources vanished one pass may delete: at most `maxPercent`
 * of the tenant's copies of the kind, when it has at least `minCopies`.
 */
export interface DeleteGuardPolicy {
  maxPercent: number;
  minCopies: number;
}

/** By default a pass may not delete more than half of a kind's copies (of 20 or more). */
export const DEFAULT_DELETE_GUARD: Readonly<DeleteGuardPolicy> = Object.freeze({
  maxPercent: 50,
  minCopies: 20,
});

/** The kinds synced when `toHost` is omitted: ConfigMaps and Secrets. */
export const DEFAULT_TO_HOST: readonly KindRule[] = Object.freeze([
  { apiVersion: 'v1', kind: 'ConfigMap' },
  { apiVersion: 'v1', kind: 'Secret' },
]);

const API_VERSION = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?v[0-9]+((alpha|beta)[0-9]+)?$/;
const KIND = /^[A-Za-z][A-Za-z0-9]{0,62}$/;
const MAX_KINDS = 64;

function stringList(value: unknown, where: string, problems: string[]): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    problems.push(`${where} must be a list of strings`);
    return undefined;
  }
  return [...value];
}

/** `group/Kind` of the kinds the tenant only ever sees from the host. */
const FROM_HOST_ONLY = new Set([
  'gateway.networking.k8s.io/Gateway',
  'gateway.networking.k8s.io/GatewayClass',
]);

function parseRule(entry: unknown, index: number, problems: string[]): KindRule | undefined {
  const where = `spec.toHost[${index}]`;
  if (!isRecord(entry)) {
    problems.push(`${where} must be an object with apiVersion and kind`);
    return undefined;
  }
  const { apiVersion, kind, exclude } = entry;
  let ok = true;
  if (typeof apiVersion !== 'string' || !API_VERSION.test(apiVersion)) {
    problems.push(
      `${where}.apiVersion must look like "v1" or "group/version", got ${describe(apiVersion)}`,
    );
    ok = false;
  }
  if (typeof kind !== 'string' || !KIND.test(kind)) {
    problems.push(`${where}.kind must be a Kind name like "ConfigMap", got ${describe(kind)}`);
    ok = false;
  }
  let exclusions: KindExclusions | undefined;
  if (exclude !== undefined) {
    if (!isRecord(exclude)) {
      problems.push(`${where}.exclude must be an object`);
      ok = false;
    } else {
      exclusions = {};
      const namespaces = stringList(exclude.namespaces, `${where}.exclude.namespaces`, problems);
      const names = stringList(exclude.names, `${where}.exclude.names`, problems);
      if (namespaces) exclusions.namespaces = namespaces;
      if (names) exclusions.names = names;
      Object.assign(exclusions, parseKeyExclusions(exclude, `${where}.exclude`, problems));
      const selector = exclude.labelSelector;
      if (selector !== undefined) {
        if (typeof selector !== 'string') {
          problems.push(`${where}.exclude.labelSelector must be a string`);
        } else {
          try {
            parseLabelSelector(selector);
            if (selector.trim() !== '') exclusions.labelSelector = selector;
          } catch (error) {
            if (!(error instanceof LabelSelectorError)) throw error;
            problems.push(`${where}.exclude.labelSelector: ${error.message}`);
          }
        }
      }
    }
  }
  if (ok && FROM_HOST_ONLY.has(`${String(apiVersion).split('/')[0]}/${String(kind)}`)) {
    // A Gateway is shared host infrastructure: the tenant sees the allowed ones read-only
    // (spec.workloads.gateways.parents); copying tenant Gateways to the host would let a tenant
    // open listeners on the host's load balancers, and would copy those read-only copies back.
    problems.push(
      `${where}: ${String(kind)} objects come from the host (spec.workloads.gateways.parents) and are never copied to it`,
    );
    ok = false;
  }
  if (entry.sensitive !== undefined && typeof entry.sensitive !== 'boolean') {
    problems.push(`${where}.sensitive must be true or false, got ${describe(entry.sensitive)}`);
  }
  if (!ok) return undefined;
  const rule: KindRule = { apiVersion: apiVersion as string, kind: kind as string };
  if (exclusions) rule.exclude = exclusions;
  if (entry.sensitive === true) rule.sensitive = true;
  return rule;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function parseDeleteGuard(value: unknown, problems: string[]): DeleteGuardPolicy {
  const guard = { ...DEFAULT_DELETE_GUARD };
  if (!isRecord(value)) {
    problems.push('spec.deleteGuard must be an object with maxPercent and minCopies');
    return guard;
  }
  const { maxPercent, minCopies } = value;
  if (maxPercent !== undefined) {
    if (typeof maxPercent !== 'number' || !(maxPercent >= 0 && maxPercent <= 100))
      problems.push(
        `spec.deleteGuard.maxPercent must be a number from 0 to 100, got ${describe(maxPercent)}`,
      );
    else guard.maxPercent = maxPercent;
  }
  if (minCopies !== undefined) {
    if (!Number.isInteger(minCopies) || (minCopies as number) < 0)
      problems.push(
        `spec.deleteGuard.minCopies must be a whole number >= 0, got ${describe(minCopies)}`,
      );
    else guard.minCopies = minCopies as number;
  }
  return guard;
}

/**
 * Parses and validates `TenantCluster.spec` into a SyncPolicy, applying the defaults (not paused;
 * ConfigMaps and Secrets). Collects every problem rather than stopping at the first, so an
 * operator fixes the spec in one go.
 * @throws InvalidPolicyError listing the problems.
 */
export function parseSyncPolicy(tenant: string, spec: unknown): SyncPolicy {
  const problems: string[] = [];
  const nameProblem = tenantNameProblem(tenant);
  if (nameProblem) {
    problems.push(
      `the TenantCluster name "${tenant}" ${nameProblem} (it is a label value on every host object)`,
    );
  }
  if (!isRecord(spec)) {
    throw new InvalidPolicyError(tenant, [...problems, 'spec must be an object']);
  }
  const { hostNamespace, paused, toHost } = spec;
  const deleteGuard =
    spec.deleteGuard === undefined ? undefined : parseDeleteGuard(spec.deleteGuard, problems);
  const workloads =
    spec.workloads === undefined ? undefined : parseWorkloadPolicy(spec.workloads, problems);
  const fromHost =
    spec.fromHost === undefined ? undefined : parseFromHostPolicy(spec.fromHost, problems);
  if (typeof hostNamespace !== 'string' || !isDnsLabel(hostNamespace)) {
    problems.push(`spec.hostNamespace must be a DNS-1123 label, got ${describe(hostNamespace)}`);
  }
  if (paused !== undefined && typeof paused !== 'boolean') {
    problems.push(`spec.paused must be true or false, got ${describe(paused)}`);
  }
  let rules: KindRule[] = DEFAULT_TO_HOST.map((r) => ({ ...r }));
  if (toHost !== undefined) {
    if (!Array.isArray(toHost)) {
      problems.push('spec.toHost must be a list of {apiVersion, kind}');
    } else if (toHost.length > MAX_KINDS) {
      problems.push(`spec.toHost has ${toHost.length} kinds; at most ${MAX_KINDS} are allowed`);
    } else {
      rules = [];
      // Duplicates by group and Kind, not by apiVersion: see `groupKind`.
      const seen = new Map<string, { index: number; rule: KindRule }>();
      toHost.forEach((entry, index) => {
        const rule = parseRule(entry, index, problems);
        if (!rule) return;
        const key = groupKind(rule);
        const first = seen.get(key);
        if (first) {
          problems.push(
            `spec.toHost[${index}] repeats ${rule.kind} (${rule.apiVersion}) of spec.toHost[${first.index}] (${first.rule.apiVersion}): one rule per API group and kind, whatever the version`,
          );
          return;
        }
        seen.set(key, { index, rule });
        rules.push(rule);
      });
    }
  }
  const dnsProblem = tenantDnsRuleProblem(workloads?.tenantDns, rules);
  if (dnsProblem) problems.push(dnsProblem);
  if (problems.length > 0) throw new InvalidPolicyError(tenant, problems);
  const policy: SyncPolicy = {
    hostNamespace: hostNamespace as string,
    paused: paused === true,
    toHost: rules,
  };
  if (deleteGuard) policy.deleteGuard = deleteGuard;
  if (workloads) policy.workloads = workloads;
  if (fromHost) policy.fromHost = fromHost;
  return policy;
}
