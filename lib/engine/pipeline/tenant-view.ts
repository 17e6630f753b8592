/**
 * The tenant view of one kind: the listed pages taken in as work for the apply step. What a pass
 * learns here (every source listed, every source wanted on the host) is what GC later compares the
 * host against.
 */
import type { KubeObject } from '../../ports/index.js';
import { remembers } from '../context/convergence.js';
import { type KindMemo, type ObjectVersion, objectVersion } from '../context/in-sync-memo.js';
import type { PassContext } from '../context/pass-context.js';
import { attempt } from '../errors.js';
import {
  type HostFacts,
  type KindModule,
  type KindTurn,
  kindModule,
  type ObjectReference,
  referencesOf,
  translate,
  type Undecided,
} from '../kinds/registry.js';
import { hostName } from '../names/naming.js';
import { sourceKey } from '../names/provenance.js';
import type { TenantSource } from '../names/reverse-mapping.js';
import type { CreateAsk } from '../object/kind-traits.js';
import { type CompiledKindRule, isExcluded } from '../policy/scope.js';
import type { WorkloadPolicy } from '../policy/workloads.js';

/** What {@link readFacts} answers when a kind's turn could not read its facts. */
export const UNREAD: unique symbol = Symbol('host facts unread');

/**
 * The facts `items` need read from the host (`KindTurn.hostFacts`), or {@link UNREAD} when the
 * read failed: the turn recorded why, and the path takes in nothing more of the kind and skips its
 * GC (a copy must not be collected on an answer never read). A pass-level failure goes on up.
 */
export async function readFacts(
  hostFacts: KindTurn['hostFacts'],
  items: readonly KubeObject[],
): Promise<HostFacts | undefined | typeof UNREAD> {
  if (!hostFacts) return undefined;
  const read = await attempt(() => hostFacts(items));
  return read.ok ? read.value : UNREAD;
}

/** One tenant object to apply: its desired host object and where it came from. */
export interface ApplyItem {
  desired: KubeObject;
  source: TenantSource;
  /** What it refers to and must exist on the host before it is created (`references.ts`). */
  requires?: ObjectReference[];
  /**
   * Why it must not be created when it has no host copy: a tenant Pod that ran on the host
   * (bound to its copy's node) whose copy the host deleted ends instead (`kinds/pod/endings.ts`).
   */
  noRecreate?: string;
  /** The tenant object's uid and resourceVersion, which the in-sync memo records. */
  version?: ObjectVersion;
  /** What its create asks of the host beyond `desired` (a Service's cluster IPs). */
  ask?: CreateAsk;
  /**
   * Why it waits for a decision (a Pod field the engine does not know): nothing is written for
   * it, its copy kept as it is or none made, a Skip saying which (`kind-writes.ts`).
   */
  undecided?: Undecided;
}

/** The in-sync memo of a full path, with the kind's host listing by name to check it against. */
export interface SteadyCheck {
  memo: KindMemo;
  copies: ReadonlyMap<string, KubeObject>;
}

/** What the tenant listing of one kind has shown so far. */
export class TenantView {
  /** Sources that should have a host copy (listed and in scope). */
  readonly desired = new Set<string>();
  /** Every source listed, out-of-scope ones included (to word GC's reason). */
  readonly listed = new Set<string>();
  /**
   * Pods listed while being deleted in the tenant (bound ones wait for a kubelet to confirm),
   * with the grace period they were deleted with: their copies go with the same one.
   */
  readonly ending = new Map<string, number | undefined>();
  /** Tenant objects taken in. */
  count = 0;
  private reportedClusterScoped = false;
  /**
   * The policy's workload part with the tenant API endpoint resolved: the policy's, else the
   * tenant kubeconfig's server (what host Pods reach the tenant apiserver at).
   */
  private readonly workloads: WorkloadPolicy;
  /** What the kind adds to the generic path (`kinds/registry.ts`). */
  private readonly module: KindModule;

  /**
   * @param observe hears each tenant object taken in as work, as listed (the status back of Pods
   * compares what the tenant shows with its host copy), and each source being deleted that the
   * kind's module ends itself (a Pod, whose deletion the engine finishes once its copy is gone).
   */
  constructor(
    private readonly ctx: PassContext,
    private readonly compiled: CompiledKindRule,
    private readonly observe?: (object: KubeObject) => void,
    private readonly steady?: SteadyCheck,
  ) {
    this.module = kindModule(compiled.rule);
    const { policy, tenantApi } = ctx.scope;
    const endpoint = policy.workloads?.tenantApiEndpoint ?? tenantApi.server;
    this.workloads = {
      ...policy.workloads,
      ...(endpoint === undefined ? {} : { tenantApiEndpoint: endpoint }),
    };
  }

  /**
   * Takes in one page: checks each object, records it, and transforms the ones in scope. A
   * malformed object or a failed transform is an error of that object, never of the page.
   * `facts` are what the kind's turn read of the host for this page (`KindTurn.hostFacts`).
   */
  intake(items: readonly KubeObject[], facts?: HostFacts): ApplyItem[] {
    const { ctx } = this;
    const { rule } = this.compiled;
    const work: ApplyItem[] = [];
    for (const object of items) {
      this.count += 1;
      ctx.ledger.sawObject(rule.kind);
      const name = object?.metadata?.name;
      const namespace = object?.metadata?.namespace;
      if (typeof name !== 'string' || name === '') {
        ctx.ledger.errors.add(rule, new Error('a tenant object without a name was ignored'));
        continue;
      }
      if (typeof namespace !== 'string' || namespace === '') {
        this.reportClusterScoped();
        continue;
      }
      if (!this.ofRuleKind(object)) continue;
      const key = sourceKey(namespace, name);
      const excluded = isExcluded(this.compiled, object);
      // A source being deleted in the tenant is gone already as far as the host is concerned. A
      // Pod's copy goes with the Pod's grace period, and the Pod waits for the engine to end it.
      // One the policy leaves out is never ended by this engine, even when bound: another
      // TenantCluster, or the tenant's own kubelet, may be ending it.
      if (object.metadata.deletionTimestamp) {
        if (!excluded && this.module.ending && !this.ending.has(key)) {
          this.ending.set(key, this.module.ending(object));
          this.observe?.(object);
        }
        continue;
      }
      // Taken in before the listing restarted (an expired continue token): applied already.
      if (this.listed.has(key)) continue;
      this.listed.add(key);
      if (excluded) continue;
      this.desired.add(key);
      // The very states found in sync last time: the same answer, without the work. Not with
      // facts read of the host: they may have changed while neither object did.
      if (facts === undefined && this.knownInSync(key, object)) {
        this.observe?.(object);
        continue;
      }
      try {
        // The rule, not the listed item, says what is written: an aggregated API in the tenant
        // controls what its items claim to be.
        const item = { ...object, apiVersion: rule.apiVersion, kind: rule.kind };
        const translation = translate(item, {
          tenant: ctx.scope.tenant,
          hostNamespace: ctx.scope.hostNamespace,
          excludeKeys: this.compiled.excludeKeys,
          workloads: this.workloads,
          ...facts,
        });
        if ('refused' in translation) {
          // Not wanted on the host at all: a copy made before the policy said so is collected.
          this.desired.delete(key);
          this.refuse(object, translation.refused);
          continue;
        }
        const source = {
          tenant: ctx.scope.tenant,
          kind: rule.kind,
          virtualNamespace: namespace,
          virtualName: name,
        };
        const requires = referencesOf(item).filter((ref) => !ref.optional);
        const noRecreate = this.module.noRecreate?.(object, this.workloads);
        const version = objectVersion(object);
        work.push({
          desired: translation.host,
          source,
          ...(requires.length > 0 ? { requires } : {}),
          ...(noRecreate === undefined ? {} : { noRecreate }),
          ...(version === undefined ? {} : { version }),
          ...(translation.ask ? { ask: translation.ask } : {}),
          // Still desired: its copy is no garbage. Not observed: nothing comes back to it either.
          ...(translation.undecided ? { undecided: translation.undecided } : {}),
        });
        if (!translation.undecided) this.observe?.(object);
      } catch (error) {
        ctx.ledger.errors.add(rule, error, { namespace, name });
      }
    }
    return work;
  }

  /**
   * Whether the in-sync memo knows `object` (source key `key`) in sync with its copy, as both are
   * now; an object the retry memory holds goes the whole way, whatever the memo.
   */
  private knownInSync(key: string, object: KubeObject): boolean {
    const { steady, ctx } = this;
    if (!steady) return false;
    const { namespace = '', name } = object.metadata;
    const retry = { kind: this.compiled.rule, op: 'apply' as const, object: { namespace, name } };
    if (remembers(ctx.memory.convergence, retry)) return false;
    return steady.memo.inSync(key, object, steady.copies);
  }

  /** A Skip for an object its kind's translator refuses (a Pod asking for host access). */
  private refuse(object: KubeObject, reason: string): void {
    const { ctx } = this;
    const { namespace = '', name } = object.metadata;
    this.ctx.ledger.decide({
      action: 'Skip',
      rule: this.compiled.rule,
      tenantRef: { namespace, name },
      hostRef: {
        namespace: ctx.scope.hostNamespace,
        name: hostName(name, namespace, ctx.scope.tenant),
      },
      reason,
    });
  }

  /** An item that claims another apiVersion or kind than its rule is an error, never a write. */
  private ofRuleKind(object: KubeObject): boolean {
    const { rule } = this.compiled;
    const claimed = {
      apiVersion: object.apiVersion ?? rule.apiVersion,
      kind: object.kind ?? rule.kind,
    };
    if (claimed.apiVersion === rule.apiVersion && claimed.kind === rule.kind) return true;
    const { namespace, name } = object.metadata;
    this.ctx.ledger.errors.add(
      rule,
      new Error(
        `the tenant listing of ${rule.kind} (${rule.apiVersion}) returned an item that claims to be ${claimed.kind} (${claimed.apiVersion}); it was not synced`,
      ),
      { namespace: namespace ?? '', name },
    );
    return false;
  }

  /** Once per kind: a kind whose objects have no namespace cannot have a host namespace copy. */
  private reportClusterScoped(): void {
    if (this.reportedClusterScoped) return;
    this.reportedClusterScoped = true;
    const { kind } = this.compiled.rule;
    this.ctx.ledger.errors.add(
      this.compiled.rule,
      new Error(`${kind} objects without a namespace cannot be synced; only namespaced kinds can`),
    );
  }
}
