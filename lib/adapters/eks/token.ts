/**
 * The bearer token an EKS cluster accepts from an IAM principal, made as `aws eks get-token`
 * makes it: a presigned STS `GetCallerIdentity` URL (valid 60 s to STS, signed with the header
 * `x-k8s-aws-id: <cluster name>` so it is good for that cluster only), base64url without padding,
 * after `k8s-aws-v1.`. EKS accepts it for 15 minutes from its signing time; a
 * {@link EksTokenSource} signs a new one after 10, or as soon as the cluster refuses one.
 *
 * The token is a credential: it lives in memory only, is never logged, and no message quotes it.
 */
import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider, Checksum } from '@smithy/types';
import { type Clock, systemClock } from '../../ports/index.js';
import type { BearerTokenSource } from '../kube/bearer.js';

export const EKS_TOKEN_PREFIX = 'k8s-aws-v1.';
/** The header that binds a token to one cluster (aws-iam-authenticator's `clusterIDHeader`). */
export const CLUSTER_ID_HEADER = 'x-k8s-aws-id';
/** `X-Amz-Expires` of the presigned URL, as `aws eks get-token` sets it. */
export const PRESIGN_EXPIRES_SECONDS = 60;
/** How long EKS accepts a token after its `X-Amz-Date`. */
export const EKS_TOKEN_LIFETIME_MS = 15 * 60_000;
/** When a source signs a fresh token: well before the cluster would refuse the old one. */
export const EKS_TOKEN_RENEW_AFTER_MS = 10 * 60_000;

/** An EKS cluster, by name and region. */
export interface EksClusterRef {
  clusterName: string;
  region: string;
}

/** The regional STS endpoint host the token is presigned for. */
export function stsHostname(region: string): string {
  return `sts.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}`;
}

/** SHA-256 and HMAC-SHA256 from node:crypto, in the shape the signer takes. */
class NodeSha256 implements Checksum {
  private readonly hash: ReturnType<typeof createHash> | ReturnType<typeof createHmac>;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash =
      secret === undefined
        ? createHash('sha256')
        : createHmac('sha256', typeof secret === 'string' ? secret : toBuffer(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(typeof data === 'string' ? data : toBuffer(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    throw new Error('not supported');
  }
}

function toBuffer(data: ArrayBuffer | ArrayBufferView): Buffer {
  return ArrayBuffer.isView(data)
    ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    : Buffer.from(data);
}

const rfc3986 = (value: string) =>
  encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

/**
 * Signs one token for `cluster` with `credentials`, dated `nowMs`.
 * @returns `k8s-aws-v1.` + base64url (no padding) of the presigned URL.
 */
export async function signEksToken(
  cluster: EksClusterRef,
  credentials: AwsCredentialIdentity,
  nowMs: number,
): Promise<string> {
  const hostname = stsHostname(cluster.region);
  const signer = new SignatureV4({
    credentials,
    region: cluster.region,
    service: 'sts',
    sha256: NodeSha256,
    uriEscapePath: true,
  });
  const presigned = await signer.presign(
    {
      method: 'GET',
      protocol: 'https:',
      hostname,
      path: '/',
      query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
      headers: { host: hostname, [CLUSTER_ID_HEADER]: cluster.clusterName },
    },
    { expiresIn: PRESIGN_EXPIRES_SECONDS, signingDate: new Date(nowMs) },
  );
  const query = Object.entries(presigned.query ?? {})
    .flatMap(([key, value]) =>
      (Array.isArray(value) ? value : [value]).map((v) => `${rfc3986(key)}=${rfc3986(String(v))}`),
    )
    .join('&');
  const url = `https://${hostname}/?${query}`;
  return EKS_TOKEN_PREFIX + Buffer.from(url, 'utf8').toString('base64url');
}

export interface EksTokenSourceOptions {
  /** Where the signing credentials come from: the function's role, through the SDK's chain. */
  credentials: AwsCredentialIdentityProvider;
  clock?: Clock;
  /** Sign a new token after this long (default {@link EKS_TOKEN_RENEW_AFTER_MS}). */
  renewAfterMs?: number;
}

/**
 * Tokens of one cluster, signed on demand: the current one while it is younger than
 * `renewAfterMs`, else a new one. A token the cluster refused (`rejected`) is dropped, so the next
 * request signs afresh (new credentials, a clock that moved). Concurrent requests share one
 * signing.
 */
export class EksTokenSource implements BearerTokenSource {
  private readonly credentials: AwsCredentialIdentityProvider;
  private readonly clock: Clock;
  private readonly renewAfterMs: number;
  private current: { token: Promise<string>; signedAt: number } | undefined;

  constructor(
    readonly cluster: EksClusterRef,
    options: EksTokenSourceOptions,
  ) {
    this.credentials = options.credentials;
    this.clock = options.clock ?? systemClock;
    this.renewAfterMs = options.renewAfterMs ?? EKS_TOKEN_RENEW_AFTER_MS;
  }

  token(): Promise<string> {
    const now = this.clock.now();
    if (this.current && now - this.current.signedAt < this.renewAfterMs) return this.current.token;
    const token = this.credentials().then((credentials) =>
      signEksToken(this.cluster, credentials, now),
    );
    const current = { token, signedAt: now };
    this.current = current;
    // A failed signing is not kept: the next request tries again.
    token.catch(() => {
      if (this.current === current) this.current = undefined;
    });
    return token;
  }

  rejected(): void {
    this.current = undefined;
  }
}
