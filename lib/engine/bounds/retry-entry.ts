/** The shape of one remembered failure: what the retry memory and its folded overflow share. */

/** One remembered failure, as `status.retries` holds it. */
export interface RetryEntry {
  apiVersion: string;
  kind: string;
  /** `apply` for a create, update or replacement; `delete` for garbage collection. */
  op: 'apply' | 'delete';
  /** The tenant object, `<namespace>/<name>`. */
  object: string;
  /** What the engine wanted when it failed (the desired digest, or the copy's resourceVersion). */
  version: string;
  /** The failure's reason (`Invalid`, `Forbidden`, ...). */
  reason: string;
  failures: number;
  /** RFC 3339: no attempt before this, unless `version` changes. */
  retryAfter: string;
  /** Fields the host refused to update as immutable: the next attempt replaces the copy. */
  replace?: string[];
}
