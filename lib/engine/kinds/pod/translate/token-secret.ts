/**
 * The per-Pod token Secret: what it holds (the tenant tokens, the tenant CA, the virtual
 * namespace), how it is marked as the engine's own, and when its tokens are due again. Pure: the
 * pass that mints and writes it is `kinds/pod/tokens.ts`.
 *
 * The tokens live only in the Secret's `data`; its annotations hold when they were minted and
 * when they expire, never a token (an annotation is read by every tool that lists the object).
 */
import { isRecord, jsonDigest } from '../../../../common/index.js';
import type { IssuedToken, KubeObject } from '../../../../ports/index.js';
import { Annotations, TOKEN_SECRET_KIND } from '../../../names/metadata.js';
import { tokenSecretName } from '../../../names/naming.js';
import { reverseMappingAnnotations, reverseMappingLabels } from '../../../names/reverse-mapping.js';
import { CA_KEY, NAMESPACE_KEY, parseTokenRequests, type TokenRequestEntry } from './token.js';

/** Past this share of its life a token is minted anew: well before it runs out. */
export const RENEW_AT_LIFE_SHARE = 0.8;

/** What a host Pod asks of its token Secret, read from the host Pod alone. */
export interface PodTokenNeed {
  hostPod: { name: string; uid: string };
  virtualNamespace: string;
  virtualName: string;
  /** The tenant Pod's uid, when the host Pod recorded it: the token is bound to it. */
  virtualUid?: string;
  serviceAccount: string;
  requests: TokenRequestEntry[];
}

/** Whether a host Pod's volumes serve its token Secret (a Pod made before it had none). */
function mountsTokenSecret(hostPod: KubeObject): boolean {
  const name = tokenSecretName(hostPod.metadata.name);
  const volumes =
    isRecord(hostPod.spec) && Array.isArray(hostPod.spec.volumes) ? hostPod.spec.volumes : [];
  return volumes.some(
    (v) =>
      isRecord(v) &&
      isRecord(v.projected) &&
      Array.isArray(v.projected.sources) &&
      v.projected.sources.some((s) => isRecord(s) && isRecord(s.secret) && s.secret.name === name),
  );
}

/**
 * The need of a host Pod that mounts tenant tokens, or `undefined` (none, not ours whole, or a
 * Pod whose spec, immutable, predates its token volume: a token it cannot read is not minted).
 * `spec` is not checked when absent: a token Secret's own record has none (`secretTokenNeed`).
 */
export function podTokenNeed(hostPod: KubeObject): PodTokenNeed | undefined {
  if (hostPod.spec !== undefined && !mountsTokenSecret(hostPod)) return undefined;
  const annotations = hostPod.metadata.annotations ?? {};
  const requests = parseTokenRequests(annotations[Annotations.TokenRequests]);
  const uid = hostPod.metadata.uid;
  const virtualNamespace = annotations[Annotations.VirtualNamespace];
  const virtualName = annotations[Annotations.VirtualName];
  const serviceAccount = annotations[Annotations.ServiceAccountName];
  if (requests.length === 0 || !uid || !virtualNamespace || !virtualName || !serviceAccount) {
    return undefined;
  }
  const virtualUid = annotations[Annotations.VirtualUid];
  return {
    hostPod: { name: hostPod.metadata.name, uid },
    virtualNamespace,
    virtualName,
    ...(virtualUid ? { virtualUid } : {}),
    serviceAccount,
    requests,
  };
}

/**
 * The need a token Secret itself records (what it was minted for), so a renewal needs no read of
 * the host Pod; `undefined` for a Secret that does not record it whole.
 */
export function secretTokenNeed(secret: KubeObject): PodTokenNeed | undefined {
  const owners = Array.isArray(secret.metadata.ownerReferences)
    ? (secret.metadata.ownerReferences as Array<Record<string, unknown>>)
    : [];
  const owner = owners.find((o) => o.kind === 'Pod' && typeof o.uid === 'string');
  if (!owner || typeof owner.name !== 'string' || typeof owner.uid !== 'string') return undefined;
  return podTokenNeed({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: owner.name, uid: owner.uid, annotations: secret.metadata.annotations ?? {} },
  });
}

/** Digest of what the tokens are for: a change (another audience, a new tenant Pod) re-mints. */
export function tokenRequestHash(need: PodTokenNeed): string {
  const { serviceAccount, virtualUid, requests } = need;
  return jsonDigest({ serviceAccount, virtualUid: virtualUid ?? '', requests });
}

/**
 * Why `secret` must be minted anew for `need` at `now` (ms), or `undefined` when its tokens are
 * what the Pod asks and not past {@link RENEW_AT_LIFE_SHARE} of their life.
 */
export function tokenDue(
  need: PodTokenNeed,
  secret: KubeObject | undefined,
  now: number,
): string | undefined {
  if (!secret) return 'the Pod has no token yet';
  const annotations = secret.metadata.annotations ?? {};
  if (annotations[Annotations.TokenRequestHash] !== tokenRequestHash(need)) {
    return 'the Pod asks for other tokens than the Secret holds';
  }
  const owners = Array.isArray(secret.metadata.ownerReferences)
    ? (secret.metadata.ownerReferences as Array<{ uid?: unknown }>)
    : [];
  if (!owners.some((owner) => owner.uid === need.hostPod.uid)) {
    return 'the Secret belongs to an earlier host Pod of that name';
  }
  const issued = Date.parse(annotations[Annotations.TokenIssuedAt] ?? '');
  const expires = Date.parse(annotations[Annotations.TokenExpiresAt] ?? '');
  if (!Number.isFinite(issued) || !Number.isFinite(expires)) return 'its expiry is unknown';
  const renewAt = issued + (expires - issued) * RENEW_AT_LIFE_SHARE;
  if (now >= renewAt) {
    return `its token is past ${RENEW_AT_LIFE_SHARE * 100}% of its life (expires ${new Date(expires).toISOString()})`;
  }
  return undefined;
}

/** Everything a token Secret is built from. */
export interface TokenSecretInput {
  tenant: string;
  hostNamespace: string;
  need: PodTokenNeed;
  /** Minted tokens by Secret key (`token`, `token-1`...). */
  tokens: ReadonlyMap<string, IssuedToken>;
  /** The tenant CA (PEM), when known. */
  ca?: string;
  /** When the tokens were minted (ms). */
  issuedAt: number;
}

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

/**
 * The token Secret of a host Pod: labelled and annotated as the engine's own (under a kind label
 * of its own, `TOKEN_SECRET_KIND`, so no Secret rule takes it for a copy), owned by the host Pod so
 * the host deletes it with the Pod.
 */
export function tokenSecret(input: TokenSecretInput): KubeObject {
  const { need, tokens } = input;
  const data: Record<string, string> = {};
  let expires = Number.POSITIVE_INFINITY;
  for (const [key, issued] of tokens) {
    data[key] = base64(issued.token);
    const at = Date.parse(issued.expirationTimestamp);
    if (Number.isFinite(at)) expires = Math.min(expires, at);
  }
  if (input.ca !== undefined) data[CA_KEY] = base64(input.ca);
  data[NAMESPACE_KEY] = base64(need.virtualNamespace);
  // An unparsable expiry renews at the next pass rather than never.
  const expiresAt = Number.isFinite(expires) ? new Date(expires).toISOString() : '';
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: tokenSecretName(need.hostPod.name),
      namespace: input.hostNamespace,
      labels: reverseMappingLabels(input.tenant, TOKEN_SECRET_KIND, need.virtualNamespace),
      annotations: {
        ...reverseMappingAnnotations(need.virtualNamespace, need.virtualName, need.virtualUid),
        [Annotations.ServiceAccountName]: need.serviceAccount,
        // What was minted, so a renewal reads only the Secrets (`secretTokenNeed`).
        [Annotations.TokenRequests]: JSON.stringify(need.requests),
        [Annotations.TokenRequestHash]: tokenRequestHash(need),
        [Annotations.TokenIssuedAt]: new Date(input.issuedAt).toISOString(),
        [Annotations.TokenExpiresAt]: expiresAt,
      },
      ownerReferences: [
        { apiVersion: 'v1', kind: 'Pod', name: need.hostPod.name, uid: need.hostPod.uid },
      ],
    },
    type: 'Opaque',
    data,
  };
}
