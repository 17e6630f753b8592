/**
 * One pass per tenant at a time, whoever starts it (the scheduled function, a laptop's
 * `tenantplane sync`): a `coordination.k8s.io/v1` Lease `tenantplane-<tenant>` in the tenant's
 * lease namespace, {@link leaseNamespaceOf}: the first host namespace its status remembers, which
 * does not move with `spec.hostNamespace` (two passes that read different host namespaces during
 * a move contend for the same Lease), and moves only when a pass holding the lease there found it
 * clean and forgot it. It is taken only when the pass is about to make its first write, on the
 * host or on the tenant (`lease-guard.ts`), so a steady pass that changes nothing makes no write
 * for it; taken with create
 * semantics (AlreadyExists: someone holds it), or, when the holder's lease has expired or was
 * released, by an update carrying the resourceVersion read (Conflict: someone else was faster).
 * It is held until the pass's last request may end (the deadline plus the reporting reserve);
 * without a deadline it lasts 15 minutes and is renewed every third of that while the pass runs
 * (a renewal that finds it taken over, or that cannot be made before it expires, refuses every
 * later write as a held lease does). It is released (deleted, with uid and resourceVersion
 * preconditions) when the pass ends. A crashed holder's lease simply expires.
 *
 * A pass that finds the lease held makes no writes on either side: {@link LeaseHeldError} ends
 * it, and the pass
 * result says who holds the lease and since when. A host that does not answer fails the write
 * waiting for the lease. A lease the server refuses for another reason (no RBAC grant for leases
 * yet, a server error) does not stop a pass: every write the engine
 * makes is safe on its own (create-only, resourceVersion and uid preconditions), so the pass goes
 * on unprotected and says so in a warning. A follow does not start then (`follow/lease-grants.ts`).
 */
import { hostname } from 'node:os';
import { errorMessage } from '../../common/index.js';
import {
  type Clock,
  type ClusterApi,
  isClusterError,
  type KindRef,
  type KubeObject,
} from '../../ports/index.js';
import { PassError } from '../errors.js';
import { deleteAsRead } from '../names/preconditions.js';

export const LEASE: KindRef = Object.freeze({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
});

/** Without a deadline, how long a pass holds the lease. */
export const DEFAULT_LEASE_MS = 15 * 60_000;

/** The lease of a tenant's passes. */
export function leaseName(tenant: string): string {
  return `tenantplane-${tenant}`;
}

/**
 * Where the tenant's lease lives, read from its TenantCluster: the first remembered host
 * namespace (`status.hostNamespaces[0]`; new namespaces are appended and the first is kept until
 * it is forgotten clean), or `spec.hostNamespace` for a tenant that remembers none yet.
 */
export function leaseNamespaceOf(tenantCluster: KubeObject): string | undefined {
  const status = tenantCluster.status as { hostNamespaces?: unknown } | undefined;
  const remembered = Array.isArray(status?.hostNamespaces) ? status.hostNamespaces : [];
  if (typeof remembered[0] === 'string' && remembered[0] !== '') return remembered[0];
  const spec = tenantCluster.spec as { hostNamespace?: unknown } | undefined;
  return typeof spec?.hostNamespace === 'string' ? spec.hostNamespace : undefined;
}

/** Runs `renew` every `ms` until the returned function is called (`setInterval`, unref'd). */
export type RenewTimer = (ms: number, renew: () => void) => () => void;

const intervalTimer: RenewTimer = (ms, renew) => {
  const timer = setInterval(renew, ms);
  timer.unref?.();
  return () => clearInterval(timer);
};

/** Who holds a lease, as an operator reads it. */
export interface LeaseHolding {
  /** `<namespace>/<name>` of the Lease. */
  lease: string;
  holder: string;
  /** When the holder took it (ISO-8601). */
  since: string;
  /** When it expires unless released (ISO-8601). */
  expires: string;
}

/** Another pass holds the tenant's lease: this pass must not write. */
export class LeaseHeldError extends PassError {
  constructor(
    readonly holding: LeaseHolding,
    /** Set when the pass held the lease and lost it while it ran (a failed renewal). */
    readonly lost = false,
  ) {
    super(
      lost
        ? `this pass lost the tenant's lease ${holding.lease} while it ran (now held by ${holding.holder}, since ${holding.since}, expires ${holding.expires}); it made no further writes`
        : `another pass holds the tenant's lease ${holding.lease} (holder ${holding.holder}, since ${holding.since}, expires ${holding.expires}); this pass made no writes`,
    );
    this.name = 'LeaseHeldError';
  }
}

/** Kubernetes MicroTime: RFC 3339 with exactly six fractional digits. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function holdingOf(lease: KubeObject): LeaseHolding & { expiresMs: number } {
  const spec = (lease.spec ?? {}) as Record<string, unknown>;
  const renew = Date.parse(String(spec.renewTime ?? spec.acquireTime ?? ''));
  const seconds = typeof spec.leaseDurationSeconds === 'number' ? spec.leaseDurationSeconds : 0;
  const expiresMs = Number.isFinite(renew) ? renew + seconds * 1000 : 0;
  return {
    lease: `${lease.metadata.namespace}/${lease.metadata.name}`,
    holder: typeof spec.holderIdentity === 'string' ? spec.holderIdentity : '',
    since: String(spec.acquireTime ?? spec.renewTime ?? 'an unknown time'),
    expires: new Date(expiresMs).toISOString(),
    expiresMs,
  };
}

/** The lease of one pass: taken at its first write, released at its end. */
export class TenantLease {
  /** Lease requests, kept out of the pass's `requests` like its status write. */
  readonly spent = { reads: 0, writes: 0 };
  /** Set when another pass held the lease: every later write is refused without a request. */
  refused: LeaseHeldError | undefined;
  /** Why the lease could not be taken (the pass went on without it), when that happened. */
  unavailable: string | undefined;
  /** The server's words when the lease could not be taken. */
  unavailableCause: string | undefined;
  /**
   * Where the lease lives, once the pass read its TenantCluster (`leaseNamespaceOf`): writes that
   * name no host namespace of their own (the tenant's objects, the TenantCluster) take it there.
   */
  namespace: string | undefined;
  private taking: Promise<void> | undefined;
  private taken: KubeObject | undefined;
  private stopRenewing: (() => void) | undefined;
  private renewing: Promise<void> | undefined;
  readonly holder: string;

  constructor(
    private readonly hostApi: ClusterApi,
    private readonly tenant: string,
    passId: string,
    private readonly clock: Clock,
    /** Epoch ms until which the pass may still make requests (its lease then expires). */
    private readonly untilMs: number | undefined,
    private readonly timer: RenewTimer = intervalTimer,
  ) {
    this.holder = `tenantplane pass ${passId} (${hostname()}, pid ${process.pid})`;
  }

  /**
   * Takes the lease in `namespace` (default: {@link namespace}) once; later calls wait for the
   * same outcome.
   * @throws LeaseHeldError when another pass holds it; PassError when no namespace is known yet.
   */
  take(namespace: string | undefined = this.namespace): Promise<void> {
    if (this.refused) return Promise.reject(this.refused);
    if (this.taking) return this.taking;
    if (namespace === undefined) {
      // A write before the TenantCluster was read cannot say where the lease lives: refused.
      const where = `a write came before the TenantCluster ${this.tenant} was read`;
      return Promise.reject(new PassError(`${where}: the lease could not be located; not sent`));
    }
    this.taking = this.acquire(namespace).catch((error: unknown) => {
      // Held: the pass ends. No answer at all: the write would fare no better, it fails with it.
      if (error instanceof LeaseHeldError || isClusterError(error, 'Transport')) throw error;
      this.unavailableCause = errorMessage(error);
      this.unavailable = `could not take the tenant's lease ${namespace}/${leaseName(this.tenant)}, so this pass ran without it: ${this.unavailableCause}`;
    });
    return this.taking;
  }

  /** Deletes the lease this pass took (best effort: it expires anyway). */
  async release(): Promise<void> {
    this.stopRenewing?.();
    this.stopRenewing = undefined;
    await this.renewing;
    const taken = this.taken;
    if (!taken?.metadata.uid) return;
    this.taken = undefined;
    this.spent.writes += 1;
    try {
      await deleteAsRead(this.hostApi, LEASE, taken);
    } catch {
      // Gone or changed already; an unreleased lease expires at its deadline.
    }
  }

  private spec(now: number, transitions: number): Record<string, unknown> {
    const until = this.untilMs ?? now + DEFAULT_LEASE_MS;
    return {
      holderIdentity: this.holder,
      leaseDurationSeconds: Math.max(1, Math.ceil((until - now) / 1000) + 1),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: transitions,
    };
  }

  private async acquire(namespace: string): Promise<void> {
    const name = leaseName(this.tenant);
    const now = this.clock.now();
    try {
      this.spent.writes += 1;
      this.taken = await this.hostApi.create({
        ...LEASE,
        metadata: { name, namespace },
        spec: this.spec(now, 0),
      });
      this.keepRenewed();
      return;
    } catch (error) {
      if (!isClusterError(error, 'AlreadyExists')) throw error;
    }
    this.spent.reads += 1;
    const current = await this.hostApi.get(LEASE, namespace, name);
    if (!current) throw new Error('it was released while read');
    const holding = holdingOf(current);
    if (holding.holder !== '' && holding.expiresMs > now) throw this.refuse(holding);
    // Expired (its holder crashed) or released: take it over with the resourceVersion read.
    const spec = current.spec as Record<string, unknown> | undefined;
    const transitions = typeof spec?.leaseTransitions === 'number' ? spec.leaseTransitions : 0;
    try {
      this.spent.writes += 1;
      this.taken = await this.hostApi.update({ ...current, spec: this.spec(now, transitions + 1) });
      this.keepRenewed();
    } catch (error) {
      if (!isClusterError(error, 'Conflict')) throw error;
      this.spent.reads += 1;
      const winner = await this.hostApi.get(LEASE, namespace, name).catch(() => undefined);
      throw this.refuse(winner ? holdingOf(winner) : { ...holding, holder: 'another pass' });
    }
  }

  /**
   * Without a deadline the lease lasts {@link DEFAULT_LEASE_MS}: renew it every third of that
   * while the pass runs. With a deadline it already lasts until the pass's last request may end.
   */
  private keepRenewed(): void {
    if (this.untilMs !== undefined || this.stopRenewing) return;
    this.stopRenewing = this.timer(DEFAULT_LEASE_MS / 3, () => {
      this.renewing ??= this.renew().finally(() => {
        this.renewing = undefined;
      });
    });
  }

  /**
   * Moves `renewTime` to now, with the resourceVersion of the lease as this pass wrote it. Taken
   * over or deleted meanwhile: every later write is refused. Not answered: tried again at the
   * next tick, unless less than a third of the lease would be left by then: later writes are
   * refused too.
   */
  private async renew(): Promise<void> {
    const taken = this.taken;
    if (!taken || this.refused) return;
    const now = this.clock.now();
    const spec = (taken.spec ?? {}) as Record<string, unknown>;
    try {
      this.spent.writes += 1;
      const renewed = await this.hostApi.update({
        ...taken,
        spec: {
          ...spec,
          leaseDurationSeconds: DEFAULT_LEASE_MS / 1000,
          renewTime: microTime(now),
        },
      });
      if (this.taken === taken) this.taken = renewed;
    } catch (error) {
      if (isClusterError(error, 'Conflict') || isClusterError(error, 'NotFound')) {
        this.spent.reads += 1;
        const current = await this.hostApi
          .get(LEASE, taken.metadata.namespace, taken.metadata.name)
          .catch(() => undefined);
        const holding = current ? holdingOf(current) : { ...holdingOf(taken), holder: 'nobody' };
        this.taken = undefined;
        this.refuse({ ...holding, holder: holding.holder || 'nobody' }, true);
        this.stopRenewing?.();
        return;
      }
      // The next try would leave less than a third of the lease for the writes in flight.
      if (now + (2 * DEFAULT_LEASE_MS) / 3 > holdingOf(taken).expiresMs) {
        const holder = `nobody (it could not be renewed: ${errorMessage(error)})`;
        this.refuse({ ...holdingOf(taken), holder }, true);
        this.stopRenewing?.();
      }
    }
  }

  private refuse(holding: LeaseHolding, lost = false): LeaseHeldError {
    const { lease, holder, since, expires } = holding;
    this.refused = new LeaseHeldError({ lease, holder, since, expires }, lost);
    return this.refused;
  }
}
