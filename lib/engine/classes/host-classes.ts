/**
 * Classes from the host: after the kinds, the host StorageClasses, IngressClasses,
 * PriorityClasses and RuntimeClasses that `spec.fromHost` selects get read-only copies in the
 * tenant cluster (same name), so tenant charts and admission that name them work. A copy follows
 * its host class and is deleted once the policy stops selecting it or the host class is gone. A
 * tenant class the engine did not make for this tenant is never touched: a Skip says so.
 *
 * Per class kind that the policy names or the TenantCluster remembers (`status.fromHostKinds`):
 * one LIST of the host's classes and one of the tenant's (classes are few: both in full, so a
 * name held by a tenant class is seen), then only the writes that something changed. A failed
 * listing leaves the kind for the next pass (no deletes from an incomplete view); a failed write
 * is that class's error in the pass result.
 */
import type { ClusterApi, KindRef, KubeObject } from '../../ports/index.js';
import { budgetedWrite, passedOn } from '../bounds/budgeted-write.js';
import type { PassContext } from '../context/pass-context.js';
import { TenantCopyWriter } from '../context/tenant-copies.js';
import { attempt } from '../errors.js';
import { listEveryPage } from '../listing/every-page.js';
import { deleteAsRead } from '../names/preconditions.js';
import {
  type CompiledSelection,
  classFieldOf,
  compileSelection,
  HOST_CLASS_FIELDS,
  HOST_CLASS_KINDS,
  type HostClassField,
  selectedBy,
} from '../policy/from-host.js';
import type { Remembered } from '../tenant/lifecycle.js';
import { classCopy, isOurClassCopy, planClassCopy } from './class-copy.js';

/** Every class of `kind` on one side (cluster-scoped), page by page. */
function listClasses(ctx: PassContext, api: ClusterApi, kind: KindRef) {
  return listEveryPage(api, kind, ctx.scope.bounds.budget.pageSize);
}

/** The class copies of one kind, as one pass sees them. */
class ClassKind {
  /** Whether every copy that should go is gone (the kind may then be forgotten). */
  clean = true;

  constructor(
    private readonly ctx: PassContext,
    private readonly tenantApi: ClusterApi,
    private readonly kind: KindRef,
    private readonly field: HostClassField,
  ) {
    this.writer = new TenantCopyWriter(ctx, kind, 'tenant class');
  }

  private readonly writer: TenantCopyWriter;

  private get where(): string {
    return `spec.fromHost.${this.field}`;
  }

  private decide(...args: Parameters<TenantCopyWriter['decide']>): void {
    this.writer.decide(...args);
  }

  /** Runs one write; true when it is done (a delete: the copy is gone). */
  private async write(...args: Parameters<TenantCopyWriter['write']>): Promise<boolean> {
    const [action] = args;
    const written = await this.writer.write(...args);
    // A copy that should go and is still there keeps the kind from being forgotten.
    if (written === 'changed' || (written === 'failed' && action === 'Delete')) this.clean = false;
    return written === 'written' || written === 'gone';
  }

  private listingFailed(side: 'host' | 'tenant', error: unknown): void {
    this.ctx.ledger.errors.listingFailed(
      this.kind,
      side,
      error,
      'its tenant copies wait for the next pass',
    );
    this.clean = false;
  }

  /** Converges the kind: copies for the selected host classes, deletes for the rest of ours. */
  async sync(selection: CompiledSelection | undefined): Promise<void> {
    const { ctx, kind, tenantApi } = this;
    const host = await attempt(async () =>
      selection ? await listClasses(ctx, ctx.scope.hostApi, kind) : [],
    );
    if (!host.ok) return this.listingFailed('host', host.error);
    const tenant = await attempt(() => listClasses(ctx, tenantApi, kind));
    if (!tenant.ok) return this.listingFailed('tenant', tenant.error);
    const hostClasses = host.value;
    const tenantClasses = tenant.value;
    const inTenant = new Map(tenantClasses.map((c) => [c.metadata.name, c]));
    const onHost = new Map(hostClasses.map((c) => [c.metadata.name, c]));
    const wanted = new Set<string>();
    for (const hostClass of [...hostClasses].sort(byName)) {
      const how = selection && selectedBy(selection, hostClass);
      if (!how) continue;
      wanted.add(hostClass.metadata.name);
      await this.converge(hostClass, inTenant.get(hostClass.metadata.name), how);
    }
    for (const name of [...(selection?.names ?? [])].sort()) {
      if (onHost.has(name)) continue;
      this.decide(
        'Skip',
        name,
        `${this.where} names ${kind.kind} "${name}", which the host does not have: nothing to copy`,
      );
    }
    for (const copy of [...tenantClasses].sort(byName)) {
      const { name } = copy.metadata;
      if (wanted.has(name) || !isOurClassCopy(copy, ctx.scope.tenant)) continue;
      if (copy.metadata.deletionTimestamp) continue;
      await this.remove(copy, this.goneReason(name, selection, onHost));
    }
  }

  private goneReason(
    name: string,
    selection: CompiledSelection | undefined,
    onHost: ReadonlyMap<string, KubeObject>,
  ): string {
    const { kind } = this;
    if (!selection)
      return `spec.fromHost no longer has ${this.field}: the tenant copy of host ${kind.kind} "${name}" goes`;
    if (!onHost.has(name)) return `host ${kind.kind} "${name}" is gone: its tenant copy goes too`;
    return `${this.where} no longer selects host ${kind.kind} "${name}": its tenant copy goes`;
  }

  private async converge(
    hostClass: KubeObject,
    observed: KubeObject | undefined,
    how: 'name' | 'selector',
  ): Promise<void> {
    const { ctx, kind, tenantApi } = this;
    const { name } = hostClass.metadata;
    const by = how === 'name' ? 'by name' : `by labelSelector "${selection(ctx, this.field)}"`;
    if (observed?.metadata.deletionTimestamp) return; // created anew once the tenant lets it go
    const plan = planClassCopy(
      classCopy(hostClass, kind, ctx.scope.tenant),
      observed,
      ctx.scope.tenant,
    );
    switch (plan.action) {
      case 'InSync':
        return;
      case 'Foreign':
        this.decide(
          'Skip',
          name,
          `the tenant has a ${kind.kind} "${name}" that tenantplane did not make for this tenant: it is left untouched and host ${kind.kind} "${name}" (${this.where}, ${by}) is not copied; delete the tenant's to get the host's`,
        );
        return;
      case 'Create': {
        const reason = `host ${kind.kind} "${name}" is selected by ${this.where} (${by}): a read-only copy in the tenant`;
        await this.write('Create', name, reason, () => tenantApi.create(plan.body));
        return;
      }
      case 'Update': {
        const what = plan.changed.join(', ');
        const reason = plan.sameDesired
          ? `the tenant copy of host ${kind.kind} "${name}" differs from it (${what}): written again`
          : `host ${kind.kind} "${name}" changed (${what}): its tenant copy follows`;
        await this.write('Update', name, reason, () => tenantApi.update(plan.body));
        return;
      }
      case 'Replace': {
        // Delete and create are one unit: never a deleted copy without its replacement's turn.
        const why = `replacement: host ${kind.kind} "${name}" changed ${plan.fields.join(', ')}, which a ${kind.kind} cannot change in place`;
        const unit = { writes: 0 }; // both taken with the unit's two
        await budgetedWrite(ctx.scope.bounds, {
          writes: 2,
          whenSpent: () => undefined,
          send: async () => {
            const deleted = await this.write(
              'Delete',
              name,
              `${why}: the tenant copy is deleted`,
              () => deleteAsRead(tenantApi, kind, plan.observed, undefined),
              unit,
            );
            if (deleted)
              await this.write(
                'Create',
                name,
                `${why}: the tenant copy is created anew`,
                () => tenantApi.create(plan.body),
                unit,
              );
          },
          decide: passedOn,
        });
      }
    }
  }

  private async remove(copy: KubeObject, reason: string): Promise<void> {
    const { kind, tenantApi } = this;
    const whenSpent = () => {
      this.clean = false;
    };
    await this.write(
      'Delete',
      copy.metadata.name,
      reason,
      () => deleteAsRead(tenantApi, kind, copy, undefined),
      { whenSpent },
    );
  }
}

function selection(ctx: PassContext, field: HostClassField): string {
  return ctx.scope.policy.fromHost?.[field]?.labelSelector ?? '';
}

function byName(a: KubeObject, b: KubeObject): number {
  return a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
}

/**
 * Converges the tenant's copies of host classes (see the module doc): every class kind the policy
 * names or `remembered.fromHostKinds` lists. Runs after the kinds, on what the write budget has
 * left.
 * @returns `remembered` with the class kinds to remember next: those the policy names, and those
 * whose copies could not all be removed yet.
 */
export async function syncHostClasses(
  ctx: PassContext,
  remembered: Remembered,
): Promise<Remembered> {
  const { policy, bounds, tenantApi } = ctx.scope;
  const { fromHostKinds: before = [], ...rest } = remembered;
  // Kinds remembered for other reasons (the Gateways from the host) are not this step's to forget.
  const keep: string[] = before.filter((kind) => classFieldOf(kind) === undefined);
  for (const field of HOST_CLASS_FIELDS) {
    const kind = HOST_CLASS_KINDS[field];
    const named = policy.fromHost?.[field];
    if (!named && !before.includes(kind.kind)) continue;
    if (bounds.isStopped()) {
      keep.push(kind.kind);
      continue;
    }
    const classes = new ClassKind(ctx, tenantApi, kind, field);
    await classes.sync(named ? compileSelection(named) : undefined);
    if (named || !classes.clean) keep.push(kind.kind);
  }
  return keep.length > 0 ? { ...rest, fromHostKinds: keep } : rest;
}
