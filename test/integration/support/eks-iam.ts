/**
 * The AWS side of an EKS cluster reached with an IAM role, on loopback, for the end-to-end test:
 *
 * - a local **STS** that answers a presigned `GetCallerIdentity` as STS does: it checks the SigV4
 *   presignature against the test credentials (an implementation independent of the SDK's signer,
 *   test/fixtures/sts-presign.ts), the signed `x-k8s-aws-id` header and the age, and answers with
 *   the caller's assumed-role ARN;
 * - a local **token webhook**, the stand-in of aws-iam-authenticator (the EKS authenticator): it
 *   receives the apiserver's TokenReview, decodes the `k8s-aws-v1.` token, checks the URL's shape
 *   (the regional STS host, `/`, GetCallerIdentity, only the parameters a presign has, a date no
 *   older than 15 minutes), sends the request to STS with `x-k8s-aws-id: <its cluster>` (to the
 *   local STS, keeping the STS host as `Host`), and maps the ARN STS returns to a user and groups
 *   the way an EKS access entry does;
 * - a local **EKS** endpoint answering `DescribeCluster` (`GET /clusters/<name>`, restJson1).
 *
 * Why not aws-iam-authenticator itself: it sends the presigned URL to the real STS host over
 * HTTPS and cannot be pointed at a local STS without DNS and CA overrides (docs/eks.md).
 */
import {
  createServer,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CLUSTER_ID_HEADER,
  EKS_TOKEN_LIFETIME_MS,
  EKS_TOKEN_PREFIX,
  stsHostname,
} from '../../../lib/adapters/eks/token.js';
import { amzDateMs, checkPresignedGetCallerIdentity } from '../../fixtures/sts-presign.js';

export const REGION = 'eu-west-1';
export const ACCOUNT = '123456789012';

/** Test credentials of one assumed role: what the function's role gives it in Lambda. */
export interface TestRole {
  roleName: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
}

/** An access entry: the role's principal ARN, the user and groups it maps to. */
export interface TestAccessEntry {
  roleName: string;
  username: string;
  groups: string[];
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

function reply(res: ServerResponse, status: number, type: string, text: string): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export interface LocalSts {
  url: string;
  /** Every answer: the cluster header it was asked with and whether the presignature held. */
  answers: { clusterId: string | undefined; ok: boolean; reason?: string }[];
  close(): Promise<void>;
}

/** STS's side of a presigned GetCallerIdentity, for the roles in `roles`. */
export async function startLocalSts(roles: TestRole[], now = () => Date.now()): Promise<LocalSts> {
  const answers: LocalSts['answers'] = [];
  const server = createServer((req, res) => {
    const clusterId = req.headers[CLUSTER_ID_HEADER] as string | undefined;
    const check = checkPresignedGetCallerIdentity({
      url: `https://${req.headers.host}${req.url}`,
      headers: clusterId === undefined ? {} : { [CLUSTER_ID_HEADER]: clusterId },
      region: REGION,
      secretOf: (id) => roles.find((r) => r.accessKeyId === id)?.secretAccessKey,
      nowMs: now(),
      maxAgeMs: EKS_TOKEN_LIFETIME_MS,
    });
    answers.push({ clusterId, ok: check.ok, ...(check.ok ? {} : { reason: check.reason }) });
    const role = check.ok ? roles.find((r) => r.accessKeyId === check.accessKeyId) : undefined;
    if (!check.ok || !role || check.sessionToken !== role.sessionToken) {
      reply(
        res,
        403,
        'text/xml',
        '<ErrorResponse><Error><Code>SignatureDoesNotMatch</Code></Error></ErrorResponse>',
      );
      return;
    }
    const arn = `arn:aws:sts::${ACCOUNT}:assumed-role/${role.roleName}/tenantplane-sync`;
    reply(
      res,
      200,
      'text/xml',
      `<GetCallerIdentityResponse><GetCallerIdentityResult><Arn>${arn}</Arn><UserId>AROA:${role.roleName}</UserId><Account>${ACCOUNT}</Account></GetCallerIdentityResult></GetCallerIdentityResponse>`,
    );
  });
  return { url: await listen(server), answers, close: () => close(server) };
}

/** The query parameters a presigned GetCallerIdentity may carry (aws-iam-authenticator's list). */
const PARAMETERS = new Set([
  'Action',
  'Version',
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-Security-Token',
  'X-Amz-Signature',
  'X-Amz-SignedHeaders',
]);

export interface TokenWebhook {
  /** The TokenReview URL, for the apiserver's webhook kubeconfig. */
  url: string;
  /** Every review: authenticated or why not. */
  reviews: { authenticated: boolean; username?: string; reason?: string }[];
  close(): Promise<void>;
}

/** Decodes and checks a token, asks STS who signed it; the user of its access entry, or why not. */
async function review(
  token: string,
  options: { clusterId: string; stsUrl: string; entries: TestAccessEntry[] },
): Promise<{ username: string; groups: string[] } | { reason: string }> {
  if (!token.startsWith(EKS_TOKEN_PREFIX)) return { reason: 'not a k8s-aws-v1 token' };
  const body = token.slice(EKS_TOKEN_PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(body)) return { reason: 'not base64url' };
  let url: URL;
  try {
    url = new URL(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return { reason: 'not a URL' };
  }
  if (url.protocol !== 'https:' || url.host !== stsHostname(REGION) || url.pathname !== '/')
    return { reason: `not the STS endpoint: ${url.host}` };
  for (const key of url.searchParams.keys())
    if (!PARAMETERS.has(key)) return { reason: `unexpected parameter ${key}` };
  // As the authenticator does before asking STS: a token is good for 15 minutes from its date.
  const signedAt = amzDateMs(url.searchParams.get('X-Amz-Date') ?? '');
  if (Number.isNaN(signedAt) || Date.now() > signedAt + EKS_TOKEN_LIFETIME_MS)
    return { reason: 'X-Amz-Date is more than 15 minutes old' };
  if (url.searchParams.get('Action') !== 'GetCallerIdentity')
    return { reason: 'not GetCallerIdentity' };
  const sts = new URL(options.stsUrl);
  const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(
      {
        host: sts.hostname,
        port: sts.port,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        // As sent to STS: its host (the one signed), and the cluster this authenticator serves.
        headers: { host: url.host, [CLUSTER_ID_HEADER]: options.clusterId },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end();
  });
  if (answer.status !== 200) return { reason: `STS answered ${answer.status}` };
  const arn = /<Arn>arn:aws:sts::(\d{12}):assumed-role\/([^/<]+)\/[^<]*<\/Arn>/.exec(answer.text);
  if (!arn) return { reason: 'STS named no assumed role' };
  const entry = options.entries.find((e) => e.roleName === arn[2]);
  if (!entry) return { reason: `no access entry for role ${arn[2]}` };
  return { username: entry.username, groups: entry.groups };
}

/** The token webhook of cluster `clusterId`, asking `stsUrl`, mapping roles by `entries`. */
export async function startTokenWebhook(options: {
  clusterId: string;
  stsUrl: string;
  entries: TestAccessEntry[];
}): Promise<TokenWebhook> {
  const reviews: TokenWebhook['reviews'] = [];
  const server = createServer(async (req, res) => {
    const tr = JSON.parse(await body(req)) as { apiVersion?: string; spec?: { token?: string } };
    const found = await review(tr.spec?.token ?? '', options).catch((error: unknown) => ({
      reason: String(error),
    }));
    const status =
      'username' in found
        ? { authenticated: true, user: { username: found.username, groups: found.groups } }
        : { authenticated: false, error: found.reason };
    reviews.push(
      'username' in found
        ? { authenticated: true, username: found.username }
        : { authenticated: false, reason: found.reason },
    );
    reply(
      res,
      200,
      'application/json',
      JSON.stringify({
        apiVersion: tr.apiVersion ?? 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        status,
      }),
    );
  });
  return { url: `${await listen(server)}/tokenreview`, reviews, close: () => close(server) };
}

export interface LocalEks {
  url: string;
  /** The cluster names DescribeCluster was asked for. */
  described: string[];
  close(): Promise<void>;
}

/** EKS's DescribeCluster for `clusters` (name -> endpoint and base64 CA). */
export async function startLocalEks(
  clusters: Record<string, { endpoint: string; caData: string }>,
): Promise<LocalEks> {
  const described: string[] = [];
  const server = createServer((req, res) => {
    const name = /^\/clusters\/([^/?]+)$/.exec(req.url ?? '')?.[1];
    const cluster = name === undefined ? undefined : clusters[decodeURIComponent(name)];
    if (name !== undefined) described.push(decodeURIComponent(name));
    if (
      req.method !== 'GET' ||
      !cluster ||
      !req.headers.authorization?.startsWith('AWS4-HMAC-SHA256')
    ) {
      res.setHeader('x-amzn-errortype', 'ResourceNotFoundException');
      reply(res, 404, 'application/json', JSON.stringify({ message: 'No cluster found' }));
      return;
    }
    reply(
      res,
      200,
      'application/json',
      JSON.stringify({
        cluster: {
          name,
          arn: `arn:aws:eks:${REGION}:${ACCOUNT}:cluster/${name}`,
          endpoint: cluster.endpoint,
          certificateAuthority: { data: cluster.caData },
          status: 'ACTIVE',
        },
      }),
    );
  });
  return { url: await listen(server), described, close: () => close(server) };
}
