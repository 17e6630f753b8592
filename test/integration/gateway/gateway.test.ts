/**
 * The kubelet gateway on the real clusters (docs/kubelet-gateway.md): the tenant's Nodes name the
 * gateway (spec.workloads.kubeletGateway), the tenant apiserver calls it with its kubelet client
 * certificate, and the gateway relays to the host apiserver, where kwok serves logs, exec, attach
 * and port-forward (every forwarded port is `cat`: the bytes sent come back). The gateway calls
 * the host as each tenant's own restricted identity: the user deploy/rbac's host-cluster.yaml and
 * host-workloads.yaml bind, in its host namespace, and nothing else. `kubectl logs`, `logs -f`,
 * `exec`, `attach` and `port-forward` on the tenant Pod answer what they answer on its host copy;
 * another tenant's certificate, a name held by another tenant and a foreign object are 403, one
 * message for all (a missing Pod looks the same);
 * a hundred `kubectl logs` leave no stream and no connection to the host apiserver open; a
 * stalled host stream ends at the idle timeout.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { appendFile, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClusterApi } from '../../../lib/adapters/kube/cluster-client.js';
import { hostName } from '../../../lib/engine/index.js';
import { createGateway, type Gateway, loadGatewayTenants } from '../../../lib/gateway/index.js';
import { kubeletPkiPaths } from '../../../lib/localcluster/kubelet-pki.js';
import { createCa, signCertificate } from '../../../lib/localcluster/pki.js';
import { runCommand } from '../../../lib/localcluster/run.js';
import { kwokHome } from '../../../lib/localcluster/workload-daemons.js';
import { KWOK_LOG_FILE } from '../../../lib/localcluster/workloads.js';
import { isClusterError, type KindRef, type KubeObject } from '../../../lib/ports/index.js';
import {
  clusters,
  createTenant,
  pass,
  RUN,
  tenantObject,
  useApis,
  waitFor,
} from '../engine/support.js';
import { restrictedHostIdentity } from '../support/rbac.js';
import { kubectl } from './support.js';

const apis = useApis();
/** What the gateway logged (shown when a test fails). */
const logged: Record<string, unknown>[] = [];
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const NODE: KindRef = { apiVersion: 'v1', kind: 'Node' };
const stateDir = process.env.TENANTPLANE_TEST_STATE_DIR ?? '';
const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const kubelet = kubeletPkiPaths(join(stateDir, 'pki'));

const inTenant = (...args: string[]) => kubectl(clusters.tenantKubeconfigPath, args);
const onHost = (...args: string[]) => kubectl(clusters.hostKubeconfigPath, args);

/** The long-running kubectl processes, ended after the tests whatever happens. */
const children: ChildProcess[] = [];

/** A long-running `kubectl` in the tenant, and what it has printed so far. */
function kubectlInTenant(args: readonly string[]): { child: ChildProcess; out: () => string } {
  const child = execFile(clusters.kubectl, [
    '--kubeconfig',
    clusters.tenantKubeconfigPath,
    ...args,
  ]);
  children.push(child);
  let out = '';
  const add = (chunk: Buffer) => {
    out += chunk.toString();
  };
  child.stdout?.on('data', add);
  child.stderr?.on('data', add);
  return { child, out: () => out };
}

/** The host apiserver's port (in its kubeconfig's server URL). */
function hostApiserverPort(): number {
  const server = clusters.host.text.match(/server:\s*(\S+)/)?.[1] ?? '';
  return Number(new URL(server).port);
}

/** This process's established TCP connections to 127.0.0.1:`port` (`ss`). */
async function establishedTo(port: number): Promise<number> {
  const stdout = await runCommand('ss', ['-tnpH', 'state', 'established', `dport = :${port}`]);
  return stdout.split('\n').filter((line) => line.includes(`pid=${process.pid},`)).length;
}

/** Every TCP socket this process opens while `during` runs (diagnostics channel `net.client.socket`). */
async function socketsOpenedDuring(during: () => Promise<void>): Promise<Socket[]> {
  const opened: Socket[] = [];
  const onSocket = (message: unknown) => {
    opened.push((message as { socket: Socket }).socket);
  };
  subscribe('net.client.socket', onSocket);
  try {
    await during();
  } finally {
    unsubscribe('net.client.socket', onSocket);
  }
  return opened;
}

/** A GET of the gateway with a client certificate, as a tenant apiserver would send it. */
function gatewayGet(
  port: number,
  path: string,
  cert: { cert: Buffer; key: Buffer },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, ...cert, rejectUnauthorized: false, agent: false },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject).end();
  });
}

/** Whether `call` fails Forbidden (RBAC's answer to a request the grants do not cover). */
async function forbidden(call: () => Promise<unknown>): Promise<boolean> {
  return call().then(
    () => false,
    (error: unknown) => isClusterError(error, 'Forbidden'),
  );
}

/** The gateway's one refusal of a Pod the asking tenant cannot reach (lib/gateway/relay.ts). */
const notThisTenants = (namespace: string, pod: string) =>
  `forbidden: the kubelet gateway serves no pod ${namespace}/${pod} of this tenant\n`;

describe('the kubelet gateway', () => {
  let gateway: Gateway;
  let port = 0;
  let dir = '';
  let other: { cert: Buffer; key: Buffer };
  const otherTenant = `gw-other-${RUN}`;
  const otherNamespace = `h-${otherTenant}`;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tenantplane-gateway-'));
    // Another tenant's CA and its apiserver's client certificate.
    const otherCa = { caCert: join(dir, 'other-ca.crt'), caKey: join(dir, 'other-ca.key') };
    await createCa(otherCa, '/CN=other-tenant-ca', 1);
    const signed = await signCertificate(otherCa, {
      dir,
      name: 'other-client',
      subject: '/CN=other-apiserver',
      extensions: 'extendedKeyUsage=clientAuth\n',
      days: 1,
    });
    other = { cert: await readFile(signed.cert), key: await readFile(signed.key) };
    gateway = await startGateway(otherCa.caCert);
  });

  afterAll(async () => {
    if (process.env.GATEWAY_DEBUG) console.log(JSON.stringify(logged.slice(0, 20)));
    for (const child of children) child.kill();
    await gateway?.close();
  });

  let tenantName = '';
  let hostNamespace = '';
  /** The restricted host identity the gateway calls the host with for the tenant. */
  let hostIdentity: Awaited<ReturnType<typeof restrictedHostIdentity>>;
  /** The gateway's tenants file, and the tenant namespace of the Pod `web` (first test). */
  let config = '';
  let podNamespace = '';
  async function startGateway(otherCaCert: string): Promise<Gateway> {
    // The tenant is made after the port is known; its name is fixed now.
    tenantName = `gw-${RUN}`;
    hostNamespace = `h-${tenantName}`;
    // Each tenant's host identity, bound by the deploy/rbac host templates (which make and label
    // its host namespace) and by nothing else: what an operator gives the gateway.
    hostIdentity = await restrictedHostIdentity(tenantName, hostNamespace);
    const otherIdentity = await restrictedHostIdentity(otherTenant, otherNamespace);
    for (const [identity, namespace] of [
      [hostIdentity, hostNamespace],
      [otherIdentity, otherNamespace],
    ] as const) {
      const api = createClusterApi(identity);
      try {
        // RBAC takes effect eventually: the workload Role (pods and their subresources) first.
        await waitFor('the host identity’s grants', async () => {
          await api.list(POD, { namespace });
          return true;
        });
      } finally {
        await api.close();
      }
    }
    config = join(dir, 'gateway.yaml');
    await writeFile(
      config,
      JSON.stringify({
        tenants: [
          {
            name: tenantName,
            hostNamespace,
            clientCA: kubelet.clientCaCert,
            hostKubeconfig: hostIdentity.path,
          },
          {
            name: otherTenant,
            hostNamespace: otherNamespace,
            clientCA: otherCaCert,
            hostKubeconfig: otherIdentity.path,
          },
        ],
      }),
    );
    const g = createGateway({
      tenants: await loadGatewayTenants(config),
      cert: await readFile(kubelet.gatewayCert),
      key: await readFile(kubelet.gatewayKey),
      log: (entry) => logged.push(entry),
    });
    port = (await g.listen(0, '127.0.0.1')).port;
    return g;
  }

  it('serves kubectl logs, logs -f, exec, attach and port-forward of a tenant Pod, refuses what is not the tenant’s, and leaves nothing open', async () => {
    const { hostApi, tenantApi } = apis();
    const t = await createTenant(apis(), 'gw', {
      toHost: [POD],
      workloads: { kubeletGateway: { address: '127.0.0.1', port } },
    });
    expect(t.name).toBe(tenantName);
    const ns = t.vns.a;
    podNamespace = ns;
    const spec = {
      automountServiceAccountToken: false,
      containers: [{ name: 'web', image: 'nginx:1' }],
    };
    await tenantApi.create(tenantObject(t, POD, ns, 'web', { spec }));
    expect((await pass(t)).result.errors).toEqual([]);
    const h = hostName('web', ns, t.name);
    const running = await waitFor(
      'the host Pod Running',
      async () => {
        const pod = await hostApi.get(POD, t.hostNamespace, h);
        return (pod?.status as { phase?: string } | undefined)?.phase === 'Running'
          ? pod
          : undefined;
      },
      60_000,
    );
    expect((await pass(t, { full: true })).result.errors).toEqual([]);
    const nodeName = (running.spec as { nodeName: string }).nodeName;
    const node = (await tenantApi.get(NODE, undefined, nodeName)) as KubeObject;
    expect(node.status).toMatchObject({
      addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
      daemonEndpoints: { kubeletEndpoint: { Port: port } },
      declaredFeatures: ['ExtendWebSocketsToKubelet'],
    });

    // kubectl logs: exactly what the host copy's logs say.
    const hostLogs = await onHost('logs', '-n', t.hostNamespace, h);
    expect(hostLogs).toContain('kwok: the container started');
    expect(await inTenant('logs', '-n', ns, 'web')).toBe(hostLogs);
    expect(await inTenant('logs', '-n', ns, 'web', '--tail=1', '--timestamps')).toBe(
      await onHost('logs', '-n', t.hostNamespace, h, '--tail=1', '--timestamps'),
    );

    // kubectl logs -f: a line written after it started comes through.
    const line = `followed-${RUN}-${Date.now()}`;
    const follow = execFile(clusters.kubectl, [
      '--kubeconfig',
      clusters.tenantKubeconfigPath,
      'logs',
      '-f',
      '-n',
      ns,
      'web',
    ]);
    let followed = '';
    follow.stdout?.on('data', (chunk: Buffer) => {
      followed += chunk.toString();
    });
    await waitFor(
      'logs -f started',
      async () => followed.includes('kwok: the container started') || undefined,
      20_000,
    );
    await appendFile(
      join(kwokHome(stateDir), KWOK_LOG_FILE),
      `2025-01-02T00:00:00.000000000Z stdout F ${line}\n`,
    );
    await waitFor(
      'the new line followed',
      async () => followed.includes(line) || undefined,
      20_000,
    );
    follow.kill();
    await waitFor(
      'the follow stream ended',
      async () => gateway.streams.openNow() === 0 || undefined,
      20_000,
    );

    // kubectl exec (WebSocket, relayed unchanged).
    const token = `tok-${RUN}`;
    expect((await inTenant('exec', '-n', ns, 'web', '--', 'echo', token)).trim()).toBe(token);

    // kubectl attach: connected, it shows what the container writes from then on.
    const attach = kubectlInTenant(['attach', '-n', ns, 'web']);
    await waitFor('attach connected', async () => gateway.streams.openNow() === 1 || undefined);
    const attached = `attached-${RUN}-${Date.now()}`;
    // kwok follows the log from its end once the stream is up; write until the line comes.
    await waitFor(
      'the attached line',
      async () => {
        if (attach.out().includes(attached)) return true;
        await appendFile(
          join(kwokHome(stateDir), KWOK_LOG_FILE),
          `2025-01-03T00:00:00.000000000Z stdout F ${attached}\n`,
        );
        return undefined;
      },
      20_000,
    );
    attach.child.kill();
    await waitFor(
      'the attach stream ended',
      async () => gateway.streams.openNow() === 0 || undefined,
      20_000,
    );

    // kubectl port-forward: bytes sent to the local port reach the Pod's port and come back
    // (kwok's forward is `cat`), through the tenant apiserver, the gateway and the host.
    const forward = kubectlInTenant(['port-forward', '-n', ns, 'pod/web', ':8080']);
    const localPort = Number(
      await waitFor(
        'port-forward listening',
        async () => forward.out().match(/Forwarding from 127\.0\.0\.1:(\d+)/)?.[1],
        20_000,
      ),
    );
    const payload = Buffer.from(`round-trip-${RUN}-${'x'.repeat(64 * 1024)}`);
    const echoed = await new Promise<Buffer>((resolve, reject) => {
      const socket = connect(localPort, '127.0.0.1');
      const chunks: Buffer[] = [];
      let size = 0;
      socket.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= payload.length) {
          socket.destroy();
          resolve(Buffer.concat(chunks));
        }
      });
      socket.on('error', reject);
      socket.setTimeout(20_000, () => reject(new Error(`port-forward: ${forward.out()}`)));
      socket.write(payload);
    });
    expect(echoed.equals(payload)).toBe(true);
    forward.child.kill();
    await waitFor(
      'the port-forward stream ended',
      async () => gateway.streams.openNow() === 0 || undefined,
      20_000,
    );
    expect(logged).toContainEqual(
      expect.objectContaining({ msg: 'stream ended', action: 'portforward', pod: 'web' }),
    );

    // The gateway's host identity is the restricted one: it reads this tenant's host namespace and
    // nothing beyond it (not the other tenant's Pods, not the Pods of every namespace).
    const restricted = createClusterApi(hostIdentity);
    try {
      expect((await restricted.list(POD, { namespace: t.hostNamespace })).items.length).toBe(1);
      expect(await forbidden(() => restricted.list(POD, { namespace: otherNamespace }))).toBe(true);
      expect(await forbidden(() => restricted.list(POD))).toBe(true);
    } finally {
      await restricted.close();
    }

    // Refused, 403 with one message whatever the reason, so no certificate learns whether a Pod
    // it may not reach exists. Another tenant's certificate asking for this tenant's Pod: its
    // names map into its own host namespace, where no copy of its own holds the name; the same
    // as a Pod no one has.
    const refusal = (pod: string) => ({ status: 403, body: notThisTenants(ns, pod) });
    expect(await gatewayGet(port, `/containerLogs/${ns}/web/web`, other)).toEqual(refusal('web'));
    expect(await gatewayGet(port, `/containerLogs/${ns}/none/web`, other)).toEqual(refusal('none'));
    // The other tenant's host name of that Pod held by a copy of this tenant (a name not its
    // own): still 403, and the copy's logs are not served to the other tenant.
    const held = (
      name: string,
      labels: Record<string, string>,
      annotations: Record<string, string>,
      namespace: string,
    ) => hostApi.create({ ...POD, metadata: { name, namespace, labels, annotations }, spec });
    const mapping = (tenant: string, pod: string) => ({
      labels: {
        'app.kubernetes.io/managed-by': 'tenantplane',
        'tenantplane.io/tenant': tenant,
        'tenantplane.io/kind': 'Pod',
      },
      annotations: { 'tenantplane.io/virtual-namespace': ns, 'tenantplane.io/virtual-name': pod },
    });
    const ofThis = mapping(t.name, 'web');
    await held(hostName('web', ns, otherTenant), ofThis.labels, ofThis.annotations, otherNamespace);
    expect(await gatewayGet(port, `/containerLogs/${ns}/web/web`, other)).toEqual(refusal('web'));

    // Through kubectl, tenant Pods bound to the gateway's Node: one whose host name holds a
    // foreign Pod, one whose host name holds another tenant's copy, one with no host copy. Each
    // `kubectl logs` and `exec` says Forbidden with the gateway's message, the same for all three.
    const ofOther = mapping(otherTenant, 'taken');
    await held(hostName('stray', ns, t.name), {}, {}, t.hostNamespace);
    await held(hostName('taken', ns, t.name), ofOther.labels, ofOther.annotations, t.hostNamespace);
    const refusals: string[] = [];
    for (const name of ['stray', 'taken', 'gone']) {
      await tenantApi.create(tenantObject(t, POD, ns, name, { spec: { ...spec, nodeName } }));
      for (const args of [['logs'], ['exec'], ['exec', '-i']] as const) {
        const command =
          args[0] === 'exec' ? [...args, '-n', ns, name, '--', 'true'] : [...args, '-n', ns, name];
        const error = await inTenant(...command).then(
          () => new Error(`kubectl ${command.join(' ')} succeeded`),
          (e: unknown) => e as Error,
        );
        expect(error.message).toContain(notThisTenants(ns, name).trim());
        refusals.push(error.message.replaceAll(name, '<pod>'));
      }
    }
    if (process.env.GATEWAY_DEBUG) console.log(refusals.slice(0, 3).join('\n'));
    // kubectl logs shows the status (the tenant apiserver wraps the gateway's answer in one of its
    // own); kubectl exec only the text of the failed upgrade, which says forbidden itself.
    expect(refusals.slice(0, 3)).toEqual([
      expect.stringContaining('Error from server (Forbidden): forbidden: the kubelet gateway'),
      expect.stringContaining(
        'error: unable to upgrade connection: forbidden: the kubelet gateway',
      ),
      expect.stringContaining(
        'error: unable to upgrade connection: forbidden: the kubelet gateway',
      ),
    ]);
    expect(refusals.slice(3, 6)).toEqual(refusals.slice(0, 3));
    expect(refusals.slice(6, 9)).toEqual(refusals.slice(0, 3));

    // A hundred kubectl logs: every stream ended, none open, and every connection the gateway
    // opened to the host apiserver (a Pod GET and the log, each on its own) closed.
    const before = gateway.streams.counts.started;
    const hostPort = hostApiserverPort();
    const establishedBefore = await establishedTo(hostPort);
    const sockets = await socketsOpenedDuring(async () => {
      for (let i = 0; i < 10; i += 1) {
        await Promise.all(Array.from({ length: 10 }, () => inTenant('logs', '-n', ns, 'web')));
      }
    });
    expect(gateway.streams.counts.started - before).toBe(100);
    expect(gateway.streams.openNow()).toBe(0);
    expect(sockets.length).toBeGreaterThanOrEqual(200);
    await waitFor(
      'every upstream socket closed',
      async () => sockets.every((socket) => socket.destroyed) || undefined,
      10_000,
    );
    expect(await establishedTo(hostPort)).toBeLessThanOrEqual(establishedBefore);
  }, 240_000);

  it('the bundle deploy/gateway runs (npm run build:gateway) serves the same; its manifest applies cleanly', async () => {
    expect(podNamespace).not.toBe('');
    const out = join(dir, 'bundle');
    await runCommand(process.execPath, [
      join(REPO, 'scripts', 'build-gateway.mjs'),
      '--outdir',
      out,
    ]);
    // The Deployment's command, with this machine's paths.
    const child = execFile(process.execPath, [
      join(out, 'gateway.mjs'),
      `--config=${config}`,
      `--tls-cert=${kubelet.gatewayCert}`,
      `--tls-key=${kubelet.gatewayKey}`,
      '--address=127.0.0.1',
      '--port=0',
    ]);
    children.push(child);
    let stderr = '';
    let stdout = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const bundlePort = Number(
      await waitFor(
        'the bundled gateway listening',
        async () => stderr.match(/:(\d+)\n/)?.[1],
        20_000,
      ),
    );
    const client = {
      cert: await readFile(kubelet.clientCert),
      key: await readFile(kubelet.clientKey),
    };
    const logs = `/containerLogs/${podNamespace}/web/web`;
    expect((await gatewayGet(bundlePort, logs, client)).status).toBe(200);
    // The other tenant's host name of that Pod is held by this tenant's copy (the first test).
    expect(await gatewayGet(bundlePort, logs, other)).toEqual({
      status: 403,
      body: notThisTenants(podNamespace, 'web'),
    });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toContain('"msg":"stream ended"');

    // The manifest on a real apiserver: valid, and within the restricted Pod Security level its
    // namespace enforces (kubectl prints a warning for a Deployment whose Pods would violate it).
    const apply = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
      execFile(
        clusters.kubectl,
        [
          '--kubeconfig',
          clusters.hostKubeconfigPath,
          'apply',
          '-f',
          join(REPO, 'deploy', 'gateway', 'gateway.yaml'),
        ],
        (error, o, e) =>
          error ? reject(new Error(e || error.message)) : resolve({ stdout: o, stderr: e }),
      ),
    );
    expect(apply.stdout).toContain('deployment.apps/tenantplane-gateway created');
    expect(apply.stderr).not.toMatch(/PodSecurity|warning/i);
  }, 120_000);

  it('ends a stalled host stream at the idle timeout', async () => {
    expect(podNamespace).not.toBe('');
    // A second gateway, idle timeout 1.5 s, asked as the tenant apiserver asks: logs -f of a Pod
    // whose log gets no new line. The host keeps the stream open; the gateway ends it.
    const ended: Record<string, unknown>[] = [];
    const idle = createGateway({
      tenants: await loadGatewayTenants(config),
      cert: await readFile(kubelet.gatewayCert),
      key: await readFile(kubelet.gatewayKey),
      limits: { idleTimeoutMs: 1_500 },
      log: (entry) => ended.push(entry),
    });
    const idlePort = (await idle.listen(0, '127.0.0.1')).port;
    const client = {
      cert: await readFile(kubelet.clientCert),
      key: await readFile(kubelet.clientKey),
    };
    try {
      const t0 = Date.now();
      const body = await new Promise<string>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: idlePort,
            path: `/containerLogs/${podNamespace}/web/web?follow=true`,
            ...client,
            rejectUnauthorized: false,
            agent: false,
          },
          (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => {
              text += chunk.toString();
            });
            res.on('close', () => resolve(text));
          },
        );
        req.on('error', () => resolve('(closed)'));
        req.setTimeout(30_000, () => reject(new Error('the stalled stream was not ended')));
        req.end();
      });
      const took = Date.now() - t0;
      expect(body).toContain('kwok: the container started');
      expect(took).toBeGreaterThanOrEqual(1_500);
      expect(took).toBeLessThan(15_000);
      expect(idle.streams.counts.ended).toEqual({ idle: 1 });
      expect(idle.streams.openNow()).toBe(0);
      expect(ended).toContainEqual(
        expect.objectContaining({ msg: 'stream ended', action: 'logs', reason: 'idle' }),
      );
    } finally {
      await idle.close();
    }
  }, 60_000);
});
