/**
 * `tenantplane explain <host object> --kind <Kind>` on the real clusters: copies of different
 * kinds of one source name share a host name (the name does not carry the kind), so the Decisions
 * shown are matched by kind and name, never by the host name alone.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createClusterApi,
  type KubeClusterApi,
} from '../../../lib/adapters/kube/cluster-client.js';
import { TENANT_CLUSTER } from '../../../lib/ports/index.js';
import { integrationClusters } from '../support/clusters.js';
import { expectExit, tenantplane } from './support.js';

const RUN = randomBytes(3).toString('hex');
const TENANT = `cli-k-${RUN}`;
const HOST_NS = `cli-k-host-${RUN}`;
const VNS = `cli-k-ns-${RUN}`;
const LABEL = 'tenantplane-test';

let tenantApi: KubeClusterApi;
let hostApi: KubeClusterApi;
let kubeconfigFlags: string[];

beforeAll(async () => {
  const clusters = integrationClusters();
  tenantApi = createClusterApi(clusters.tenant);
  hostApi = createClusterApi(clusters.host);
  kubeconfigFlags = [
    '--tenant-kubeconfig',
    clusters.tenantKubeconfigPath,
    '--host-kubeconfig',
    clusters.hostKubeconfigPath,
  ];
  await hostApi.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: HOST_NS } });
  const scoped = { exclude: { labelSelector: `${LABEL}!=${TENANT}` } };
  await hostApi.create({
    ...TENANT_CLUSTER,
    metadata: { name: TENANT },
    spec: {
      hostNamespace: HOST_NS,
      toHost: [
        { apiVersion: 'v1', kind: 'ConfigMap', ...scoped },
        { apiVersion: 'v1', kind: 'Secret', ...scoped },
      ],
    },
  });
  await tenantApi.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: VNS } });
  const metadata = { name: 'web', namespace: VNS, labels: { [LABEL]: TENANT } };
  await tenantApi.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { a: 'b' } });
  await tenantApi.create({ apiVersion: 'v1', kind: 'Secret', metadata, stringData: { c: 'd' } });
}, 60_000);

afterAll(async () => {
  await tenantApi?.close();
  await hostApi?.close();
});

describe('explain --kind', () => {
  it('shows the Decisions of that kind only, not those of another kind with the same host name', async () => {
    expectExit(await tenantplane(['sync', TENANT, ...kubeconfigFlags]), 0);
    const target = `${HOST_NS}/web-x-${VNS}-x-${TENANT}`;
    const source = (kind: string) => new RegExp(`\\b${kind} ${VNS}/web -> host`);

    const secret = await tenantplane(['explain', target, '--kind', 'Secret', ...kubeconfigFlags]);
    expectExit(secret, 0);
    expect(secret.stdout).toMatch(/^Source:\s+Secret /m);
    expect(secret.stdout).toMatch(source('Secret'));
    expect(secret.stdout).not.toMatch(source('ConfigMap'));

    const configMap = await tenantplane(['explain', target, ...kubeconfigFlags]);
    expectExit(configMap, 0);
    expect(configMap.stdout).toMatch(source('ConfigMap'));
    expect(configMap.stdout).not.toMatch(source('Secret'));
  });
});
