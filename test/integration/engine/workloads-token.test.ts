/**
 * In-cluster API access of a host Pod goes to the tenant, on the real clusters: the host Pod
 * carries no host credentials; its per-Pod token Secret, owned by the host Pod, holds a token the
 * TENANT apiserver minted, which authenticates there as the tenant service account (TokenReview);
 * the token is in no Decision, Event or log line; a second pass writes nothing on either side.
 */
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { KindRef, KubeObject } from '../../../lib/ports/index.js';
import {
  createTenant,
  decisionLines,
  pass,
  tenantEvents,
  tenantObject,
  useApis,
  waitFor,
} from './support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const SECRET: KindRef = { apiVersion: 'v1', kind: 'Secret' };
const SERVICE_ACCOUNT: KindRef = { apiVersion: 'v1', kind: 'ServiceAccount' };
const TOKEN_REVIEW: KindRef = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview' };
const MOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

type Container = { env?: Array<{ name: string; value?: string }>; volumeMounts?: unknown[] };
type Volume = { name: string; projected?: { sources: Array<Record<string, unknown>> } };

const decoded = (data: unknown, key: string) =>
  Buffer.from(String((data as Record<string, string>)[key] ?? ''), 'base64').toString('utf8');

describe('the tenant token of a host Pod', () => {
  it('authenticates to the tenant apiserver as the tenant service account; the host Pod holds no host credential; then nothing is written', async () => {
    const t = await createTenant(apis(), 'wl-token', { toHost: [POD] });
    const ns = t.vns.a;
    const hostPod = hostName('web', ns, t.name);
    const secretName = `${hostPod}.token`;
    await t.tenantApi.create(tenantObject(t, SERVICE_ACCOUNT, ns, 'builder'));
    await t.tenantApi.create(
      tenantObject(t, POD, ns, 'web', {
        spec: {
          serviceAccountName: 'builder',
          initContainers: [{ name: 'init', image: 'busybox:1' }],
          containers: [{ name: 'web', image: 'nginx:1' }],
        },
      }),
    );

    const first = await pass(t);
    expect(first.result.errors).toEqual([]);
    expect(decisionLines(first.result)).toEqual([
      `Create Pod ${ns}/web -> ${hostPod}`,
      `Create Secret ${ns}/web -> ${secretName}`,
    ]);

    // The host Pod: no host token, no host service account of the tenant's name, the tenant's
    // endpoint in every container, the token volume served from the Pod's own Secret.
    const pod = (await t.hostApi.get(POD, t.hostNamespace, hostPod)) as KubeObject;
    const spec = pod.spec as {
      automountServiceAccountToken?: boolean;
      serviceAccountName?: string;
      volumes: Volume[];
      containers: Container[];
      initContainers: Container[];
    };
    expect(spec.automountServiceAccountToken).toBe(false);
    expect(spec.serviceAccountName).not.toBe('builder');
    expect(JSON.stringify(spec)).not.toContain('serviceAccountToken');
    const tokenVolumes = spec.volumes.filter((v) =>
      v.projected?.sources.some(
        (s) => (s.secret as { name?: string } | undefined)?.name === secretName,
      ),
    );
    expect(tokenVolumes).toHaveLength(1);
    const server = new URL(t.tenantApi.server);
    for (const c of [...spec.initContainers, ...spec.containers]) {
      expect(c.volumeMounts).toContainEqual(expect.objectContaining({ mountPath: MOUNT }));
      expect(c.env).toEqual(
        expect.arrayContaining([
          { name: 'KUBERNETES_SERVICE_HOST', value: server.hostname },
          { name: 'KUBERNETES_SERVICE_PORT', value: server.port },
        ]),
      );
    }
    const hostSaSecrets = spec.volumes.filter((v) => JSON.stringify(v).includes('default-token'));
    expect(hostSaSecrets).toEqual([]);

    // The Secret: owned by the host Pod, the token in its data only.
    const secret = (await t.hostApi.get(SECRET, t.hostNamespace, secretName)) as KubeObject;
    expect(secret.metadata.ownerReferences).toEqual([
      expect.objectContaining({
        apiVersion: 'v1',
        kind: 'Pod',
        name: hostPod,
        uid: pod.metadata.uid,
      }),
    ]);
    expect(decoded(secret.data, 'namespace')).toBe(ns);
    expect(decoded(secret.data, 'ca.crt')).toContain('BEGIN CERTIFICATE');
    const token = decoded(secret.data, 'token');
    expect(token.split('.')).toHaveLength(3); // a JWT
    expect(JSON.stringify(secret.metadata)).not.toContain(token);
    expect(JSON.stringify(first.result)).not.toContain(token);
    expect(JSON.stringify(first.logs)).not.toContain(token);
    expect(JSON.stringify(await tenantEvents(t))).not.toContain(token);

    // The tenant apiserver says who it is: the tenant service account, bound to the tenant Pod.
    const review = await t.tenantApi.create({
      ...TOKEN_REVIEW,
      metadata: { name: 'probe' },
      spec: { token },
    });
    const status = review.status as {
      authenticated?: boolean;
      user?: { username?: string; extra?: Record<string, string[]> };
    };
    expect(status.authenticated).toBe(true);
    expect(status.user?.username).toBe(`system:serviceaccount:${ns}:builder`);
    expect(status.user?.extra?.['authentication.kubernetes.io/pod-name']).toEqual(['web']);

    // And it is no credential of the host: the host's apiserver does not take it.
    const hostReview = await t.hostApi.create({
      ...TOKEN_REVIEW,
      metadata: { name: 'probe' },
      spec: { token },
    });
    expect((hostReview.status as { authenticated?: boolean }).authenticated).not.toBe(true);

    // The host Pod's status comes back to the tenant Pod as the host runs it: once it is Ready
    // there, the tenant shows it after one more pass, and from then on nothing is written.
    await waitFor(
      'the host Pod Ready',
      async () => {
        const running = await t.hostApi.get(POD, t.hostNamespace, hostPod);
        const conditions = (running?.status as { conditions?: { type: string; status: string }[] })
          ?.conditions;
        return conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
          ? true
          : undefined;
      },
      60_000,
    );
    expect((await pass(t)).result.requests.host.writes).toBe(0);

    // Converged: nothing more on either side.
    for (const n of [1, 2]) {
      const steady = await pass(t, { full: n === 2 });
      expect({ n, decisions: steady.result.decisions }).toEqual({ n, decisions: [] });
      expect({ n, host: steady.result.requests.host.writes }).toEqual({ n, host: 0 });
      expect({ n, tenant: steady.result.requests.tenant.writes }).toEqual({ n, tenant: 0 });
    }
    const after = (await t.hostApi.get(SECRET, t.hostNamespace, secretName)) as KubeObject;
    expect(after.metadata.resourceVersion).toBe(secret.metadata.resourceVersion);
  });
});
