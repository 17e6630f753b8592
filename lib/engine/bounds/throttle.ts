/**
 * Back-off on 429 as the server says, for one pass: every request of the pass to a cluster goes
 * through {@link throttledClient}. A request answered 429 Too Many Requests with a `Retry-After`
 * waits that long and is sent again when the wait fits its deadline (`retry-after.ts`); meanwhile
 * the pass's other requests to the same cluster wait for the same moment, so the pass as a whole
 * backs off, not one request. A wait that does not fit fails the request with a
 * {@link ThrottledError}, which stops the pass (`PassBounds.backOffIfThrottled`) and tells the
 * caller when the server would take it (`PassResult.throttled.notBefore`).
 *
 * The Decision of an object whose write waited says so (`Ledger.decide` takes the note by the
 * object's name), and the pass result counts the waits of all requests, reads included.
 */
import { setTimeout as sleepFor } from 'node:timers/promises';
import {
  type Clock,
  type ClusterApi,
  ClusterError,
  type ClusterRole,
  currentRequestDeadline,
  isClusterError,
  type KubeObject,
  type ObjectRef,
  type PassResult,
} from '../../ports/index.js';
import { askedText, retryVerdict, waitedText } from './retry-after.js';

/** A 429 the pass did not wait for: the request is left to the next pass. */
export class ThrottledError extends ClusterError {
  /**
   * @param why what the server asked and why the pass did not wait (`retry-after.ts`); the
   * message adds that the request was not sent again.
   */
  constructor(
    readonly side: ClusterRole,
    readonly why: string,
    readonly notBeforeMs: number | undefined,
    cause: ClusterError,
  ) {
    super('TooManyRequests', `${why}: not sent again this pass`, {
      status: cause.status ?? 429,
      ...(cause.retryAfterSeconds === undefined
        ? {}
        : { retryAfterSeconds: cause.retryAfterSeconds }),
      cause,
    });
    this.name = 'ThrottledError';
  }
}

/** The 429s of one pass: when each cluster takes requests again, and what waited. */
export class Throttle {
  /** Per cluster: no request is sent before this (epoch ms). */
  private readonly openAt: Record<ClusterRole, number> = { host: 0, tenant: 0 };
  /** The asks each written object's requests waited for, by `<side>|<namespace>/<name>`. */
  private readonly asks = new Map<string, { side: ClusterRole; seconds: number[] }>();
  /** Requests sent again after waiting as a 429 asked. */
  private retried = 0;
  /** Time the pass held its requests back, per cluster, overlaps counted once. */
  private waitedMs = 0;
  /** The latest moment a request left to the next pass may be sent, as the server said. */
  private notBeforeMs: number | undefined;

  constructor(private readonly clock: Clock) {}

  /** Waits `ms`: on the clock's own time when it has one (a test's), else real time. */
  private async sleep(ms: number): Promise<void> {
    if (this.clock.sleep) await this.clock.sleep(ms);
    else await sleepFor(ms);
  }

  /** Waits until `side` takes requests again, when that fits the request's deadline. */
  async ready(side: ClusterRole): Promise<void> {
    // Never held: no reading of the clock (a test's clock may tick on each reading).
    if (this.openAt[side] === 0) return;
    const waitMs = this.openAt[side] - this.clock.now();
    if (waitMs <= 0) return;
    const deadline = currentRequestDeadline();
    // A request that cannot wait (the status after a deferral) goes now: the server decides.
    if (deadline !== undefined && this.clock.now() + waitMs > deadline.atMs) return;
    await this.sleep(waitMs);
  }

  /**
   * A request to `side` about `target` was answered 429 after `waits` waits: holds `side` as the
   * server asked and returns when to send it again, or throws a {@link ThrottledError}.
   */
  throttled(side: ClusterRole, error: ClusterError, waits: number, target?: ObjectRef): void {
    const nowMs = this.clock.now();
    const seconds = error.retryAfterSeconds;
    const verdict = retryVerdict({
      retryAfterSeconds: seconds,
      nowMs,
      deadline: currentRequestDeadline(),
      waits,
    });
    if (!verdict.wait) {
      if (verdict.notBeforeMs !== undefined) {
        this.notBeforeMs = Math.max(this.notBeforeMs ?? 0, verdict.notBeforeMs);
      }
      const asked = askedText(side, seconds);
      throw new ThrottledError(
        side,
        verdict.why === undefined ? asked : `${asked}, ${verdict.why}`,
        verdict.notBeforeMs,
        error,
      );
    }
    const openAt = nowMs + verdict.waitMs;
    if (openAt > this.openAt[side]) {
      this.waitedMs += openAt - Math.max(this.openAt[side], nowMs);
      this.openAt[side] = openAt;
    }
    this.retried += 1;
    if (target && seconds !== undefined) {
      const key = `${side}|${target.namespace}/${target.name}`;
      const asked = this.asks.get(key) ?? { side, seconds: [] };
      asked.seconds.push(seconds);
      this.asks.set(key, asked);
    }
  }

  /**
   * What the Decision about `refs` (its host and tenant objects) says of the waits its writes
   * made, once: the note is taken.
   */
  takeNote(refs: { hostRef?: ObjectRef; tenantRef?: ObjectRef }): string | undefined {
    const notes: string[] = [];
    for (const [side, ref] of [
      ['host', refs.hostRef],
      ['tenant', refs.tenantRef],
    ] as const) {
      if (!ref) continue;
      const key = `${side}|${ref.namespace}/${ref.name}`;
      const asked = this.asks.get(key);
      if (!asked) continue;
      this.asks.delete(key);
      notes.push(waitedText(asked.side, asked.seconds));
    }
    return notes.length === 0 ? undefined : notes.join('; ');
  }

  /** The pass result's `throttled`, when a server answered any request 429. */
  summary(): PassResult['throttled'] {
    if (this.retried === 0 && this.notBeforeMs === undefined) return undefined;
    return {
      retried: this.retried,
      waitedMs: Math.round(this.waitedMs),
      ...(this.notBeforeMs === undefined
        ? {}
        : { notBefore: new Date(this.notBeforeMs).toISOString() }),
    };
  }
}

/** Sends `request` to `side` through the throttle: waits as a 429 says, or throws. */
async function send<T>(
  throttle: Throttle,
  side: ClusterRole,
  request: () => Promise<T>,
  target?: ObjectRef,
): Promise<T> {
  for (let waits = 0; ; waits++) {
    await throttle.ready(side);
    try {
      return await request();
    } catch (error) {
      if (!isClusterError(error, 'TooManyRequests') || error instanceof ThrottledError) throw error;
      throttle.throttled(side, error, waits, target);
    }
  }
}

function refOf(object: KubeObject): ObjectRef {
  return { namespace: object.metadata.namespace ?? '', name: object.metadata.name ?? '' };
}

/** `api` with every request through `throttle` as `side` (see the module doc). */
export function throttledClient(
  api: ClusterApi,
  side: ClusterRole,
  throttle: Throttle,
): ClusterApi {
  const via = <T>(request: () => Promise<T>, target?: ObjectRef) =>
    send(throttle, side, request, target);
  const overrides: Partial<ClusterApi> = {
    list: (kind, options) => via(() => api.list(kind, options)),
    get: (kind, namespace, name) => via(() => api.get(kind, namespace, name)),
    create: (object, options) => via(() => api.create(object, options), refOf(object)),
    update: (object) => via(() => api.update(object), refOf(object)),
    delete: (kind, namespace, name, preconditions, options) =>
      via(() => api.delete(kind, namespace, name, preconditions, options), {
        namespace: namespace ?? '',
        name,
      }),
    patchStatus: (kind, namespace, name, status) =>
      via(() => api.patchStatus(kind, namespace, name, status), {
        namespace: namespace ?? '',
        name,
      }),
  };
  const { resize, bind, createToken } = api;
  if (resize) overrides.resize = (object) => via(() => resize.call(api, object), refOf(object));
  if (bind) overrides.bind = (binding) => via(() => bind.call(api, binding), refOf(binding));
  if (createToken) {
    overrides.createToken = (namespace, serviceAccount, request) =>
      via(() => createToken.call(api, namespace, serviceAccount, request), {
        namespace,
        name: serviceAccount,
      });
  }
  // Everything else as it is: discovery (cached by the adapter), watches (resume failures are
  // outcomes already), the request count, the server and its certificate authority. The target
  // is an empty object so read-only properties of `api` keep the proxy's invariants.
  return new Proxy({} as ClusterApi, {
    get(_target, property) {
      if (typeof property === 'string' && Object.hasOwn(overrides, property)) {
        return overrides[property as keyof ClusterApi];
      }
      const value: unknown = Reflect.get(api, property);
      return typeof value === 'function' ? value.bind(api) : value;
    },
    has(_target, property) {
      return Reflect.has(api, property);
    },
  });
}

/** What {@link throttledApis} adds: the throttle both clients send through. */
export interface Throttled {
  throttle: Throttle;
}

/** `apis` with both clients through one new {@link Throttle} of the pass, and the throttle. */
export function throttledApis<T extends { hostApi: ClusterApi; tenantApi: ClusterApi }>(
  apis: T,
  clock: Clock,
): T & Throttled {
  const throttle = new Throttle(clock);
  return {
    ...apis,
    hostApi: throttledClient(apis.hostApi, 'host', throttle),
    tenantApi: throttledClient(apis.tenantApi, 'tenant', throttle),
    throttle,
  };
}
