/**
 * The kubelet gateway on the real clusters, issue 35 (defect 5): a client that leaves frees what
 * it held, a host refusal comes back in the tenant's words, and only the tenant Pod's containers
 * are served. The gateway (at most 2 streams for the tenant) calls the host as the tenant's
 * restricted identity through the fault proxy, which holds each Pod check for 3 s: the window in
 * which a client leaves. Three clients leave in it (two raw kubelet requests, one `kubectl
 * logs -f` stopped): no slot stays taken, no host log request is made, and `kubectl logs` is
 * served (not 429). A container a host webhook added (here an ephemeral container the host admin
 * added) is not served, named in the kubelet path a tenant admin can send through the node proxy;
 * an exec the host refuses answers without the host's namespace, Pod name or user. uid and
 * resourceVersion snapshots of both sides show the gateway changed nothing.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClusterApi } from '../../../lib/adapters/kube/cluster-client.js';
import { hostName } from '../../../lib/engine/index.js';
import { createGateway, type Gateway, loadGatewayTenants } from '../../../lib/gateway/index.js';
import { readRunningControlPlane } from '../../../lib/localcluster/index.js';
import { kubeletPkiPaths } from '../../../lib/localcluster/kubelet-pki.js';
import { issueUserKubeconfig } from '../../../lib/localcluster/users.js';
import type { KindRef } from '../../../lib/ports/index.js';
import {
  clusters,
  createTenant,
  diffSnapshots,
  pass,
  RUN,
  type Tenant,
  tenantObject,
  useApis,
  waitFor,
} from '../engine/support.js';
import { snapshot } from '../faults/support.js';
import { FaultProxy } from '../support/fault-proxy.js';
import { kubectlApply, restrictedHostIdentity } from '../support/rbac.js';
import { kubectl } from './support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const stateDir = process.env.TENANTPLANE_TEST_STATE_DIR ?? '';
const kubelet = kubeletPkiPaths(join(stateDir, 'pki'));
const CHECK_DELAY_MS = 3_000;
const MAX_STREAMS = 2;

const inTenant = (...args: string[]) => kubectl(clusters.tenantKubeconfigPath, args);
/** The error text of a tenant kubectl that must fail. */
const failureOf = (...args: string[]) =>
  inTenant(...args).then(
    (out) => `(succeeded) ${out}`,
    (error: unknown) => (error as Error).message,
  );

const children: ChildProcess[] = [];
let dir = '';
let proxy: FaultProxy;
let gateway: Gateway | undefined;
let port = 0;
let t: Tenant;
let ns = '';
let hostPod = '';
let fullConfig = '';
const logged: Record<string, unknown>[] = [];

/** A gateway on `port` (0: any) for the tenant as the tenants file `config` says. */
async function startGateway(config: string, at: number): Promise<Gateway> {
  const g = createGateway({
    tenants: await loadGatewayTenants(config),
    cert: await readFile(kubelet.gatewayCert),
    key: await readFile(kubelet.gatewayKey),
    limits: { maxStreamsPerTenant: MAX_STREAMS },
    log: (entry) => logged.push(entry),
  });
  port = (await g.listen(at, '127.0.0.1')).port;
  return g;
}

/** The tenant (made once the gateway's port is known) and its host namespace. */
const TENANT = `gwl-${RUN}`;
const HOST_NAMESPACE = `h-${TENANT}`;

/** A tenants file for the tenant whose host kubeconfig is `kubeconfig` (text). */
async function tenantsFile(name: string, kubeconfig: string): Promise<string> {
  const path = join(dir, `${name}.kubeconfig`);
  await writeFile(path, kubeconfig);
  const config = join(dir, `${name}.yaml`);
  const entry = { name: TENANT, hostNamespace: HOST_NAMESPACE, clientCA: kubelet.clientCaCert };
  await writeFile(config, JSON.stringify({ tenants: [{ ...entry, hostKubeconfig: path }] }));
  return config;
}

/** A kubelet request sent as the tenant apiserver sends it (its client certificate). */
async function kubeletRequest(path: string, upgrade = false): Promise<TLSSocket> {
  const socket = connect({
    host: '127.0.0.1',
    port,
    cert: await readFile(kubelet.clientCert),
    key: await readFile(kubelet.clientKey),
    rejectUnauthorized: false,
  });
  socket.on('error', () => {});
  await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
  const upgrading = upgrade
    ? 'connection: Upgrade\r\nupgrade: websocket\r\nsec-websocket-version: 13\r\n' +
      'sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-protocol: v5.channel.k8s.io\r\n'
    : '';
  // `connection: close`: the gateway's answer ends with the connection.
  socket.write(
    `GET ${path} HTTP/1.1\r\nhost: gateway\r\n${upgrading || 'connection: close\r\n'}\r\n`,
  );
  return socket;
}

/** The whole answer of the gateway to one kubelet request (an upgrade when `upgrade`). */
async function gatewayAnswer(path: string, upgrade = false): Promise<string> {
  const socket = await kubeletRequest(path, upgrade);
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  await new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return text;
}

/** Both sides of the tenant: its host namespace and its tenant namespace. */
async function bothSides(): Promise<[Map<string, string>, Map<string, string>]> {
  return [await snapshot(t.hostNamespace), await snapshot(ns, clusters.tenantKubeconfigPath)];
}

describe('the kubelet gateway and a client that leaves', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tenantplane-gateway-leaving-'));
    proxy = await FaultProxy.start(clusters.host);
    const { hostApi, tenantApi } = apis();
    // The tenant's restricted host identity (deploy/rbac), reached through the fault proxy.
    const identity = await restrictedHostIdentity(TENANT, HOST_NAMESPACE);
    const api = createClusterApi(identity);
    try {
      await waitFor('the host identity’s grants', async () => {
        await api.list(POD, { namespace: HOST_NAMESPACE });
        return true;
      });
    } finally {
      await api.close();
    }
    // The tenant's Nodes name the gateway's port: the gateway first.
    fullConfig = await tenantsFile('full', proxy.kubeconfig(identity.text).text);
    gateway = await startGateway(fullConfig, 0);
    t = await createTenant(apis(), 'gwl', {
      toHost: [POD],
      workloads: { kubeletGateway: { address: '127.0.0.1', port } },
    });
    expect(t.name).toBe(TENANT);
    ns = t.vns.a;
    hostPod = hostName('web', ns, t.name);
    const spec = {
      automountServiceAccountToken: false,
      containers: [{ name: 'web', image: 'nginx:1' }],
    };
    await tenantApi.create(tenantObject(t, POD, ns, 'web', { spec }));
    expect((await pass(t)).result.errors).toEqual([]);
    await waitFor(
      'the host Pod Running',
      async () => {
        const pod = await hostApi.get(POD, t.hostNamespace, hostPod);
        return (pod?.status as { phase?: string } | undefined)?.phase === 'Running'
          ? pod
          : undefined;
      },
      60_000,
    );
    expect((await pass(t, { full: true })).result.errors).toEqual([]);
    expect(await inTenant('logs', '-n', ns, 'web')).toContain('kwok: the container started');
  }, 240_000);

  afterAll(async () => {
    if (process.env.GATEWAY_DEBUG) console.log(JSON.stringify(logged.slice(-20)));
    for (const child of children) child.kill();
    await gateway?.close();
    await proxy?.close();
  });

  it('clients that leave during the Pod check hold no slot and no host request; kubectl logs is still served', async () => {
    const [hostBefore, tenantBefore] = await bothSides();
    const check = new RegExp(`^/api/v1/namespaces/${t.hostNamespace}/pods/${hostPod}$`);
    const checks = () => proxy.log.filter((e) => check.test(e.path));
    const logRequests = () => proxy.log.filter((e) => e.path.endsWith(`/pods/${hostPod}/log`));
    proxy.setRules({
      match: { method: 'GET', path: check },
      action: { kind: 'delay', ms: CHECK_DELAY_MS },
    });
    const g = gateway as Gateway;
    // A request ends as a stream started, a refusal, or a client gone before its stream began.
    const counted = () =>
      g.streams.counts.started + g.streams.counts.refused + (g.streams.counts.left ?? 0);
    const before = { counted: counted(), logs: logRequests().length, checks: checks().length };

    // Two kubelet requests as the tenant apiserver sends them, closed once the check is under way.
    for (let i = 1; i <= MAX_STREAMS; i += 1) {
      const socket = await kubeletRequest(`/containerLogs/${ns}/web/web?follow=true`);
      await waitFor(
        'the check under way',
        async () => checks().length >= before.checks + i || undefined,
      );
      socket.destroy();
    }
    // A `kubectl logs -f` stopped (Ctrl-C) while the gateway checks the Pod.
    const follow = execFile(clusters.kubectl, [
      '--kubeconfig',
      clusters.tenantKubeconfigPath,
      'logs',
      '-f',
      '-n',
      ns,
      'web',
    ]);
    children.push(follow);
    await waitFor(
      'the check of kubectl logs -f under way',
      async () => checks().length >= before.checks + MAX_STREAMS + 1 || undefined,
      30_000,
    );
    follow.kill('SIGINT');

    // Every one of the three came to an end in the gateway (the delayed checks answered first).
    await waitFor(
      'the delayed checks answered',
      async () => checks().every((e) => e.status !== undefined) || undefined,
      30_000,
    );
    await waitFor(
      'the gateway’s verdict on each leaving client',
      async () => counted() - before.counted >= MAX_STREAMS + 1 || undefined,
      30_000,
    );
    expect({ open: g.streams.openNow(), left: g.streams.counts.left }).toEqual({
      open: 0,
      left: MAX_STREAMS + 1,
    });
    expect(logRequests().length).toBe(before.logs);

    // The tenant keeps its whole limit: logs served, not 429, and its stream given back.
    proxy.setRules();
    expect(await inTenant('logs', '-n', ns, 'web')).toContain('kwok: the container started');
    await waitFor('the stream ended', async () => g.streams.openNow() === 0 || undefined);
    expect(logRequests().length).toBe(before.logs + 1);
    const [hostAfter, tenantAfter] = await bothSides();
    const none = { created: [], changed: [], deleted: [] };
    expect(diffSnapshots(hostBefore, hostAfter)).toEqual(none);
    expect(diffSnapshots(tenantBefore, tenantAfter)).toEqual(none);
  }, 180_000);

  it('a container the host added to the copy is not served, whatever path names it', async () => {
    // A gateway of its own (the same tenants file and port), whatever the test before left.
    await gateway?.close();
    gateway = await startGateway(fullConfig, port);
    // The host admin adds an ephemeral container to the copy: a container of the host copy that
    // the tenant Pod's spec does not have, as a host webhook's sidecar would be.
    await kubectl(clusters.hostKubeconfigPath, [
      'patch',
      'pod',
      '-n',
      t.hostNamespace,
      hostPod,
      '--subresource=ephemeralcontainers',
      '--type=strategic',
      '-p',
      JSON.stringify({
        spec: {
          ephemeralContainers: [
            { name: 'intruder', image: 'busybox:1', targetContainerName: 'web' },
          ],
        },
      }),
    ]);
    const [hostBefore, tenantBefore] = await bothSides();
    const asked = proxy.log.length;
    // What the tenant apiserver sends for `kubectl get --raw /api/v1/nodes/<node>/proxy/<path>`
    // (a tenant admin may send any path; the apiserver relays it as it is). The local plane's
    // gateway listens on loopback, which an apiserver's node proxy refuses to reach ("address not
    // allowed"), so the test sends the kubelet requests itself, with the tenant apiserver's
    // kubelet client certificate.
    const intruder = await gatewayAnswer(`/containerLogs/${ns}/web/intruder`);
    expect(intruder).toMatch(/^HTTP\/1.1 404 /);
    expect(intruder).toContain(`not found: pod ${ns}/web has no container "intruder"`);
    const attach = await gatewayAnswer(`/attach/${ns}/web/intruder?output=1`, true);
    expect(attach).toMatch(/^HTTP\/1.1 404 /);
    // The tenant's own container: served.
    const own = await gatewayAnswer(`/containerLogs/${ns}/web/web`);
    expect(own).toMatch(/^HTTP\/1.1 200 /);
    expect(own).toContain('kwok: the container started');
    // Only the checks and the one log request of `web` reached the host.
    const after = proxy.log.slice(asked).map((e) => e.path.replace(/.*\/pods\//, ''));
    expect(after).toEqual([hostPod, hostPod, hostPod, `${hostPod}/log`]);
    const [hostAfter, tenantAfter] = await bothSides();
    const none = { created: [], changed: [], deleted: [] };
    expect(diffSnapshots(hostBefore, hostAfter)).toEqual(none);
    expect(diffSnapshots(tenantBefore, tenantAfter)).toEqual(none);
  }, 120_000);

  it('an exec the host refuses answers in the tenant’s words: no host namespace, Pod or user', async () => {
    // The gateway calls the host as an identity that may read the Pod and its logs, not exec.
    const reader = `gwl-reader-${RUN}`;
    await kubectlApply(
      clusters.hostKubeconfigPath,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'Role',
            metadata: { name: reader, namespace: t.hostNamespace },
            rules: [{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get'] }],
          },
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'RoleBinding',
            metadata: { name: reader, namespace: t.hostNamespace },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: reader },
            subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: reader }],
          },
        ],
      }),
    );
    const state = await readRunningControlPlane(stateDir);
    if (!state) throw new Error('the integration control plane state is missing');
    const identity = await issueUserKubeconfig(state, 'host', reader);
    const api = createClusterApi(identity);
    try {
      await waitFor(
        'the reader’s grants',
        async () => (await api.get(POD, t.hostNamespace, hostPod)) ?? undefined,
      );
    } finally {
      await api.close();
    }
    await gateway?.close();
    gateway = await startGateway(await tenantsFile('reader', identity.text), port);
    const [hostBefore, tenantBefore] = await bothSides();
    expect(await inTenant('logs', '-n', ns, 'web')).toContain('kwok: the container started');
    const refused = await failureOf('exec', '-n', ns, 'web', '--', 'true');
    expect(refused).toContain(
      `forbidden: the host cluster does not let the kubelet gateway exec into container "web" of pod ${ns}/web`,
    );
    for (const hostWord of [t.hostNamespace, hostPod, reader])
      expect(refused).not.toContain(hostWord);
    const [hostAfter, tenantAfter] = await bothSides();
    const none = { created: [], changed: [], deleted: [] };
    expect(diffSnapshots(hostBefore, hostAfter)).toEqual(none);
    expect(diffSnapshots(tenantBefore, tenantAfter)).toEqual(none);
    await waitFor('no stream open', async () => gateway?.streams.openNow() === 0 || undefined);
  }, 120_000);
});
