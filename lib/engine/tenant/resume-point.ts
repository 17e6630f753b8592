/**
 * Where each kind's next pass resumes: `TenantCluster.status.resume[<resource key>]` =
 * `{resourceVersion, at, fullAt, policy}`, the tenant resourceVersion up to which every change of
 * the kind has been converged, when it was recorded, when the kind last had a full two-sided pass,
 * and a digest of the rule and host namespace it holds for. The key is the kind's resource key
 * (`v1/ConfigMap`, `example.com/v1/ConfigMap`: `names/resource-key.ts`), so two rules of one Kind
 * in different groups keep a point each.
 *
 * Which path a kind takes (`planKind`): a full pass when asked (`--full`), when nothing is stored
 * or the policy (any field of the spec that shapes objects, not only the kind's rule) changed since, when objects of the kind wait in the retry memory, and every
 * `spec.resync` (default 60m, jittered per tenant by 0.9-1.1x from a hash of its name; a
 * `resync`); otherwise the pass resumes a watch from the stored resourceVersion and falls back to
 * a full pass when that fails.
 *
 * When it is written (`statusFields`), keeping a steady state write-free: with any status write
 * the pass makes anyway (it wrote copies, Events changed lastPass, the retry memory changed), and
 * on its own only when it must be: no point stored yet, the stored one failed or its policy
 * changed, a full pass reset the resync clock, or a resumed watch saw at least
 * {@link AGING_EVENTS} changes since it (the apiserver's watch cache keeps at least 100 events per
 * resource type beyond its 75 s of history, so a point that many changes behind is about to age
 * out). A quiet tenant's resumed passes see no change and write nothing. A kind whose pass was
 * incomplete (a bound, a deferred write, an error) clears its point: the next pass is full.
 */
import { createHash } from 'node:crypto';
import { isRecord, jsonDigest, jsonEqual } from '../../common/index.js';
import type { KindRef, KubeObject, PassPath } from '../../ports/index.js';
import { type ResourceKey, resourceKey, sameKind } from '../names/resource-key.js';
import type { KindRule } from '../policy/policy.js';
import {
  type ResumePoint,
  readTenantClusterStatus,
  type TenantClusterStatus,
  type TenantClusterStatusPatch,
} from './status.js';

/**
 * How a kind is synced this pass; `resume` carries the point to resume from. `reason` words why
 * it is not resumed, for people; what the book decides from is a value: `retriesWaiting` marks a
 * full listing made only because objects of the kind wait in the retry memory, whose new point
 * need not be written on its own (it rides along with the status write the retry memory makes).
 */
export type KindPlan =
  | { resume: ResumePoint }
  | { path: 'full' | 'resync'; reason: string; retriesWaiting?: true };

/** A resumed watch that saw this many changes re-records its point (see the module doc). */
export const AGING_EVENTS = 50;

/** The default full two-sided resync period. */
export const DEFAULT_RESYNC_MS = 60 * 60_000;

/** The key of a kind in `status.resume`: its resource key (`v1/ConfigMap`, `apps/v1/Deployment`). */
export function resumeKey(kind: KindRef): ResourceKey {
  return resourceKey(kind);
}

/**
 * Digest of what a resume point holds for: the rule, the host namespace, the tenant cluster's
 * identity (the uid of its `kube-system` namespace), so a point recorded on another cluster behind
 * the same kubeconfig (a rebuilt one, accepted with `tenantplane.io/accept-tenant-cluster-id`) is
 * never resumed on this one, and the rest of the policy ({@link policyFingerprint}), so a setting
 * changed on a running tenant shapes every object it governs at the next pass, not only the objects
 * that change. Points recorded before a part was in it do not match: the kind has one full pass,
 * then resumes again.
 */
export function ruleDigest(
  rule: KindRule,
  hostNamespace: string,
  clusterId?: string,
  policy?: string,
): string {
  if (policy !== undefined) return jsonDigest([hostNamespace, rule, clusterId ?? null, policy]);
  return clusterId === undefined
    ? jsonDigest([hostNamespace, rule])
    : jsonDigest([hostNamespace, rule, clusterId]);
}

/**
 * The fingerprint of a TenantCluster's policy: its whole `spec` but `resync` and `paused`, which
 * say when and whether a pass runs, not what it makes. Every other field shapes some object (a
 * copy, a tenant Node, a status back, a Skip), and which objects a field governs is not worth
 * guessing field by field: any change makes every kind's next pass full, once.
 */
export function policyFingerprint(spec: unknown): string {
  if (!isRecord(spec)) return jsonDigest(null);
  const { resync: _resync, paused: _paused, ...shaping } = spec;
  return jsonDigest(shaping);
}

/** `spec.resync` (`90s`, `30m`, `2h`) in milliseconds; the default when absent or garbled. */
export function resyncMs(spec: unknown): number {
  const value = isRecord(spec) ? spec.resync : undefined;
  const match = typeof value === 'string' ? /^([0-9]{1,6})(s|m|h)$/.exec(value) : null;
  if (!match) return DEFAULT_RESYNC_MS;
  const unit = { s: 1000, m: 60_000, h: 3_600_000 }[match[2] as 's' | 'm' | 'h'];
  return Math.max(1000, Number(match[1]) * unit);
}

/** The tenant's own resync period: 0.9 to 1.1 times the period, from a hash of its name. */
export function jitteredResyncMs(tenant: string, periodMs: number): number {
  const h = createHash('sha256').update(tenant).digest().readUInt32BE(0) / 2 ** 32;
  return Math.round(periodMs * (0.9 + 0.2 * h));
}

/** Whether objects of `kind` (this very group and version) wait in the recorded retry memory. */
function retriesOf(status: TenantClusterStatus, kind: KindRef): boolean {
  return status.retries.some((entry) => sameKind(entry, kind));
}

/** The resume points of one pass: what was stored, the path each kind took, what to store. */
export class ResumeBook {
  private readonly recorded: TenantClusterStatus;
  private readonly stored: Record<string, ResumePoint>;
  /** The policy this pass runs under (`policyFingerprint`): points hold for it alone. */
  private readonly policy: string;
  private readonly next: Record<string, ResumePoint | null>;
  private material = false;
  /** The tenant cluster's identity, once the pass has checked it (see {@link identify}). */
  private clusterId: string | undefined;
  /** The path each kind took, and why it was not resumed; by resource key, named by Kind. */
  private readonly paths = new Map<
    ResourceKey,
    { kind: string; path: PassPath; reason?: string }
  >();

  constructor(
    private readonly tenantCluster: KubeObject,
    private readonly hostNamespace: string,
    private readonly options: {
      full: boolean;
      /** Copies wait in a host namespace the tenant moved away from: every kind is listed in full. */
      moving?: boolean;
      canWatch: boolean;
      nowMs: () => number;
      /** Off: every pass is full and no resume point is read or written. */
      incremental?: boolean;
    },
  ) {
    this.recorded = readTenantClusterStatus(tenantCluster);
    this.policy = policyFingerprint(tenantCluster.spec);
    this.stored = this.recorded.resume;
    this.next = { ...this.stored };
  }

  /** The tenant cluster's identity this pass checked: points hold for it alone. */
  identify(clusterId: string | undefined): void {
    this.clusterId = clusterId;
  }

  /** Which path `rule` takes this pass (see the module doc). */
  plan(rule: KindRule): KindPlan {
    const point = this.stored[resumeKey(rule)];
    if (this.options.incremental !== true) return { path: 'full', reason: '' };
    if (this.options.full) return { path: 'full', reason: 'a full pass was asked for' };
    if (!this.options.canWatch) return { path: 'full', reason: 'the tenant client cannot watch' };
    if (this.options.moving === true) {
      return { path: 'full', reason: 'copies wait in a host namespace the tenant moved away from' };
    }
    if (!point) return { path: 'full', reason: 'no resume point stored yet' };
    if (point.policy !== ruleDigest(rule, this.hostNamespace, this.clusterId, this.policy)) {
      return {
        path: 'full',
        reason: 'the sync policy or the tenant cluster changed since the resume point',
      };
    }
    if (retriesOf(this.recorded, rule)) {
      return {
        path: 'full',
        reason: 'objects of this kind wait in the retry memory',
        retriesWaiting: true,
      };
    }
    const { metadata, spec } = this.tenantCluster;
    const period = jitteredResyncMs(metadata.name, resyncMs(spec));
    if (this.options.nowMs() - Date.parse(point.fullAt) >= period) {
      return {
        path: 'resync',
        reason: `the resync period (${Math.round(period / 60_000)}m) passed`,
      };
    }
    return { resume: point };
  }

  /** Records the path a kind took. */
  took(rule: KindRule, path: PassPath, reason?: string): void {
    const kind = rule.kind;
    this.paths.set(resourceKey(rule), reason ? { kind, path, reason } : { kind, path });
  }

  /** A full (or resync) pass of `rule` converged everything up to `resourceVersion`. */
  listed(rule: KindRule, resourceVersion: string | undefined, plan: KindPlan): void {
    const key = resumeKey(rule);
    if (resourceVersion === undefined) {
      this.clear(rule);
      return;
    }
    const now = new Date(this.options.nowMs()).toISOString();
    const policy = ruleDigest(rule, this.hostNamespace, this.clusterId, this.policy);
    this.next[key] = { resourceVersion, at: now, fullAt: now, policy };
    if (!('path' in plan && plan.retriesWaiting === true)) this.material = true;
  }

  /** A resumed kind converged every change up to the bookmark `resourceVersion`. */
  resumed(rule: KindRule, point: ResumePoint, resourceVersion: string, changes: number): void {
    const at = new Date(this.options.nowMs()).toISOString();
    this.next[resumeKey(rule)] = { ...point, resourceVersion, at };
    if (changes >= AGING_EVENTS) this.material = true;
  }

  /**
   * The Pod kind's status back converged for every host Pod up to `hostResourceVersion`
   * (`kinds/pod/pod-kind.ts`). Written on its own only when host Pods `changed` since the stored point:
   * a steady state writes nothing.
   */
  hostSeen(rule: KindRule, hostResourceVersion: string, changed: boolean): void {
    const key = resumeKey(rule);
    const point = this.next[key];
    if (!point || point.hostResourceVersion === hostResourceVersion) return;
    this.next[key] = { ...point, hostResourceVersion };
    if (changed) this.material = true;
  }

  /** A kind left work undone: its next pass must be full. */
  clear(rule: KindRule): void {
    const key = resumeKey(rule);
    if (this.next[key] !== undefined && this.next[key] !== null) this.material = true;
    if (this.stored[key]) this.next[key] = null;
    else delete this.next[key];
  }

  /** A resume failed: the stored point is dead. */
  failed(): void {
    this.material = true;
  }

  /**
   * The `status.resume` patch: `must` when it has to be written on its own, `withOthers` to add
   * to a status write made anyway; both undefined when nothing changed.
   */
  statusFields(kinds: readonly KindRef[]): {
    must?: Pick<TenantClusterStatusPatch, 'resume'>;
    withOthers?: Pick<TenantClusterStatusPatch, 'resume'>;
  } {
    if (this.options.incremental !== true) return {};
    const keep = new Set<string>(kinds.map(resumeKey));
    const patch: Record<string, ResumePoint | null> = {};
    for (const [key, value] of Object.entries(this.next)) {
      if (!keep.has(key)) {
        if (this.stored[key]) patch[key] = null;
      } else if (value === null || !jsonEqual(value, this.stored[key])) patch[key] = value;
    }
    if (Object.keys(patch).length === 0) return {};
    const fields = { resume: patch };
    const forced = this.material || Object.values(patch).some((v) => v === null);
    return forced ? { must: fields, withOthers: fields } : { withOthers: fields };
  }

  /** The pass's path: resumed when every kind resumed, resync when any resynced, else full. */
  summary(): { path: PassPath; reason?: string } | undefined {
    if (this.paths.size === 0) return undefined;
    const all = [...this.paths.values()];
    const reasons = all.filter((p) => p.reason).map((p) => `${p.kind}: ${p.reason}`);
    const path: PassPath = all.every((p) => p.path === 'resumed')
      ? 'resumed'
      : all.some((p) => p.path === 'resync')
        ? 'resync'
        : 'full';
    return reasons.length > 0 ? { path, reason: reasons.join('; ') } : { path };
  }
}
