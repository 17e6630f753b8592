/**
 * Gateways from the host: after the classes, the host Gateways `spec.workloads.gateways.parents`
 * lets the tenant's routes attach to get read-only copies in the tenant, in the namespace and
 * name the routes' `parentRefs` give them, with the host Gateway's status (addresses, conditions,
 * listeners). A copy follows its host Gateway, an edit of it is undone, a deleted one comes back,
 * and it goes once the policy stops listing the Gateway or the host Gateway is gone. A Gateway
 * the policy does not list is never read, so never shown. A tenant Gateway the engine did not
 * make for this tenant is never touched (a Skip). The engine makes no tenant namespace: a copy
 * whose namespace the tenant lacks is a Skip (routes attach to the host Gateway either way).
 *
 * Per pass with Gateways listed or remembered (`status.fromHostKinds`): one GET per listed host
 * Gateway (the engine reads no other), one LIST of the tenant's Gateways, a LIST of the tenant's
 * namespaces only when a copy is to be created, then only the writes that something changed.
 */
import type { KubeObject, ObjectRef } from '../../ports/index.js';
import type { PassContext } from '../context/pass-context.js';
import { TenantCopyWriter } from '../context/tenant-copies.js';
import { attempt } from '../errors.js';
import { listEveryPage } from '../listing/every-page.js';
import { deleteAsRead } from '../names/preconditions.js';
import { isolationOf } from '../policy/workloads.js';
import type { Remembered } from '../tenant/lifecycle.js';
import { isOurClassCopy, planClassCopy } from './class-copy.js';
import {
  type AllowedGateway,
  allowedGateways,
  GATEWAY,
  gatewayCopy,
  gatewayKey,
  gatewayStatus,
  mergePatch,
} from './gateway-copy.js';
import { syncHostClasses } from './host-classes.js';

const WHERE = 'spec.workloads.gateways.parents';
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' } as const;

/** The Gateway copies of one pass. */
class GatewayImport {
  /** Whether every copy that should go is gone (the kind may then be forgotten). */
  clean = true;
  private readonly writer: TenantCopyWriter;
  private namespaces: Promise<ReadonlySet<string> | undefined> | undefined;

  constructor(private readonly ctx: PassContext) {
    this.writer = new TenantCopyWriter(ctx, GATEWAY, 'tenant Gateway');
  }

  /** Converges the copies: one per allowed host Gateway, deletes for the rest of ours. */
  async sync(allowed: readonly AllowedGateway[]): Promise<void> {
    const { ctx } = this;
    const { tenantApi, bounds } = ctx.scope;
    const listed = await attempt(() => listEveryPage(tenantApi, GATEWAY, bounds.budget.pageSize));
    if (!listed.ok) return this.failed('tenant', listed.error);
    const inTenant = new Map(listed.value.map((g) => [gatewayKey(refOf(g)), g]));
    // Gateways whose copy stays as it is: shown, or not known this pass (a failed read).
    const kept = new Set<string>();
    const gone = new Map<string, string>();
    for (const entry of allowed) {
      const key = gatewayKey(entry);
      const host = await attempt(() => ctx.scope.hostApi.get(GATEWAY, entry.namespace, entry.name));
      if (!host.ok) {
        // That Gateway's error: its copy stays as it is, the others still converge.
        const { errors } = ctx.ledger;
        const ref = { namespace: entry.namespace, name: entry.name };
        errors.add(GATEWAY, host.error, ref, ref);
        errors.kindIncomplete(GATEWAY, `host Gateway ${key} could not be read: its copy waits`);
        this.unclean();
        kept.add(key);
        continue;
      }
      if (!host.value) {
        const reason = `${WHERE} names Gateway ${key}, which the host does not have: nothing to show`;
        this.writer.decide('Skip', entry, reason);
        gone.set(key, `host Gateway ${key} is gone: its tenant copy goes too`);
        continue;
      }
      if (await this.converge(entry, host.value, inTenant.get(key))) kept.add(key);
      else gone.set(key, `host Gateway ${key} has none of the allowed listeners: its copy goes`);
    }
    for (const [key, copy] of [...inTenant].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (kept.has(key) || !isOurClassCopy(copy, ctx.scope.tenant)) continue;
      if (copy.metadata.deletionTimestamp) continue;
      const reason = gone.get(key) ?? `${WHERE} no longer lists Gateway ${key}: its copy goes`;
      const written = await this.writer.write(
        'Delete',
        refOf(copy),
        reason,
        () => deleteAsRead(tenantApi, GATEWAY, copy, undefined),
        { whenSpent: () => this.unclean() },
      );
      if (written === 'changed' || written === 'failed') this.unclean();
    }
  }

  private unclean(): void {
    this.clean = false;
  }

  private failed(side: 'host' | 'tenant', error: unknown): void {
    this.ctx.ledger.errors.listingFailed(GATEWAY, side, error, 'its tenant copies wait');
    this.unclean();
  }

  /** The copy of one allowed host Gateway. @returns whether a copy of ours may stay. */
  private async converge(
    entry: AllowedGateway,
    host: KubeObject,
    observed: KubeObject | undefined,
  ): Promise<boolean> {
    const { tenantApi, tenant } = this.ctx.scope;
    const key = gatewayKey(entry);
    const desired = gatewayCopy(host, entry, tenant);
    if (!desired) {
      const sections = [...(entry.sections ?? [])].join(', ');
      const reason = `${WHERE} allows only listeners ${sections} of Gateway ${key}, which the host Gateway does not have: nothing to show`;
      this.writer.decide('Skip', entry, reason);
      return false;
    }
    if (observed?.metadata.deletionTimestamp) return true; // created anew once it is gone
    const plan = planClassCopy(desired, observed, tenant);
    let current = observed;
    switch (plan.action) {
      case 'Foreign':
        this.writer.decide(
          'Skip',
          entry,
          `the tenant has a Gateway ${key} that tenantplane did not make for this tenant: it is left untouched and host Gateway ${key} (${WHERE}) is not shown; delete the tenant's to see the host's`,
        );
        return true;
      case 'Create': {
        if (!(await this.hasNamespace(entry.namespace))) {
          const reason = `host Gateway ${key} (${WHERE}) is not shown: the tenant has no namespace "${entry.namespace}" (the engine makes none; routes attach to the Gateway either way)`;
          this.writer.decide('Skip', entry, reason);
          return true;
        }
        const reason = `host Gateway ${key} is listed by ${WHERE}: a read-only copy in the tenant`;
        current = await this.send('Create', entry, reason, () => tenantApi.create(plan.body));
        break;
      }
      case 'Update': {
        const what = plan.changed.join(', ');
        const reason = plan.sameDesired
          ? `the tenant copy of host Gateway ${key} differs from it (${what}): written again`
          : `host Gateway ${key} changed (${what}): its tenant copy follows`;
        current = await this.send('Update', entry, reason, () => tenantApi.update(plan.body));
        break;
      }
      case 'Replace': // a Gateway has no field the copy cannot change in place
      case 'InSync':
        break;
    }
    if (current) await this.status(entry, host, current);
    return true;
  }

  /** Sends one write; the object as the server answered, `undefined` when it was not written. */
  private async send(
    action: 'Create' | 'Update',
    at: ObjectRef,
    reason: string,
    request: () => Promise<KubeObject>,
  ): Promise<KubeObject | undefined> {
    let answer: KubeObject | undefined;
    const written = await this.writer.write(action, at, reason, async () => {
      answer = await request();
    });
    return written === 'written' ? answer : undefined;
  }

  /** The host Gateway's status on its copy (a merge patch of `/status`, only what differs). */
  private async status(entry: AllowedGateway, host: KubeObject, copy: KubeObject): Promise<void> {
    const desired = gatewayStatus(host, entry, generationOf(copy));
    const observed = copy.status && typeof copy.status === 'object' ? copy.status : {};
    const patch = mergePatch(desired, observed as Record<string, unknown>);
    if (!patch) return;
    const { tenantApi } = this.ctx.scope;
    const reason = `the status of host Gateway ${gatewayKey(entry)} (addresses, conditions, listeners) on its tenant copy`;
    await this.writer.write('Update', entry, reason, () =>
      tenantApi.patchStatus(GATEWAY, entry.namespace, entry.name, patch),
    );
  }

  /** Whether the tenant has `namespace`: its namespaces are listed once a pass, on need. */
  private async hasNamespace(namespace: string): Promise<boolean> {
    const { tenantApi, bounds } = this.ctx.scope;
    this.namespaces ??= attempt(() =>
      listEveryPage(tenantApi, NAMESPACE, bounds.budget.pageSize),
    ).then((listed) => {
      if (listed.ok) return new Set(listed.value.map((n) => n.metadata.name));
      this.ctx.ledger.errors.listingFailed(NAMESPACE, 'tenant', listed.error, 'no copy made');
      return undefined;
    });
    return (await this.namespaces)?.has(namespace) ?? false;
  }
}

/** `metadata.generation`, which a Gateway always has once stored. */
export function generationOf(object: KubeObject): number {
  const { generation } = object.metadata as { generation?: unknown };
  return typeof generation === 'number' ? generation : 1;
}

function refOf(object: KubeObject): ObjectRef {
  return { namespace: object.metadata.namespace ?? '', name: object.metadata.name };
}

/**
 * Converges the tenant's copies of the host Gateways the policy allows (see the module doc), when
 * the policy lists Gateways or `remembered.fromHostKinds` holds `Gateway`. Runs after the classes,
 * on what the write budget has left.
 * @returns `remembered` with `Gateway` among the kinds to remember while the policy lists
 * Gateways or copies of them could not all be removed yet.
 */
export async function syncHostGateways(
  ctx: PassContext,
  remembered: Remembered,
): Promise<Remembered> {
  const { policy, bounds } = ctx.scope;
  const parents = isolationOf(policy.workloads).gateways.parents;
  const { fromHostKinds: before = [], ...rest } = remembered;
  const others = before.filter((k) => k !== GATEWAY.kind);
  const wanted = parents.length > 0;
  let keep = wanted;
  if (wanted || before.includes(GATEWAY.kind)) {
    if (bounds.isStopped()) keep = true;
    else {
      const step = new GatewayImport(ctx);
      await step.sync(allowedGateways(parents));
      keep ||= !step.clean;
    }
  }
  const kinds = keep ? [...others, GATEWAY.kind] : others;
  return kinds.length > 0 ? { ...rest, fromHostKinds: kinds } : rest;
}

/**
 * What the tenant sees of the host, after the kinds: the classes `spec.fromHost` selects
 * ({@link syncHostClasses}), then the Gateways the policy allows ({@link syncHostGateways}).
 * @returns `remembered` with the kinds of copies to remember next.
 */
export async function syncFromHost(ctx: PassContext, remembered: Remembered): Promise<Remembered> {
  return syncHostGateways(ctx, await syncHostClasses(ctx, remembered));
}
