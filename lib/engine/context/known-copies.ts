/**
 * What a pass knows of host copies without asking: the copies it wrote or deleted, and the host
 * listings of the kinds other kinds refer to (a Pod's ConfigMaps, Secrets, claims). A Pod create
 * checks that each required reference has a host copy (`pipeline/references.ts`); without this, it
 * would GET every copy the same pass had just created or listed.
 */
import type { KindRef, KubeObject } from '../../ports/index.js';
import { type ResourceKey, resourceKey } from '../names/resource-key.js';

/** What a pass knows of one host name of a kind. */
export type KnownCopy =
  /** Created or updated by this pass (or, in a dry run, it would be). */
  | { state: 'written' }
  /** Deleted by this pass. */
  | { state: 'deleted' }
  /** In the kind's host listing of this pass as `copy`, or absent from it (`undefined`). */
  | { state: 'listed'; copy: KubeObject | undefined }
  /** Nothing known: the copy must be read. */
  | { state: 'unknown' };

const UNKNOWN: KnownCopy = { state: 'unknown' };

/** The host copies a pass knows of, by kind and host name. */
export class KnownCopies {
  private readonly writes = new Map<string, 'written' | 'deleted'>();
  private readonly listings = new Map<ResourceKey, ReadonlyMap<string, KubeObject>>();

  /** `kinds`: the kinds whose listings are kept (the ones some kind of the policy refers to). */
  constructor(private readonly kinds: ReadonlySet<ResourceKey>) {}

  /** A Decision's write went through (`live`: a create or update; else a delete). */
  wrote(kind: KindRef, hostName: string, live: boolean): void {
    if (!this.kinds.has(resourceKey(kind))) return;
    this.writes.set(`${resourceKey(kind)}/${hostName}`, live ? 'written' : 'deleted');
  }

  /** The kind's complete host listing of this pass, by host name; kept for referenced kinds only. */
  listed(kind: KindRef, byName: ReadonlyMap<string, KubeObject>): void {
    const key = resourceKey(kind);
    if (this.kinds.has(key)) this.listings.set(key, byName);
  }

  /** What the pass knows of the copy `hostName` of `kind`. */
  lookup(kind: KindRef, hostName: string): KnownCopy {
    const key = resourceKey(kind);
    const written = this.writes.get(`${key}/${hostName}`);
    if (written !== undefined) return { state: written };
    const listing = this.listings.get(key);
    return listing ? { state: 'listed', copy: listing.get(hostName) } : UNKNOWN;
  }
}
