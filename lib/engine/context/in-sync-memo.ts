/**
 * The in-sync memo: what a warm process (a Lambda container between invocations, a long-running
 * CLI) remembers of the copies a full pass found in sync, so the next full pass spends no CPU on
 * an object whose tenant source and host copy are the very objects it compared last time.
 *
 * A full steady pass over 2,000 Pods spends most of its time beyond the LIST floor translating
 * each tenant object and comparing it with its host copy, only to find it in sync again. A
 * Kubernetes object's uid and resourceVersion name one state of it: any write (spec, metadata,
 * status) gives it a new resourceVersion. So when the tenant object and its host copy show the
 * pair they showed when a pass found them in sync, under the same policy, translating and
 * comparing them again must give the same answer; the memo gives it without the work. Everything
 * else about the object still happens (it is counted, wanted, heard by the Pod status back), and
 * any change on either side, or to the policy, or a retry the object owes, goes the whole way.
 *
 * It can only leave out a comparison whose answer is known, never make a write: an entry is a fact
 * ("these two states were in sync under this policy") that stays true. It holds one entry per
 * copy found in sync, forgets what a complete listing no longer shows, and forgets a tenant's
 * entries when its policy changes. A cold process starts empty and compares everything.
 */
import { createHash } from 'node:crypto';
import { stableJson } from '../../common/index.js';
import type { KindRef, KubeObject } from '../../ports/index.js';

/** One state of one object: its uid and resourceVersion. */
export interface ObjectVersion {
  readonly uid: string;
  readonly resourceVersion: string;
}

/** The state `object` is in; `undefined` when it has no uid or no resourceVersion. */
export function objectVersion(object: KubeObject): ObjectVersion | undefined {
  const { uid, resourceVersion } = object.metadata;
  return typeof uid === 'string' && uid !== '' && typeof resourceVersion === 'string'
    ? { uid, resourceVersion }
    : undefined;
}

/** Whether `object` is in state `version`. */
function isAt(object: KubeObject, version: ObjectVersion): boolean {
  const { uid, resourceVersion } = object.metadata;
  return uid === version.uid && resourceVersion === version.resourceVersion;
}

/** What one copy found in sync was compared as. */
interface Entry {
  readonly source: ObjectVersion;
  readonly hostName: string;
  readonly copy: ObjectVersion;
}

/** One kind's entries during one pass: hits and new entries go to the next generation. */
export class KindMemo {
  private readonly next = new Map<string, Entry>();

  constructor(private readonly entries: Map<string, Entry>) {}

  /**
   * Whether tenant object `source` (source key `key`) and the host copy of it in `copies` are the
   * very states found in sync last time (the copy not being deleted).
   */
  inSync(key: string, source: KubeObject, copies: ReadonlyMap<string, KubeObject>): boolean {
    const entry = this.entries.get(key);
    return entry !== undefined && this.holds(key, entry, source, copies.get(entry.hostName));
  }

  /** {@link inSync}, with the copy at hand (the Pod status back's pairs). */
  matches(key: string, source: KubeObject, copy: KubeObject): boolean {
    const entry = this.entries.get(key);
    return entry !== undefined && this.holds(key, entry, source, copy);
  }

  private holds(key: string, entry: Entry, source: KubeObject, copy: KubeObject | undefined) {
    if (!isAt(source, entry.source)) return false;
    if (!copy || copy.metadata.name !== entry.hostName || copy.metadata.deletionTimestamp) {
      return false;
    }
    if (!isAt(copy, entry.copy)) return false;
    this.next.set(key, entry);
    return true;
  }

  /** Takes note of a source (in state `source`) found in sync with `copy`. */
  record(key: string, source: ObjectVersion | undefined, copy: KubeObject | undefined): void {
    const version = copy && objectVersion(copy);
    if (source === undefined || !copy || version === undefined) return;
    this.next.set(key, { source, hostName: copy.metadata.name, copy: version });
  }

  /**
   * Ends the kind's pass: after a complete listing the memo keeps only what it saw in sync now;
   * otherwise it adds that to what it had (an entry of an unseen source is still a true fact).
   */
  end(complete: boolean): void {
    if (complete) this.entries.clear();
    for (const [key, entry] of this.next) this.entries.set(key, entry);
    this.next.clear();
  }
}

/** The entries of one tenant under one policy. */
interface TenantEntries {
  policy: string;
  kinds: Map<string, Map<string, Entry>>;
}

/**
 * The memo a caller keeps across passes and hands to each (`PassOptions.memo`). One per process;
 * it holds the tenants it has seen, each under the policy it last had.
 */
export class InSyncMemo {
  private readonly tenants = new Map<string, TenantEntries>();

  /**
   * The memo of one pass of `tenant`, whose policy digest is `policy` (see {@link policyDigest}):
   * the tenant's entries are forgotten when it changed.
   */
  forPass(tenant: string, policy: string): PassMemo {
    let entries = this.tenants.get(tenant);
    if (!entries || entries.policy !== policy) {
      entries = { policy, kinds: new Map() };
      this.tenants.set(tenant, entries);
    }
    return new PassMemo(entries.kinds);
  }

  /** Entries held, over every tenant and kind (what the memo costs in memory). */
  get size(): number {
    let size = 0;
    for (const { kinds } of this.tenants.values()) {
      for (const entries of kinds.values()) size += entries.size;
    }
    return size;
  }
}

/** The memo as one pass sees it: one {@link KindMemo} per kind. */
export class PassMemo {
  constructor(private readonly kinds: Map<string, Map<string, Entry>>) {}

  /** The memo of `rule`'s kind for this pass. */
  kind(rule: KindRef): KindMemo {
    const key = `${rule.apiVersion}/${rule.kind}`;
    let entries = this.kinds.get(key);
    if (!entries) {
      entries = new Map();
      this.kinds.set(key, entries);
    }
    return new KindMemo(entries);
  }
}

/**
 * The digest of everything a translation reads besides the object: the TenantCluster's spec (the
 * policy, the host namespace), and the tenant API server (the default endpoint host Pods get).
 */
export function policyDigest(spec: unknown, tenantServer: string | undefined): string {
  return createHash('sha256')
    .update(stableJson({ spec: spec ?? null, tenantServer: tenantServer ?? null }))
    .digest('hex');
}
