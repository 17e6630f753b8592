/**
 * What bounds a stream: at most `maxStreamsPerTenant` at once per tenant, an idle timeout (no
 * byte either way) and a total timeout; either side closing ends it, and ending it closes every
 * connection it holds (downstream and upstream) exactly once. Counted, never with content.
 */

export interface StreamLimits {
  /** Milliseconds without a byte in either direction before a stream is ended. */
  idleTimeoutMs: number;
  /** Milliseconds a stream may last at all. */
  totalTimeoutMs: number;
  /** Streams one tenant may hold open at once; more are refused (429). */
  maxStreamsPerTenant: number;
}

export const DEFAULT_LIMITS: StreamLimits = {
  idleTimeoutMs: 15 * 60_000,
  totalTimeoutMs: 4 * 60 * 60_000,
  maxStreamsPerTenant: 32,
};

/** The gateway's counters (what `/metrics`-like logging reports). */
export interface StreamCounts {
  /** Streams open now, per tenant. */
  open: Record<string, number>;
  /** Streams started since the gateway started. */
  started: number;
  /** Requests refused: unknown tenant, not the tenant's Pod, over the limit, bad request. */
  refused: number;
  /** Requests whose client left before their stream began (nothing relayed, no slot taken). */
  left: number;
  /** Streams ended, by how: `done`, `downstream-closed`, `upstream-closed`, `idle`, `total`, `error`, `shutdown`. */
  ended: Record<string, number>;
}

/** Something a stream holds that ending it must close. */
interface Closable {
  destroy(): void;
}

/** The streams of one gateway. */
export class Streams {
  readonly counts: StreamCounts = { open: {}, started: 0, refused: 0, left: 0, ended: {} };
  /** The streams open now (an upgraded connection is no longer the HTTP server's to close). */
  private readonly live = new Set<Stream>();

  constructor(
    readonly limits: StreamLimits,
    private readonly log: (entry: Record<string, unknown>) => void,
  ) {}

  /** Counts one refused request. */
  refuse(entry: Record<string, unknown>): void {
    this.counts.refused += 1;
    this.log({ msg: 'refused', ...entry });
  }

  /** Counts one request whose client left before its stream began (during the Pod check). */
  left(entry: Record<string, unknown>): void {
    this.counts.left += 1;
    this.log({ msg: 'client gone', ...entry });
  }

  /** A slot for one stream of `tenant`, or `undefined` when it holds its limit. */
  open(tenant: string, what: Record<string, unknown>): Stream | undefined {
    const open = this.counts.open[tenant] ?? 0;
    if (open >= this.limits.maxStreamsPerTenant) return undefined;
    this.counts.open[tenant] = open + 1;
    this.counts.started += 1;
    const stream = new Stream(this.limits, (reason, ms) => {
      this.live.delete(stream);
      this.counts.open[tenant] = (this.counts.open[tenant] ?? 1) - 1;
      this.counts.ended[reason] = (this.counts.ended[reason] ?? 0) + 1;
      this.log({ msg: 'stream ended', tenant, ...what, reason, durationMs: ms });
    });
    this.live.add(stream);
    return stream;
  }

  /** Ends every open stream (the gateway is shutting down). */
  endAll(reason: string): void {
    for (const stream of [...this.live]) stream.end(reason);
  }

  /** Streams open now, all tenants. */
  openNow(): number {
    return Object.values(this.counts.open).reduce((a, b) => a + b, 0);
  }
}

/** One stream: its timers and what it holds. */
export class Stream {
  private readonly held: Closable[] = [];
  private readonly started = Date.now();
  private idle: NodeJS.Timeout | undefined;
  private readonly total: NodeJS.Timeout;
  private ended = false;

  constructor(
    private readonly limits: StreamLimits,
    private readonly onEnd: (reason: string, ms: number) => void,
  ) {
    this.total = setTimeout(() => this.end('total'), limits.totalTimeoutMs);
    this.touch();
  }

  /** Holds `c`: closed when the stream ends (at once when it already has). */
  hold(c: Closable): void {
    if (this.ended) c.destroy();
    else this.held.push(c);
  }

  /** A byte moved: the idle timer starts again. */
  touch(): void {
    if (this.ended) return;
    if (this.idle) this.idle.refresh();
    else this.idle = setTimeout(() => this.end('idle'), this.limits.idleTimeoutMs);
  }

  /** Ends the stream with `reason` when `signal` aborts (at once if it has). */
  endOn(signal: AbortSignal, reason: string): void {
    if (signal.aborted) {
      this.end(reason);
      return;
    }
    const end = () => this.end(reason);
    signal.addEventListener('abort', end, { once: true });
    this.hold({ destroy: () => signal.removeEventListener('abort', end) });
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** Ends the stream once: timers cleared, everything held closed, the slot given back. */
  end(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.total);
    if (this.idle) clearTimeout(this.idle);
    for (const c of this.held) c.destroy();
    this.onEnd(reason, Date.now() - this.started);
  }
}
