/**
 * What the steps of a pass share, in three parts so each step takes what it uses:
 * - the {@link PassScope}: read-only facts of the pass (tenant, pass id, host namespace, clients,
 *   policy, clock, bounds);
 * - the {@link Ledger}: what the pass has done so far (Decisions, object errors, counts,
 *   warnings, terminating copies, bookkeeping writes), changed only through its methods;
 * - the {@link PassMemory}: what crosses passes (the retry memory, the resume points, the
 *   one-shot delete confirmations, the policy re-read before GC).
 */

import { createHash, randomUUID } from 'node:crypto';
import {
  type Clock,
  type ClusterApi,
  type DecisionSink,
  type KindRef,
  type KubeObject,
  systemClock,
} from '../../ports/index.js';
import type { PassBounds } from '../bounds/budget.js';
import type { TenantLister } from '../listing/tenant-listing.js';
import { type ResourceKey, resourceKey } from '../names/resource-key.js';
import { DEFAULT_DELETE_GUARD, type DeleteGuardPolicy, type SyncPolicy } from '../policy/policy.js';
import {
  pendingMove,
  pendingRetirement,
  policyRecheck,
  readRemembered,
} from '../tenant/lifecycle.js';
import { ResumeBook } from '../tenant/resume-point.js';
import { confirmedTokens } from '../tenant/tenant-cluster.js';
import { type Convergence, newConvergence } from './convergence.js';
import { dryRunClient } from './dry-run.js';
import type { Sensitivity } from './error-text.js';
import { type InSyncMemo, type PassMemo, policyDigest } from './in-sync-memo.js';
import { type DecisionInput, Ledger, type PassProgress } from './ledger.js';
import { ReadAhead } from './read-ahead.js';

export { type DecisionInput, Ledger, type PassProgress };

/** The read-only facts of one pass. */
export interface PassScope {
  readonly tenant: string;
  readonly passId: string;
  readonly hostNamespace: string;
  /** The host client; in a dry run it answers writes without sending them (`dry-run.ts`). */
  readonly hostApi: ClusterApi;
  readonly tenantLister: TenantLister;
  /**
   * The tenant client, for what is not a listing: status back, Nodes, tokens, Events back. In a
   * dry run its writes are answered without being sent.
   */
  readonly tenantApi: ClusterApi;
  /** Whether this pass is a dry run: recorded on its Decisions, never a switch in a step. */
  readonly dryRun: boolean;
  readonly bounds: PassBounds;
  readonly policy: SyncPolicy;
  /** The mass-delete guard of the policy (its default when the policy names none). */
  readonly deleteGuard: DeleteGuardPolicy;
  readonly clock: Clock;
}

/** What crosses passes: read from the TenantCluster at the start, written back at the end. */
export interface PassMemory {
  /** Retry memory and the kinds sharing the write budget (`convergence.ts`). */
  readonly convergence: Convergence;
  /** Resume points: which path each kind takes, what the next pass resumes from. */
  readonly resume: ResumeBook;
  /** The one-shot confirmations of held deletions on the TenantCluster. */
  readonly confirmedDeletes: ReadonlySet<string>;
  /** Re-reads the policy before GC; says why GC must wait when it changed (see lifecycle.ts). */
  readonly recheckPolicy: () => Promise<string | undefined>;
  /** What the process remembers of copies found in sync (`in-sync-memo.ts`), if it keeps any. */
  readonly inSync?: PassMemo;
}

/** The state one pass threads through its steps. */
export interface PassContext {
  readonly scope: PassScope;
  readonly ledger: Ledger;
  readonly memory: PassMemory;
  /** Reads started ahead of the step that takes them, settled once by the pass (`read-ahead.ts`). */
  readonly readAhead: ReadAhead;
}

/** What a pass knows when it builds its context. */
export interface PassContextInputs {
  tenant: string;
  hostApi: ClusterApi;
  tenantLister: TenantLister;
  /** The tenant client (status back, Nodes, tokens, Events back). */
  tenantApi: ClusterApi;
  passId?: string;
  dryRun: boolean;
  bounds: PassBounds;
  sinks?: readonly DecisionSink[];
  onProgress?: (progress: PassProgress) => void;
  tenantCluster: KubeObject;
  policy: SyncPolicy;
  /** Dates the retry memory (default: the system clock). */
  clock?: Clock;
  /** Which path the kinds take: resumed where a resume point allows, or every kind in full. */
  path?: PathMode;
  /** The caller's in-sync memo, kept across passes (never used by a dry run). */
  memo?: InSyncMemo;
  /** The kinds a kind may refer to (`kinds/registry.ts`): applied before it, whatever the order. */
  referencedKinds: (kind: KindRef) => readonly KindRef[];
  /** Which kinds' errors withhold the server's message (`kinds/registry.ts`, `isSensitiveKind`). */
  sensitiveKind: Sensitivity;
}

/**
 * How a pass lists: `auto` resumes each kind from its stored point where it can (and keeps
 * points for the next pass); `full` lists every kind in full on both sides (`--full`);
 * `full-only` also keeps no resume point (incremental passes off).
 */
export type PathMode = 'auto' | 'full' | 'full-only';

/** The context of a new pass, with nothing spent or decided yet. */
export function newPassContext(inputs: PassContextInputs): PassContext {
  const { tenant, hostApi, bounds, policy, tenantCluster, tenantLister } = inputs;
  const passId = inputs.passId ?? randomUUID();
  // With fewer writes than kinds, which kinds get one this pass: a different window each pass.
  bounds.rotateTurns(
    Number.parseInt(createHash('sha256').update(passId).digest('hex').slice(0, 8), 16),
  );
  const clock = inputs.clock ?? systemClock;
  const path = inputs.path ?? 'auto';
  const scope: PassScope = {
    tenant,
    passId,
    hostNamespace: policy.hostNamespace,
    hostApi,
    tenantLister,
    tenantApi: inputs.dryRun ? dryRunClient(inputs.tenantApi) : inputs.tenantApi,
    dryRun: inputs.dryRun,
    bounds,
    policy,
    deleteGuard: policy.deleteGuard ?? DEFAULT_DELETE_GUARD,
    clock,
  };
  const remembered = readRemembered(tenantCluster);
  // While copies wait in a namespace the tenant moved away from, every kind is listed in full, so
  // the retirement knows which sources still want a copy (see `Ledger.listedWanted`).
  const moving = pendingMove(remembered, policy);
  const ledger = new Ledger(
    {
      tenant,
      passId,
      dryRun: inputs.dryRun,
      keepWanted: moving,
      referenced: referenced(policy, inputs.referencedKinds),
      sensitive: inputs.sensitiveKind,
    },
    bounds,
    inputs.sinks ?? [],
    inputs.onProgress,
  );
  const memory: PassMemory = {
    confirmedDeletes: confirmedTokens(tenantCluster.metadata.annotations),
    recheckPolicy: policyRecheck(hostApi, tenant, policy),
    convergence: newConvergence(
      tenantCluster.status,
      policy.toHost,
      clock,
      pendingRetirement(remembered, policy),
    ),
    resume: new ResumeBook(tenantCluster, policy.hostNamespace, {
      full: path !== 'auto',
      moving,
      incremental: path !== 'full-only',
      canWatch: tenantLister.canWatch,
      nowMs: () => clock.now(),
    }),
    ...(inputs.memo && !inputs.dryRun
      ? {
          inSync: inputs.memo.forPass(
            tenant,
            policyDigest(tenantCluster.spec, inputs.tenantApi.server),
          ),
        }
      : {}),
  };
  return { scope, ledger, memory, readAhead: new ReadAhead() };
}

/** The kinds some kind of the policy refers to (a Pod's ConfigMaps, Secrets, claims). */
function referenced(
  policy: SyncPolicy,
  referencedKinds: (kind: KindRef) => readonly KindRef[],
): ReadonlySet<ResourceKey> {
  return new Set(policy.toHost.flatMap((rule) => referencedKinds(rule).map(resourceKey)));
}
