/**
 * deploy/rbac/host-fairness on the real host apiserver: applied as an operator applies it, the
 * apiserver's priority and fairness classifies a tenant's requests by the tenant's own FlowSchema
 * into the shared `tenantplane` priority level, as its certificate user and as the group an EKS
 * access entry maps its role to; another tenant has a FlowSchema of its own in the same level; an
 * identity that is not tenantplane's is not classified by either. What the apiserver says it did
 * is in the `X-Kubernetes-PF-FlowSchema-UID` and `X-Kubernetes-PF-PriorityLevel-UID` headers of
 * every answer, compared here with the uids of the applied objects.
 */
import { request } from 'node:https';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { readRunningControlPlane } from '../../../lib/localcluster/index.js';
import { issueUserKubeconfig } from '../../../lib/localcluster/users.js';
import type { KubeconfigText } from '../../../lib/ports/index.js';
import { kubectl, useApis, waitFor } from '../engine/support.js';
import { restrictedHostIdentity } from '../support/rbac.js';

useApis();

const FILES = ['host-cluster.yaml', 'host-fairness.yaml'] as const;

interface Classified {
  status: number;
  flowSchema: string | undefined;
  priorityLevel: string | undefined;
}

/** GET `path` as the kubeconfig's user, with what the apiserver says classified it. */
function classify(kubeconfig: KubeconfigText, path: string): Promise<Classified> {
  const doc = parse(kubeconfig.text) as {
    clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
    users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
  };
  const { server, 'certificate-authority-data': ca } = doc.clusters[0]!.cluster;
  const user = doc.users[0]!.user;
  const pem = (b64: string) => Buffer.from(b64, 'base64');
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, server),
      {
        ca: pem(ca),
        cert: pem(user['client-certificate-data']),
        key: pem(user['client-key-data']),
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          const header = (name: string) => {
            const value = res.headers[name];
            return typeof value === 'string' ? value : undefined;
          };
          resolve({
            status: res.statusCode ?? 0,
            flowSchema: header('x-kubernetes-pf-flowschema-uid'),
            priorityLevel: header('x-kubernetes-pf-prioritylevel-uid'),
          });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** uid of a cluster-scoped flowcontrol object, as the admin reads it. */
async function uidOf(resource: 'flowschema' | 'prioritylevelconfiguration', name: string) {
  const out = await kubectl(['get', resource, name, '-o', 'jsonpath={.metadata.uid}']);
  expect(out).not.toBe('');
  return out;
}

async function issue(user: string, groups: string[] = []) {
  const stateDir = process.env.TENANTPLANE_TEST_STATE_DIR;
  const state = stateDir ? await readRunningControlPlane(stateDir) : undefined;
  if (!state) throw new Error('the integration control plane state is missing');
  return issueUserKubeconfig(state, 'host', user, groups);
}

describe('deploy/rbac/host-fairness: each tenant its own flow in the tenantplane priority level', () => {
  it('classifies a tenant by its FlowSchema (user and EKS group), another tenant by its own, a bystander by neither', async () => {
    const [a, b] = ['fair-a', 'fair-b'];
    const tenantA = await restrictedHostIdentity(a, `${a}-host`, FILES);
    const tenantB = await restrictedHostIdentity(b, `${b}-host`, FILES);
    // On EKS: the access entry's user, in the tenant's group (docs/eks.md).
    const iamA = await issue(`tenantplane-sync-${a}:iam`, [`tenantplane:sync:${a}`]);
    const bystander = await issue('fair-bystander');

    const level = await uidOf('prioritylevelconfiguration', 'tenantplane');
    const schemaA = await uidOf('flowschema', `tenantplane-sync-${a}`);
    const schemaB = await uidOf('flowschema', `tenantplane-sync-${b}`);
    const globalDefault = await uidOf('flowschema', 'global-default');
    expect(schemaA).not.toBe(schemaB);

    // The apiserver takes new FlowSchemas in a moment after they are written.
    const path = `/api/v1/namespaces/${a}-host/configmaps?limit=1`;
    const asA = await waitFor('tenant a classified by its FlowSchema', async () => {
      const seen = await classify(tenantA, path);
      return seen.flowSchema === schemaA ? seen : undefined;
    });
    expect(asA).toEqual({ status: 200, flowSchema: schemaA, priorityLevel: level });
    expect(await classify(iamA, path)).toMatchObject({
      flowSchema: schemaA,
      priorityLevel: level,
    });
    const asB = await waitFor('tenant b classified by its FlowSchema', async () => {
      const seen = await classify(tenantB, `/api/v1/namespaces/${b}-host/configmaps?limit=1`);
      return seen.flowSchema === schemaB ? seen : undefined;
    });
    expect(asB).toEqual({ status: 200, flowSchema: schemaB, priorityLevel: level });
    // Tenant b in tenant a's namespace: refused by RBAC, and still b's flow, not a's.
    expect(await classify(tenantB, path)).toEqual({
      status: 403,
      flowSchema: schemaB,
      priorityLevel: level,
    });

    const other = await classify(bystander, path);
    expect(other.flowSchema).toBe(globalDefault);
    expect(other.priorityLevel).not.toBe(level);
    expect([schemaA, schemaB]).not.toContain(other.flowSchema);
  });
});
