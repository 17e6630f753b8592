/**
 * Every path of a stream gives its slot back, and the upstream goes with the client: a client
 * that leaves during the Pod check takes no slot and cancels the check, one that leaves during
 * the relay cancels the host request or socket at once, a host that ends or fails ends the
 * client's stream. More leaving clients than the limit leave the tenant its full limit. Host
 * refusals come back in the tenant's words, and only the tenant Pod's containers are served.
 * A real TLS gateway, a fake host.
 */
import type { TLSSocket } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Gateway } from '../../../lib/gateway/server.js';
import {
  FakeHost,
  getHead,
  HOST_NS,
  HOST_POD,
  hostCopy,
  makePki,
  type Pki,
  received,
  sendRaw,
  startGateway,
  until,
  upgradeHead,
} from './fake-host.js';

const LOGS = '/containerLogs/apps/web/nginx?follow=true';
const EXEC = '/exec/apps/web/nginx?command=sh&output=1';

let pki: Pki;
let host: FakeHost;
let gateway: Gateway;
let port = 0;

async function setUp(limits = {}): Promise<void> {
  host = new FakeHost();
  const hostPort = await host.listen();
  ({ gateway, port } = await startGateway(pki, host.tenant(hostPort, pki.caPem), limits));
}

beforeAll(async () => {
  pki = await makePki();
}, 30_000);

afterEach(async () => {
  await gateway?.close();
  await host?.close();
});

afterAll(() => {});

describe('the stream slot goes back in every path', () => {
  it.each([
    ['logs', getHead(LOGS)],
    ['exec', upgradeHead(EXEC)],
  ])(
    '%s: a client that leaves during the Pod check cancels it and takes no slot',
    async (_, head) => {
      await setUp();
      const client = await sendRaw(port, pki, head);
      await until('the check asked', () => host.checks.length === 1);
      client.destroy();
      await until('the check cancelled', () => host.checks[0]?.signal.aborted === true);
      host.checks[0]?.resolve(hostCopy());
      await new Promise((r) => setTimeout(r, 50));
      expect(gateway.streams.openNow()).toBe(0);
      expect(gateway.streams.counts).toMatchObject({ started: 0, left: 1 });
      expect(host.calls).toEqual([]);
    },
  );

  it('logs: a client that leaves during the relay cancels the host request at once', async () => {
    await setUp();
    host.autoCheck = hostCopy();
    const client = await sendRaw(port, pki, getHead(LOGS));
    await until('the host asked', () => host.calls.length === 1);
    const call = host.calls[0]!;
    expect(call.req.url).toBe(
      `/api/v1/namespaces/${HOST_NS}/pods/${HOST_POD}/log?container=nginx&follow=true`,
    );
    call.res?.writeHead(200, { 'content-type': 'text/plain' });
    call.res?.write('line 1\n');
    await new Promise((r) => client.once('data', r));
    expect(gateway.streams.openNow()).toBe(1);
    client.destroy();
    await call.closed;
    await until('the slot back', () => gateway.streams.openNow() === 0);
    expect(gateway.streams.counts.ended).toEqual({ 'downstream-closed': 1 });
  });

  it('exec: a client that leaves during the relay closes the host socket at once', async () => {
    await setUp();
    host.autoCheck = hostCopy();
    const client = await sendRaw(port, pki, upgradeHead(EXEC));
    await new Promise((r) => client.once('data', r));
    await until('upgraded', () => host.calls[0]?.socket !== undefined);
    expect(gateway.streams.openNow()).toBe(1);
    client.destroy();
    await host.calls[0]?.closed;
    await until('the slot back', () => gateway.streams.openNow() === 0);
  });

  it('logs: a host that ends ends the client stream; one that fails closes it', async () => {
    await setUp();
    host.autoCheck = hostCopy();
    const ended = await sendRaw(port, pki, getHead(LOGS));
    const endedText = received(ended);
    await until('the host asked', () => host.calls.length === 1);
    host.calls[0]?.res?.writeHead(200, { 'content-type': 'text/plain' });
    host.calls[0]?.res?.end('all of it\n');
    expect(await endedText).toContain('all of it');
    await until('the slot back', () => gateway.streams.openNow() === 0);

    const cut = await sendRaw(port, pki, getHead(LOGS));
    const cutText = received(cut);
    await until('the host asked', () => host.calls.length === 2);
    host.calls[1]?.res?.writeHead(200, { 'content-type': 'text/plain' });
    host.calls[1]?.res?.write('half\n');
    await new Promise((r) => cut.once('data', r));
    host.calls[1]?.req.socket.destroy();
    expect(await cutText).toContain('half');
    await until('the slot back', () => gateway.streams.openNow() === 0);
    expect(gateway.streams.counts.ended).toEqual({ done: 1, 'upstream-closed': 1 });
  });

  it('exec: a host that closes its socket ends the client stream', async () => {
    await setUp();
    host.autoCheck = hostCopy();
    const client = await sendRaw(port, pki, upgradeHead(EXEC));
    const text = received(client);
    await until('upgraded', () => host.calls[0]?.socket !== undefined);
    host.calls[0]?.socket?.end('bye');
    expect(await text).toContain('101 Switching Protocols');
    await until('the slot back', () => gateway.streams.openNow() === 0);
  });

  it('more clients leaving during the check than the limit leave the tenant its whole limit', async () => {
    await setUp({ maxStreamsPerTenant: 2 });
    for (let i = 0; i < 3; i += 1) {
      const client = await sendRaw(port, pki, getHead(LOGS));
      await until('the check asked', () => host.checks.length === i + 1);
      client.destroy();
      await until('cancelled', () => host.checks[i]?.signal.aborted === true);
      host.checks[i]?.resolve(hostCopy());
    }
    host.autoCheck = hostCopy();
    const normal = await sendRaw(port, pki, getHead('/containerLogs/apps/web/nginx'));
    const text = received(normal);
    await until('the host asked', () => host.calls.length === 1);
    host.calls[0]?.res?.end('served\n');
    expect(await text).toMatch(/^HTTP\/1.1 200[\s\S]*served/);
    expect(gateway.streams.counts).toMatchObject({ left: 3, refused: 0 });
    await until('the slot back', () => gateway.streams.openNow() === 0);
  });
});

describe('a kept-alive connection', () => {
  it('carries many requests without gathering listeners', async () => {
    await setUp();
    host.autoCheck = hostCopy();
    const served: TLSSocket[] = [];
    gateway.server.on('secureConnection', (socket: TLSSocket) => served.push(socket));
    const client = await sendRaw(port, pki, '');
    let text = '';
    client.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    const counts: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      client.write(getHead('/containerLogs/apps/web/nginx'));
      await until('the host asked', () => host.calls.length === i + 1);
      host.calls[i]?.res?.end(`answer ${i}\n`);
      await until('the answer', () => text.includes(`answer ${i}`));
      await until('the slot back', () => gateway.streams.openNow() === 0);
      counts.push(served[0]?.listenerCount('close') ?? -1);
    }
    expect(served).toHaveLength(1);
    expect(new Set(counts).size).toBe(1);
    client.destroy();
  });
});

describe('the tenant’s words, the tenant’s containers', () => {
  const hostWords = /tenant-dev|tenantplane-sync|web-x|system:serviceaccount/;
  const status = (code: number, message: string) =>
    JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, code });

  it('a refused exec answers a Status naming the tenant Pod, never the host’s names', async () => {
    await setUp();
    host.autoCheck = hostCopy();
    host.refuseUpgrade = {
      status: 403,
      body: status(
        403,
        `pods "${HOST_POD}" is forbidden: User "tenantplane-sync-dev" cannot create resource "pods/exec" in API group "" in the namespace "${HOST_NS}"`,
      ),
    };
    const text = await received(await sendRaw(port, pki, upgradeHead(EXEC)));
    expect(text).toMatch(/^HTTP\/1.1 403 Forbidden/);
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'forbidden: the host cluster does not let the kubelet gateway exec into container "nginx" of pod apps/web',
      reason: 'Forbidden',
      code: 403,
    });
    expect(text).not.toMatch(hostWords);
    await until('the slot back', () => gateway.streams.openNow() === 0);
  });

  it('a refused log answers text naming the tenant Pod', async () => {
    await setUp();
    host.autoCheck = hostCopy();
    const client = await sendRaw(port, pki, getHead(LOGS));
    const text = received(client);
    await until('the host asked', () => host.calls.length === 1);
    host.calls[0]?.res?.writeHead(400, { 'content-type': 'application/json' });
    host.calls[0]?.res?.end(
      status(400, `container "nginx" in pod "${HOST_POD}" is waiting to start: ContainerCreating`),
    );
    const answer = await text;
    expect(answer).toMatch(/^HTTP\/1.1 400/);
    expect(answer).toContain(
      'container "nginx" of pod apps/web is waiting to start: ContainerCreating\n',
    );
    expect(answer).not.toMatch(hostWords);
  });

  it.each([
    ['logs', getHead('/containerLogs/apps/web/istio-proxy'), 'HTTP/1.1 404'],
    ['exec', upgradeHead('/exec/apps/web/istio-proxy?command=sh'), 'HTTP/1.1 404'],
    ['attach', upgradeHead('/attach/apps/web/istio-proxy?output=1'), 'HTTP/1.1 404'],
  ])(
    '%s of a container the tenant Pod does not declare is 404, nothing asked of the host',
    async (_, head, line) => {
      await setUp();
      host.autoCheck = hostCopy(['init-db', 'nginx', 'debugger']);
      const text = await received(await sendRaw(port, pki, head));
      expect(text.startsWith(line)).toBe(true);
      expect(text).toContain('not found: pod apps/web has no container "istio-proxy"');
      expect(host.calls).toEqual([]);
      expect(gateway.streams.counts).toMatchObject({ started: 0, refused: 1 });
    },
  );

  it('a copy that records no containers serves none of them (a full pass records them)', async () => {
    await setUp();
    const copy = hostCopy();
    delete copy.metadata.annotations?.['tenantplane.io/tenant-containers'];
    host.autoCheck = copy;
    const text = await received(await sendRaw(port, pki, getHead(LOGS)));
    expect(text).toMatch(/^HTTP\/1.1 404/);
    expect(text).toContain("the pod's containers are not recorded yet");
    expect(host.calls).toEqual([]);
  });
});
