/**
 * Byte-aware page sizes: a LIST page is `limit` objects whatever their size, so a page of 500
 * ConfigMaps of 1 MiB would be 500 MiB of response and parsed objects. Each listing (one kind, one
 * side) asks for a limit that keeps a page near {@link PAGE_BYTES}: the first page asks for as many
 * objects as fit when each is as large as an apiserver stores by default
 * ({@link LARGEST_OBJECT_BYTES}), every later page for as many as fit at the previous page's
 * average object size, never more than the configured page size. What has been seen bounds it
 * too, so a run of tiny objects followed by large ones cannot ask for `pageSize` large objects:
 * the next limit fits {@link PAGE_BYTES} also at the largest object seen so far in the listing,
 * and it at most doubles from one page to the next (a large object after tiny ones then lands in
 * a page about twice the size of the previous one, not `pageSize` times its own).
 */
import type { ListPage } from '../../ports/index.js';

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

/** The `limit` of each page of one listing. */
export class PageSizer {
  /** The limit of the next page. */
  limit: number;
  /** The largest object seen so far (a page's average when only the response size is known). */
  private largest = 0;

  constructor(
    private readonly pageSize: number,
    private readonly pageBytes: number = PAGE_BYTES,
  ) {
    this.limit = this.clamp(Math.floor(pageBytes / LARGEST_OBJECT_BYTES));
  }

  /**
   * Learns from a page received: the next limit fits {@link PAGE_BYTES} at its average size and
   * at the largest object seen so far, and is at most twice this one. The size is the response's
   * own (`ListPage.bytes`) when the client knows it, which costs nothing (its average is then the
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
    const average = Math.max(1, bytes / items.length);
    this.largest = Math.max(this.largest, average);
    const fits = Math.floor(this.pageBytes / this.largest);
    this.limit = this.clamp(Math.min(fits, 2 * this.limit));
  }

  private clamp(limit: number): number {
    return Math.max(1, Math.min(this.pageSize, limit));
  }
}
