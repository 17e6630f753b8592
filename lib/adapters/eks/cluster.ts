/**
 * Cluster clients for EKS clusters reached with the process's own IAM role: the API server
 * endpoint and CA from `DescribeCluster` (asked once per cluster and kept for the life of the
 * process, a warm Lambda container), and a bearer token signed from the role
 * ({@link EksTokenSource}), one source per cluster so warm invocations reuse a token until it is
 * due for renewal. Nothing here is written anywhere: the kubeconfig the client is built from is
 * made in memory and carries no credential.
 */
import {
  DescribeClusterCommand,
  type DescribeClusterCommandOutput,
  EKSClient,
} from '@aws-sdk/client-eks';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import type { Clock, ClusterRole } from '../../ports/index.js';
import { createBearerClusterApi } from '../kube/bearer.js';
import type { ClusterApiOptions, KubeClusterApi } from '../kube/cluster-client.js';
import { type EksClusterRef, EksTokenSource } from './token.js';

/** What a client needs of a cluster: its API server URL and its CA (base64 PEM). */
export interface EksEndpoint {
  server: string;
  caData: string;
}

/** An EKS cluster could not be described. Names the role, cluster and region; never a token. */
export class EksClusterError extends Error {
  constructor(
    readonly role: ClusterRole,
    readonly cluster: EksClusterRef,
    readonly problem: string,
    options?: { cause?: unknown },
  ) {
    super(`${role} EKS cluster ${describeRef(cluster)}: ${problem}`, options);
    this.name = 'EksClusterError';
  }
}

/** `prod (eu-west-1)`, as messages name a cluster. */
export function describeRef(cluster: EksClusterRef): string {
  return `${cluster.clusterName} (${cluster.region})`;
}

const key = (cluster: EksClusterRef) => `${cluster.region}/${cluster.clusterName}`;

export interface EksClustersOptions {
  /** The EKS client of a region (default: a new SDK client from the environment's credentials). */
  client?: (region: string) => EksDescriber;
  /** What signs the tokens (default: the EKS client's credentials, the SDK's default chain). */
  credentials?: AwsCredentialIdentityProvider;
  clock?: Clock;
}

function problemOf(error: unknown): string {
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  if (name === 'ResourceNotFoundException') return 'no such cluster (ResourceNotFoundException)';
  if (name === 'AccessDeniedException')
    return 'access denied: the function may describe only its own clusters (AccessDeniedException)';
  // AWS error messages describe the failure, never a credential.
  return `cannot be described: ${name}${message ? `: ${message}` : ''}`;
}

/** What is asked of an EKS client: `DescribeCluster` (an `EKSClient`, or a test's stand-in). */
export interface EksDescriber {
  send(command: DescribeClusterCommand): Promise<DescribeClusterCommandOutput>;
}

/** Endpoints and tokens of the EKS clusters one process talks to, kept for its lifetime. */
export class EksClusters {
  private readonly endpoints = new Map<string, Promise<EksEndpoint>>();
  private readonly tokens = new Map<string, EksTokenSource>();
  private readonly clients = new Map<string, EksDescriber>();

  constructor(private readonly options: EksClustersOptions = {}) {}

  private client(region: string): EksDescriber {
    let client = this.clients.get(region);
    if (!client) {
      client = this.options.client?.(region) ?? new EKSClient({ region });
      this.clients.set(region, client);
    }
    return client;
  }

  /**
   * The cluster's endpoint and CA, described once (a failure is not kept).
   * @throws EksClusterError when the cluster cannot be described or is not ready.
   */
  endpoint(role: ClusterRole, cluster: EksClusterRef): Promise<EksEndpoint> {
    const k = key(cluster);
    let found = this.endpoints.get(k);
    if (!found) {
      found = this.describe(role, cluster);
      this.endpoints.set(k, found);
      found.catch(() => this.endpoints.delete(k));
    }
    return found;
  }

  private async describe(role: ClusterRole, cluster: EksClusterRef): Promise<EksEndpoint> {
    let answer: DescribeClusterCommandOutput;
    try {
      answer = await this.client(cluster.region).send(
        new DescribeClusterCommand({ name: cluster.clusterName }),
      );
    } catch (error) {
      throw new EksClusterError(role, cluster, problemOf(error), { cause: error });
    }
    const described = answer.cluster;
    const server = described?.endpoint;
    const caData = described?.certificateAuthority?.data;
    if (!server || !caData)
      throw new EksClusterError(
        role,
        cluster,
        `has no API server endpoint or CA yet (status ${described?.status ?? 'unknown'})`,
      );
    return { server, caData };
  }

  /** The credentials of the region's SDK client: the default chain, resolved and cached by it. */
  private sdkCredentials(region: string): AwsCredentialIdentityProvider {
    return async () => {
      const client = this.client(region);
      if (!(client instanceof EKSClient))
        throw new Error('no credentials: give EksClusters a credentials provider with its client');
      return client.config.credentials();
    };
  }

  /** The token source of `cluster` (one per cluster, so its token is reused until renewal). */
  tokenSource(cluster: EksClusterRef): EksTokenSource {
    const k = key(cluster);
    let source = this.tokens.get(k);
    if (!source) {
      // The SDK's default chain (the function's role), as the EKS client resolved it.
      const credentials = this.options.credentials ?? this.sdkCredentials(cluster.region);
      source = new EksTokenSource(cluster, {
        credentials,
        ...(this.options.clock ? { clock: this.options.clock } : {}),
      });
      this.tokens.set(k, source);
    }
    return source;
  }

  /**
   * A client of `cluster` that authenticates with the role's token.
   * @throws EksClusterError when the cluster cannot be described.
   */
  async connect(
    role: ClusterRole,
    cluster: EksClusterRef,
    options: ClusterApiOptions = {},
  ): Promise<KubeClusterApi> {
    const { server, caData } = await this.endpoint(role, cluster);
    // JSON is YAML, and keeps the yaml package off the handler's path (js-yaml reads it).
    const kubeconfig = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'eks', cluster: { server, 'certificate-authority-data': caData } }],
      // No credential here: the token is added to each request (../kube/bearer.ts).
      users: [{ name: 'iam', user: {} }],
      contexts: [{ name: 'eks', context: { cluster: 'eks', user: 'iam' } }],
      'current-context': 'eks',
    });
    return createBearerClusterApi(
      { text: kubeconfig, origin: `EKS cluster ${describeRef(cluster)}` },
      this.tokenSource(cluster),
      options,
    );
  }
}
