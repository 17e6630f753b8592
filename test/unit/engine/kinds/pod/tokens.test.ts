/**
 * The tenant tokens of host Pods, pass after pass: minted by the tenant apiserver into a per-Pod
 * host Secret owned by the host Pod, renewed past 80% of their life, and nothing written between.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../../lib/engine/index.js';
import { tokenSecretName } from '../../../../../lib/engine/names/naming.js';
import { ClusterError, type KubeObject } from '../../../../../lib/ports/index.js';
import { clusters, decisionLines, HOST_NS, hn, SECRET } from '../../support.js';

const POD = { apiVersion: 'v1', kind: 'Pod' };
const SA = { apiVersion: 'v1', kind: 'ServiceAccount' };
const START = Date.UTC(2030, 0, 1);
const MINUTE = 60_000;

const tenantPod: KubeObject = {
  ...POD,
  metadata: { namespace: 'shop', name: 'web', uid: 'tenant-pod-uid' },
  spec: {
    serviceAccountName: 'builder',
    containers: [{ name: 'web', image: 'nginx' }],
    volumes: [
      {
        name: 'kube-api-access-x',
        projected: {
          sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3607 } }],
        },
      },
    ],
  },
};
const serviceAccount: KubeObject = { ...SA, metadata: { namespace: 'shop', name: 'builder' } };
const SPEC = {
  toHost: [POD],
  workloads: { tenantApiEndpoint: 'https://10.0.0.1:6443' },
};
const HOST_POD = hn('shop', 'web');
const SECRET_NAME = tokenSecretName(HOST_POD);

function setup(tenantState: KubeObject[] = [tenantPod, serviceAccount]) {
  let now = START;
  const clock = { now: () => now };
  const { tenantApi, hostApi } = clusters(tenantState, [], SPEC, {
    tenant: { tokens: { now: () => now, certificateAuthority: 'TENANT-CA' } },
  });
  const pass = (dryRun = false) => runPass({ tenant: 'dev', tenantApi, hostApi, clock, dryRun });
  return { tenantApi, hostApi, pass, advance: (ms: number) => (now += ms) };
}

describe('tenant tokens of host Pods', () => {
  it('mints a token bound to the tenant Pod into a Secret owned by the host Pod; then writes nothing', async () => {
    const { tenantApi, hostApi, pass } = setup();
    const first = await pass();
    expect(first.errors).toEqual([]);
    expect(decisionLines(first.decisions)).toEqual([
      `Create Pod shop/web -> ${HOST_POD}`,
      `Create Secret shop/web -> ${SECRET_NAME}`,
    ]);
    expect(
      tenantApi.issued.map(({ token: _t, expirationTimestamp: _e, ...asked }) => asked),
    ).toEqual([
      {
        namespace: 'shop',
        serviceAccount: 'builder',
        expirationSeconds: 3600,
        boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'web', uid: 'tenant-pod-uid' },
      },
    ]);
    const pod = hostApi.peek(POD, HOST_NS, HOST_POD);
    const secret = hostApi.peek(SECRET, HOST_NS, SECRET_NAME);
    expect(secret?.metadata.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Pod', name: HOST_POD, uid: pod?.metadata.uid },
    ]);
    const data = secret?.data as Record<string, string>;
    expect(Buffer.from(data.token ?? '', 'base64').toString()).toBe(tenantApi.issued[0]?.token);
    expect(Buffer.from(data['ca.crt'] ?? '', 'base64').toString()).toBe('TENANT-CA');
    expect(Buffer.from(data.namespace ?? '', 'base64').toString()).toBe('shop');
    // The token is in the Secret's data and nowhere a person or a log reads.
    expect(JSON.stringify(first)).not.toContain(tenantApi.issued[0]?.token);

    const second = await pass();
    expect(second.decisions).toEqual([]);
    expect(second.requests.host.writes).toBe(0);
    expect(second.requests.tenant.writes).toBe(0);
  });

  it('renews past 80% of the token’s life, and not before', async () => {
    const { tenantApi, hostApi, pass, advance } = setup();
    await pass();
    advance(47 * MINUTE);
    expect((await pass()).decisions).toEqual([]);
    advance(2 * MINUTE);
    const renewal = await pass();
    expect(decisionLines(renewal.decisions)).toEqual([`Update Secret shop/web -> ${SECRET_NAME}`]);
    expect(renewal.decisions[0]?.reason).toMatch(/past 80% of its life/);
    expect(tenantApi.issued).toHaveLength(2);
    const data = hostApi.peek(SECRET, HOST_NS, SECRET_NAME)?.data as Record<string, string>;
    expect(Buffer.from(data.token ?? '', 'base64').toString()).toBe(tenantApi.issued[1]?.token);
    const after = await pass();
    expect(after.decisions).toEqual([]);
    expect(after.requests.host.writes).toBe(0);
  });

  it('a resumed pass that wrote no Pod renews from the token Secrets, reading the host Pods once (for their status back)', async () => {
    const { hostApi, pass, advance } = setup();
    await pass();
    const podLists = () =>
      hostApi.calls.filter((c) => c.method === 'list' && c.kind === 'Pod').length;
    const listed = podLists();
    advance(49 * MINUTE);
    const renewal = await pass();
    expect(renewal.path).toBe('resumed');
    expect(decisionLines(renewal.decisions)).toEqual([`Update Secret shop/web -> ${SECRET_NAME}`]);
    // One label-selected LIST of the host Pods a pass (`kinds/pod/pod-kind.ts`), no more.
    expect(podLists()).toBe(listed + 1);
    expect((await pass()).decisions).toEqual([]);
    expect(podLists()).toBe(listed + 2);
  });

  it('a steady full pass over Pods that mount no token lists no token Secrets', async () => {
    const plain: KubeObject = {
      ...tenantPod,
      spec: { automountServiceAccountToken: false, containers: [{ name: 'web', image: 'nginx' }] },
    };
    const { hostApi, tenantApi } = setup([plain, serviceAccount]);
    const full = () => runPass({ tenant: 'dev', tenantApi, hostApi, path: 'full' });
    await full();
    const before = hostApi.callsOf('list').length;
    const steady = await full();
    expect(steady.decisions).toEqual([]);
    const kinds = hostApi
      .callsOf('list')
      .slice(before)
      .map((c) => c.kind);
    expect(kinds).not.toContain('Secret');
    expect(kinds).toContain('Pod');
  });

  it('deletes the Secret of a host Pod that is gone', async () => {
    const { tenantApi, hostApi, pass } = setup();
    await pass();
    tenantApi.remove(POD, 'shop', 'web');
    const result = await pass();
    expect(decisionLines(result.decisions)).toEqual([
      `Delete Pod shop/web -> ${HOST_POD}`,
      `Delete Secret shop/web -> ${SECRET_NAME}`,
    ]);
    expect(hostApi.peek(SECRET, HOST_NS, SECRET_NAME)).toBeUndefined();
  });

  it('a missing tenant service account is a Skip that says so; minted in the pass where it exists', async () => {
    const { tenantApi, pass } = setup([tenantPod]);
    const first = await pass();
    expect(first.errors).toEqual([]);
    expect(decisionLines(first.decisions)).toEqual([
      `Create Pod shop/web -> ${HOST_POD}`,
      `Skip Secret shop/web -> ${SECRET_NAME}`,
    ]);
    expect(first.decisions[1]?.reason).toMatch(/service account shop\/builder .* does not exist/);
    tenantApi.seed(serviceAccount);
    const second = await pass();
    expect(decisionLines(second.decisions)).toEqual([`Create Secret shop/web -> ${SECRET_NAME}`]);
  });

  it('a token the tenant refuses is an error of the Secret, its message withheld; retried next pass', async () => {
    const { tenantApi, pass } = setup();
    const forbidden = new ClusterError(
      'Forbidden',
      'serviceaccounts "builder" is forbidden: token abc',
      {
        status: 403,
      },
    );
    tenantApi.failWhen((call) => (call.method === 'createToken' ? forbidden : undefined));
    const first = await pass();
    expect(first.errors.map((e) => `${e.kind} ${e.hostRef?.name}`)).toEqual([
      `Secret ${SECRET_NAME}`,
    ]);
    expect(first.errors[0]?.message).toMatch(/withheld because Secret objects are sensitive/);
    expect(first.errors[0]?.message).not.toContain('abc');
    tenantApi.clearFailures();
    const second = await pass();
    expect(decisionLines(second.decisions)).toEqual([`Create Secret shop/web -> ${SECRET_NAME}`]);
  });

  it('a dry run decides the same and mints nothing', async () => {
    const { tenantApi, hostApi, pass } = setup();
    const dry = await pass(true);
    expect(decisionLines(dry.decisions)).toEqual([`Create Pod shop/web -> ${HOST_POD}`]);
    expect(tenantApi.issued).toEqual([]);
    expect(hostApi.peek(POD, HOST_NS, HOST_POD)).toBeUndefined();
  });
});
