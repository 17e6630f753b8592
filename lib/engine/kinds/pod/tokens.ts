/**
 * The tenant tokens of host Pods: after the Pod kind's writes, every host Pod of the tenant that
 * mounts tenant service-account tokens (the Pod translator names them in an annotation) gets them
 * in its token Secret, minted by the TENANT apiserver (TokenRequest bound to the tenant Pod), and
 * again once they are past 80% of their life. A steady pass reads the tenant's host Pods and
 * token Secrets (one LIST each, paged) and writes nothing on either side; the renewal reads the
 * host Pod, never the tenant. A Secret whose host Pod is gone is deleted by the host's garbage
 * collector (its owner reference), and by a pass that lists the Secrets; a steady pass whose host
 * Pods mount no token does not list them (most tenants' Pods mount none).
 *
 * Tokens are credentials: they go from the TokenRequest answer into the Secret's data and
 * nowhere else. The Decisions and errors are about kind Secret, so every error is reduced to its
 * reason before it reaches Events, status or logs (`context/error-text.ts`).
 */
import { runPool } from '../../../common/index.js';
import {
  type ClusterApi,
  CONFIG_MAP,
  type IssuedToken,
  isClusterError,
  type KindRef,
  type KubeObject,
  type ObjectRef,
  POD,
  SECRET,
} from '../../../ports/index.js';
import type { PassContext } from '../../context/pass-context.js';
import { passWrite } from '../../context/step-write.js';
import { attempt } from '../../errors.js';
import { listEveryPage } from '../../listing/every-page.js';
import { tenantCopySelector } from '../../names/copy-selector.js';
import { Annotations, TOKEN_SECRET_KIND } from '../../names/metadata.js';
import { tokenSecretName } from '../../names/naming.js';
import { CA_KEY, ROOT_CA_CONFIG_MAP } from './translate/token.js';
import {
  type PodTokenNeed,
  podTokenNeed,
  secretTokenNeed,
  tokenDue,
  tokenSecret,
} from './translate/token-secret.js';

/** Whether `kind` is the core Pod kind, whose pass is followed by {@link syncPodTokens}. */
export function isPodKind(kind: KindRef): boolean {
  return kind.apiVersion === POD.apiVersion && kind.kind === POD.kind;
}

/** Every object of `kind` in the host namespace with the tenant's labels, page by page. */
function listAll(ctx: PassContext, kind: KindRef, labelSelector: string) {
  const { hostApi, hostNamespace, bounds } = ctx.scope;
  return listEveryPage(hostApi, kind, bounds.budget.pageSize, {
    namespace: hostNamespace,
    labelSelector,
  });
}

/** What {@link syncPodTokens} reads besides the token Secrets. */
export interface PodTokenOptions {
  /**
   * List the host Pods: to find the ones without a Secret and the Secrets whose Pod is gone.
   * Without it (a resumed pass in which no Pod was written) only renewals are due, and the
   * Secrets alone say when (`secretTokenNeed`).
   */
  listPods: boolean;
  /** The host Pods, listed already (`status-back.ts` shares its listing): not listed again. */
  pods?: readonly KubeObject[];
  /** `pods` is the Pod kind's own listing, in a pass that wrote no Pod (nothing was deleted). */
  steady?: boolean;
}

type Due = { need: PodTokenNeed; secret: KubeObject | undefined; why: string };

/** Mints and keeps the tenant tokens of the tenant's host Pods (see the module doc). */
export async function syncPodTokens(ctx: PassContext, options: PodTokenOptions): Promise<void> {
  const { tenantApi, bounds, tenant } = ctx.scope;
  if (!tenantApi.createToken || bounds.isStopped()) return;
  let pods: readonly KubeObject[] | undefined = options.pods;
  // A steady pass whose host Pods mount no token: no Secret to write, and a Pod the host removed
  // takes its Secret with it (owner reference).
  if (options.steady && !pods?.some((pod) => podTokenNeed(pod) !== undefined)) return;
  const listed = await attempt(async () => {
    const secrets = await listAll(ctx, SECRET, tenantCopySelector(tenant, TOKEN_SECRET_KIND));
    if (options.listPods) pods ??= await listAll(ctx, POD, tenantCopySelector(tenant, POD.kind));
    return secrets;
  });
  if (!listed.ok) {
    const why = 'the tenant tokens of host Pods wait';
    ctx.ledger.errors.listingFailed(SECRET, 'host', listed.error, why);
    return;
  }
  const secrets = listed.value;
  const now = ctx.scope.clock.now();
  const due: Due[] = [];
  const minter = new TokenMinter(ctx);
  const each = <T>(items: readonly T[], work: (item: T) => Promise<void>) =>
    runPool(items, bounds.budget.concurrency, work, () => bounds.isStopped());
  if (!pods) {
    for (const secret of secrets) {
      const need = secret.metadata.deletionTimestamp ? undefined : secretTokenNeed(secret);
      const why = need && tokenDue(need, secret, now);
      if (need && why !== undefined) due.push({ need, secret, why });
    }
    await each(due, (item) => minter.write(item));
    return;
  }
  const byName = new Map(secrets.map((s) => [s.metadata.name, s]));
  const wanted = new Set<string>();
  for (const pod of pods) {
    const need = podTokenNeed(pod);
    if (!need) continue;
    const name = tokenSecretName(need.hostPod.name);
    wanted.add(name);
    // A Pod on its way out needs no new token: its Secret goes with it.
    if (pod.metadata.deletionTimestamp) continue;
    const secret = byName.get(name);
    const why = tokenDue(need, secret, now);
    if (why !== undefined) due.push({ need, secret, why });
  }
  await each(due, (item) => minter.write(item));
  const orphans = secrets.filter(
    (s) => !wanted.has(s.metadata.name) && !s.metadata.deletionTimestamp,
  );
  await each(orphans, (secret) => minter.remove(secret));
}

/** The writes of {@link syncPodTokens}, with the tenant CA read once per pass. */
class TokenMinter {
  private readonly caByNamespace = new Map<string, Promise<string | undefined>>();

  constructor(private readonly ctx: PassContext) {}

  private refs(need: { virtualNamespace: string; virtualName: string }, name: string) {
    const tenantRef: ObjectRef = { namespace: need.virtualNamespace, name: need.virtualName };
    const hostRef: ObjectRef = { namespace: this.ctx.scope.hostNamespace, name };
    return { tenantRef, hostRef };
  }

  async write(item: Due) {
    const { ctx } = this;
    const { need, secret, why } = item;
    const { tenantApi } = ctx.scope;
    const refs = this.refs(need, tokenSecretName(need.hostPod.name));
    const action = secret ? 'Update' : 'Create';
    const { createToken } = tenantApi;
    if (!createToken) return;
    const sa = `${need.virtualNamespace}/${need.serviceAccount}`;
    await passWrite(ctx, {
      send: () => this.mint(item, sa, createToken.bind(tenantApi)),
      decide: (minted) => {
        if (minted.ok) return { action, rule: SECRET, ...refs, reason: minted.value };
        const { error } = minted;
        if (isClusterError(error, 'NotFound')) {
          // The service account (or the tenant Pod) is not there (yet): a later pass mints it.
          const reason = `${why}, but tenant service account ${sa} or Pod ${need.virtualNamespace}/${need.virtualName} does not exist (yet): the token is minted once both do`;
          return { action: 'Skip', rule: SECRET, ...refs, reason };
        }
        const reason = `${why}: minting a token of tenant service account ${sa} failed`;
        return { action, rule: SECRET, ...refs, reason, error };
      },
    });
  }

  /** Mints the tokens of `item` into its host Secret; the Decision's reason. */
  private async mint(
    item: Due,
    sa: string,
    createToken: NonNullable<ClusterApi['createToken']>,
  ): Promise<string> {
    const { ctx } = this;
    const { need, secret, why } = item;
    const { hostApi, tenant, hostNamespace } = ctx.scope;
    const tokens = new Map<string, IssuedToken>();
    for (const request of need.requests) {
      const issued = await createToken(need.virtualNamespace, need.serviceAccount, {
        ...(request.audiences.length > 0 ? { audiences: request.audiences } : {}),
        expirationSeconds: request.expirationSeconds,
        // The apiserver binds only to a Pod that names the service account (see translate/token.ts).
        ...(request.unbound === true
          ? {}
          : {
              boundObjectRef: {
                apiVersion: 'v1',
                kind: 'Pod',
                name: need.virtualName,
                ...(need.virtualUid ? { uid: need.virtualUid } : {}),
              },
            }),
      });
      tokens.set(request.key, issued);
    }
    const ca = await this.caOf(need.virtualNamespace);
    const issuedAt = ctx.scope.clock.now();
    const body = tokenSecret({
      tenant,
      hostNamespace,
      need,
      tokens,
      ...(ca === undefined ? {} : { ca }),
      issuedAt,
    });
    if (secret) {
      body.metadata.resourceVersion = secret.metadata.resourceVersion;
      await hostApi.update(body);
    } else await hostApi.create(body);
    const until = body.metadata.annotations?.[Annotations.TokenExpiresAt] ?? '';
    const reason = `${why}: a token of tenant service account ${sa}, minted by the tenant apiserver and bound to Pod ${need.virtualNamespace}/${need.virtualName}${until ? `, valid until ${until}` : ''}`;
    return reason;
  }

  async remove(secret: KubeObject): Promise<void> {
    const { ctx } = this;
    const annotations = secret.metadata.annotations ?? {};
    const refs = this.refs(
      {
        virtualNamespace: annotations[Annotations.VirtualNamespace] ?? '',
        virtualName: annotations[Annotations.VirtualName] ?? '',
      },
      secret.metadata.name,
    );
    const uid = secret.metadata.uid;
    if (!uid) return;
    const reason = 'the host Pod whose tenant token it held is gone';
    const preconditions = {
      uid,
      ...(secret.metadata.resourceVersion
        ? { resourceVersion: secret.metadata.resourceVersion }
        : {}),
    };
    await passWrite(ctx, {
      send: () =>
        ctx.scope.hostApi.delete(
          SECRET,
          ctx.scope.hostNamespace,
          secret.metadata.name,
          preconditions,
        ),
      decide: (deleted) => {
        const gone = !deleted.ok && isClusterError(deleted.error, 'NotFound');
        return {
          action: 'Delete',
          rule: SECRET,
          ...refs,
          reason,
          ...(deleted.ok ? {} : gone ? { alreadyGone: true } : { error: deleted.error }),
        };
      },
    });
  }

  /**
   * The tenant CA a Pod must trust: with the default endpoint (the tenant kubeconfig's server),
   * the kubeconfig's CA; else the tenant's `kube-root-ca.crt` of the virtual namespace first.
   */
  private caOf(namespace: string): Promise<string | undefined> {
    const { tenantApi, policy } = this.ctx.scope;
    const kubeconfigCa = tenantApi.certificateAuthority;
    if (kubeconfigCa !== undefined && policy.workloads?.tenantApiEndpoint === undefined) {
      return Promise.resolve(kubeconfigCa);
    }
    let found = this.caByNamespace.get(namespace);
    if (!found) {
      found = this.rootCa(namespace).then((ca) => ca ?? kubeconfigCa);
      this.caByNamespace.set(namespace, found);
    }
    return found;
  }

  private async rootCa(namespace: string): Promise<string | undefined> {
    const api = this.ctx.scope.tenantApi;
    if (!api) return undefined;
    // A LIST by name: the tenant identity may list ConfigMaps, not get them.
    const page = await api.list(CONFIG_MAP, {
      namespace,
      fieldSelector: `metadata.name=${ROOT_CA_CONFIG_MAP}`,
      limit: 1,
    });
    const data = page.items[0]?.data;
    const ca =
      typeof data === 'object' && data !== null
        ? (data as Record<string, unknown>)[CA_KEY]
        : undefined;
    return typeof ca === 'string' ? ca : undefined;
  }
}
