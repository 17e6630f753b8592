/**
 * Byte-aware page sizes: a LIST page is `limit` objects whatever their size, so a page of 500
 * ConfigMaps of 1 MiB would be 500 MiB of response and parsed objects. Each listing (one kind, one
 * side) asks first for the configured page size, then for as many objects as fit
 * {@link PAGE_BYTES} at the largest object size seen so far in the listing (a page's average when
 * only its length is known), never more than the page size. What has not been seen yet is bounded
 * by the client: every page is asked for with {@link PageSizer.maxBytes}, so a first page of large
 * objects, or a run of tiny objects followed by large ones, is cut off (`TooLarge`) instead of
 * read whole. The listing then asks again from the same place for as many objects as fit
 * {@link PAGE_BYTES} at the largest object size an apiserver stores (10; half as many when the
 * page cut off was that small already), and from there on the limit at most doubles from one page
 * to the next. Small objects thus cost no request more than the page size allows; a listing of
 * large ones pays one cut-off read (at most {@link PAGE_CUTOFF_FACTOR} x {@link PAGE_BYTES}),
 * rarely more.
 */
import { isClusterError, type ListPage } from '../../ports/index.js';

/** A page read, or why it could not be: a page read ahead must never reject unawaited. */
export type PageRead = { page: ListPage } | { error: unknown };

/**
 * `read` as a {@link PageRead}, which never rejects: a listing reads its next page while it works
 * on this one (one page ahead), and a stop may leave that read unused.
 */
export function settlePage(read: Promise<ListPage>): Promise<PageRead> {
  return read.then(
    (page) => ({ page }),
    (error: unknown) => ({ error }),
  );
}

/** The object data one LIST page should carry (estimated, see {@link approxBytes}). */
export const PAGE_BYTES = 16 * 1024 * 1024;

/** The largest object etcd stores by default (`--max-request-bytes`, 1.5 MiB). */
export const LARGEST_OBJECT_BYTES = 1.5 * 1024 * 1024;

/**
 * About how many bytes `value` takes as JSON, without serialising it (no allocation): strings
 * and keys by their length, numbers and literals by a small constant.
 */
export function approxBytes(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (value === null || typeof value !== 'object') return 8;
  let bytes = 2;
  if (Array.isArray(value)) {
    for (const element of value) bytes += approxBytes(element) + 1;
    return bytes;
  }
  for (const [key, member] of Object.entries(value)) {
    if (member !== undefined) bytes += key.length + 4 + approxBytes(member);
  }
  return bytes;
}

/** The most response one page may take before it is cut off: twice {@link PAGE_BYTES}. */
export const PAGE_CUTOFF_FACTOR = 2;

/** The `limit` (and the byte cut-off) of each page of one listing. */
export class PageSizer {
  /** The limit of the next page. */
  limit: number;
  /** The largest object seen so far (a page's average when only the response size is known). */
  private largest = 0;
  /** Set once a page was cut off: the limit then grows at most twofold per page. */
  private ramping = false;

  constructor(
    private readonly pageSize: number,
    private readonly pageBytes: number = PAGE_BYTES,
  ) {
    this.limit = this.clamp(pageSize);
  }

  /**
   * The byte cut-off of the next page, or `undefined` for a page of one object (which must be
   * readable however large it is).
   */
  get maxBytes(): number | undefined {
    return this.limit > 1 ? PAGE_CUTOFF_FACTOR * this.pageBytes : undefined;
  }

  /**
   * Learns from a page received: the next limit fits {@link PAGE_BYTES} at the largest object
   * seen so far (once a page was cut off, at most twice this one). The size is the response's own
   * (`ListPage.bytes`) when the client knows it, which costs nothing (its average is then the
   * largest this page tells); otherwise every item is weighed with {@link approxBytes}.
   */
  observe(items: readonly unknown[], responseBytes?: number): void {
    if (items.length === 0) return;
    let bytes = responseBytes ?? 0;
    if (responseBytes === undefined) {
      for (const item of items) {
        const weight = approxBytes(item);
        bytes += weight;
        this.largest = Math.max(this.largest, weight);
      }
    }
    this.learn(Math.max(1, bytes / items.length));
  }

  /** The next limit, from a page's average object size. */
  private learn(average: number): void {
    this.largest = Math.max(this.largest, average);
    const fits = Math.floor(this.pageBytes / this.largest);
    this.limit = this.clamp(this.ramping ? Math.min(fits, 2 * this.limit) : fits);
  }

  /**
   * Learns from a page's response length alone, before its items are parsed, as if it held
   * `count` objects (the limit it was asked with): what a listing asks its next page with while
   * this one is parsed. Its {@link observe} follows, with what the page really held.
   */
  observeLength(count: number, responseBytes: number): void {
    this.learn(Math.max(1, responseBytes / Math.max(1, count)));
  }

  /**
   * The page was cut off at {@link maxBytes}: ask again with as many objects as fit
   * {@link PAGE_BYTES} at the largest size an apiserver stores (or half of a limit already that
   * small), growing from there at most twofold per page.
   */
  cutOff(): void {
    this.ramping = true;
    const safe = this.clamp(Math.floor(this.pageBytes / LARGEST_OBJECT_BYTES));
    this.limit = this.limit > safe ? safe : this.clamp(Math.floor(this.limit / 2));
  }

  private clamp(limit: number): number {
    return Math.max(1, Math.min(this.pageSize, limit));
  }
}

/** Whether a failed page read was cut off at its byte limit (the listing asks again, smaller). */
export function wasCutOff(error: unknown): boolean {
  return isClusterError(error, 'TooLarge');
}
