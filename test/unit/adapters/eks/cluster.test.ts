/**
 * EKS clusters reached with the role: DescribeCluster once per cluster (aws-sdk-client-mock), and
 * a client whose requests carry the role's token, signed anew after a 401 (a local HTTP server
 * stands in for the API server).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DescribeClusterCommand, EKSClient, ResourceNotFoundException } from '@aws-sdk/client-eks';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { stringify } from 'yaml';
import { EksClusterError, EksClusters } from '../../../../lib/adapters/eks/cluster.js';
import { EKS_TOKEN_PREFIX, EksTokenSource } from '../../../../lib/adapters/eks/token.js';
import { createBearerClusterApi } from '../../../../lib/adapters/kube/bearer.js';

const CLUSTER = { clusterName: 'host-prod', region: 'eu-west-1' };
const CA = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString(
  'base64',
);
const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'tok' };
const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };

const eks = mockClient(EKSClient);
beforeEach(() => {
  eks.reset();
});

function clusters(clock = { now: () => Date.UTC(2026, 11, 6, 7, 0, 0) }) {
  return new EksClusters({
    client: (region) => new EKSClient({ region, credentials: CREDENTIALS }),
    credentials: async () => CREDENTIALS,
    clock,
  });
}

describe('EksClusters.endpoint', () => {
  it('describes a cluster once and keeps its endpoint and CA', async () => {
    eks.on(DescribeClusterCommand, { name: 'host-prod' }).resolves({
      cluster: {
        endpoint: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com',
        certificateAuthority: { data: CA },
      },
    });
    const directory = clusters();
    const first = await directory.endpoint('host', CLUSTER);
    const second = await directory.endpoint('host', CLUSTER);
    expect(first).toEqual({ server: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com', caData: CA });
    expect(second).toBe(first);
    expect(eks.commandCalls(DescribeClusterCommand)).toHaveLength(1);
  });

  it('names the role, cluster and region when it cannot describe it, and asks again next time', async () => {
    eks
      .on(DescribeClusterCommand)
      .rejectsOnce(new ResourceNotFoundException({ message: 'No cluster found', $metadata: {} }))
      .resolves({ cluster: { endpoint: 'https://x.example', certificateAuthority: { data: CA } } });
    const directory = clusters();
    const error = await directory.endpoint('host', CLUSTER).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EksClusterError);
    expect((error as Error).message).toBe(
      'host EKS cluster host-prod (eu-west-1): no such cluster (ResourceNotFoundException)',
    );
    expect((await directory.endpoint('host', CLUSTER)).server).toBe('https://x.example');
    expect(eks.commandCalls(DescribeClusterCommand)).toHaveLength(2);
  });

  it('refuses a cluster that has no endpoint yet', async () => {
    eks.on(DescribeClusterCommand).resolves({ cluster: { status: 'CREATING' } });
    await expect(clusters().endpoint('tenant', CLUSTER)).rejects.toThrow(
      'tenant EKS cluster host-prod (eu-west-1): has no API server endpoint or CA yet (status CREATING)',
    );
  });
});

describe('a client with the role token', () => {
  let server: Server;
  let url: string;
  const seen: string[] = [];
  /** Answers 401 to the first token it sees, then accepts any later one. */
  let refused: string | undefined;

  beforeEach(async () => {
    seen.length = 0;
    refused = undefined;
    server = createServer((req: IncomingMessage, res) => {
      const auth = req.headers.authorization ?? '';
      seen.push(auth);
      if (refused === undefined || auth === refused) {
        refused = auth;
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ kind: 'Status', status: 'Failure', code: 401, reason: 'Unauthorized' }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url === '/api/v1')
        res.end(
          JSON.stringify({
            kind: 'APIResourceList',
            groupVersion: 'v1',
            resources: [
              { name: 'configmaps', namespaced: true, kind: 'ConfigMap', verbs: ['list'] },
            ],
          }),
        );
      else res.end(JSON.stringify({ kind: 'ConfigMapList', metadata: {}, items: [] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => new Promise<void>((r) => server.close(() => r())));

  /** A plain-HTTP stand-in for the API server (TLS with the described CA: the end-to-end test). */
  const kubeconfig = () => ({
    origin: 'test',
    text: stringify({
      clusters: [{ name: 'c', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'u', user: {} }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'c',
    }),
  });

  it('sends the role token, and after a 401 a freshly signed one, once', async () => {
    // A second passes between requests, so a renewed token differs from the refused one.
    const clock = { t: Date.UTC(2026, 11, 6, 7, 0, 0), now: () => (clock.t += 1000) };
    const tokens = new EksTokenSource(CLUSTER, { credentials: async () => CREDENTIALS, clock });
    const api = createBearerClusterApi(kubeconfig(), tokens);
    const page = await api.list(CONFIGMAP, { namespace: 'tenant-dev' });
    expect(page.items).toEqual([]);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const auth of seen) expect(auth.startsWith(`Bearer ${EKS_TOKEN_PREFIX}`)).toBe(true);
    expect(seen[0]).toBe(refused);
    expect(seen.slice(1).every((auth) => auth !== refused)).toBe(true);
    await api.close();
  });

  it('fails with the 401 when the fresh token is refused too (no loop)', async () => {
    const clock = { now: () => Date.UTC(2026, 11, 6, 7, 0, 0) };
    const tokens = new EksTokenSource(CLUSTER, { credentials: async () => CREDENTIALS, clock });
    const api = createBearerClusterApi(kubeconfig(), tokens);
    // The clock stands still: the fresh token is the same token, refused again.
    await expect(api.list(CONFIGMAP, { namespace: 'tenant-dev' })).rejects.toMatchObject({
      reason: 'Unauthorized',
    });
    expect(seen).toHaveLength(2);
    await api.close();
  });

  it('keeps one token source per cluster (a warm container reuses its token)', async () => {
    const directory = clusters();
    expect(directory.tokenSource(CLUSTER)).toBe(directory.tokenSource(CLUSTER));
    expect(directory.tokenSource({ ...CLUSTER, region: 'us-east-1' })).not.toBe(
      directory.tokenSource(CLUSTER),
    );
  });
});
