/**
 * DNS questions to the local tenant DNS (a real CoreDNS, `lib/localcluster/tenant-dns.ts`): over
 * UDP through `node:dns`, and over TCP by hand (one A question, its answer's addresses), since a
 * Pod's resolver falls back to TCP for long answers and both must be served.
 */
import { createSocket } from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import { connect } from 'node:net';

/**
 * `127.0.0.1:<port>` of the run's tenant DNS, from the global setup. Throws, never skips, when it
 * is missing: a plane without its DNS (CoreDNS not built, say) must fail the run.
 */
export function tenantDnsServer(): string {
  const server = process.env.TENANTPLANE_TENANT_DNS;
  if (!server)
    throw new Error(
      'The local plane has no tenant DNS (clusters.tenant.dns): is CoreDNS built (npm run cluster:build)?',
    );
  return server;
}

/** Addresses, or the error code of the lookup (`ENOTFOUND` for NXDOMAIN, `ENODATA`...). */
export type Answer = { addresses: string[] } | { code: string };

function resolver(server: string): Resolver {
  const r = new Resolver({ timeout: 2000, tries: 2 });
  r.setServers([server]);
  return r;
}

async function answer(lookup: () => Promise<string[]>): Promise<Answer> {
  try {
    return { addresses: (await lookup()).sort() };
  } catch (error) {
    return { code: (error as NodeJS.ErrnoException).code ?? String(error) };
  }
}

/** A, AAAA and SRV questions over UDP. */
export function resolveA(server: string, name: string): Promise<Answer> {
  return answer(() => resolver(server).resolve4(name));
}
export function resolveAAAA(server: string, name: string): Promise<Answer> {
  return answer(() => resolver(server).resolve6(name));
}
export function resolveSrv(server: string, name: string): Promise<Answer> {
  return answer(async () =>
    (await resolver(server).resolveSrv(name)).map((s) => `${s.name}:${s.port}`),
  );
}

const NXDOMAIN = 3;

/** The wire form of `name` (labels, then the root). */
function wireName(name: string): Buffer {
  const labels = name.split('.').filter(Boolean);
  return Buffer.concat([
    ...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'ascii')])),
    Buffer.from([0]),
  ]);
}

/** The response code (0 NOERROR, 3 NXDOMAIN...) of one question of type `qtype` over UDP. */
export function rcodeOf(server: string, name: string, qtype: number): Promise<number> {
  const [host, port] = server.split(':');
  const header = Buffer.from([0x74, 0x71, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
  const question = Buffer.from([qtype >> 8, qtype & 0xff, 0, 1]);
  const message = Buffer.concat([header, wireName(name), question]);
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`no DNS answer for ${name} (type ${qtype})`));
    }, 2000);
    socket.on('message', (msg) => {
      clearTimeout(timer);
      socket.close();
      resolve(msg[3]! & 0x0f);
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      socket.close();
      reject(error);
    });
    socket.send(message, Number(port), host);
  });
}

/**
 * A question type no one asked before in this process: the private-use types (RFC 6895,
 * 65280-65534), then unassigned ones. CoreDNS's `cache` keys an answer by name, type, class and
 * the DO and CD bits (the name lowercased, so changing its case would not do), so a fresh type is
 * a question no cached answer can answer.
 */
let nextProbeType = 65280;
function freshType(): number {
  const type = nextProbeType;
  nextProbeType = type >= 65534 ? 4096 : type + 1;
  return type;
}

/**
 * Waits until the tenant DNS's `kubernetes` plugin has `name` (its watch delivered the Service
 * or EndpointSlice), without a single question that could leave a negative answer in the cache
 * for the questions the test asks next. For a type it does not serve, the plugin looks the name
 * up as A and answers NODATA (NOERROR, no records) when it exists, NXDOMAIN when it does not
 * (CoreDNS `plugin/kubernetes/handler.go`); each probe asks a fresh type, so no cached answer
 * stands in for the plugin's view. The deadline is generous: the watch delivers in well under a
 * second, but a loaded machine may starve CoreDNS for a while, and only the answer counts.
 */
export async function knownToDns(server: string, name: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  for (;;) {
    last = await rcodeOf(server, name, freshType());
    if (last === 0) return;
    if (Date.now() > deadline) {
      throw new Error(`the tenant DNS never had ${name} (last response code ${last})`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One A question's response code, addresses and smallest TTL (answer or authority records). */
export interface RawAnswer {
  rcode: number;
  addresses: string[];
  /** Seconds; for a denial the SOA's, which CoreDNS's `cache` counts down while it holds it. */
  ttl: number | undefined;
}

/**
 * One A question over UDP, read by hand for the TTL `node:dns` hides: a cached denial says how
 * long the cache still holds it, so a test waits on that instead of on a wall clock.
 */
export function askA(server: string, name: string): Promise<RawAnswer> {
  const [host, port] = server.split(':');
  const header = Buffer.from([0x74, 0x72, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
  const message = Buffer.concat([header, wireName(name), Buffer.from([0, 1, 0, 1])]);
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`no DNS answer for ${name} (type A)`));
    }, 5000);
    socket.on('message', (msg) => {
      clearTimeout(timer);
      socket.close();
      resolve(parseRaw(msg));
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      socket.close();
      reject(error);
    });
    socket.send(message, Number(port), host);
  });
}

function parseRaw(msg: Buffer): RawAnswer {
  const records = msg.readUInt16BE(6) + msg.readUInt16BE(8);
  let at = skipName(msg, 12) + 4;
  const addresses: string[] = [];
  let ttl: number | undefined;
  for (let n = 0; n < records; n++) {
    at = skipName(msg, at);
    const type = msg.readUInt16BE(at);
    const seconds = msg.readUInt32BE(at + 4);
    const length = msg.readUInt16BE(at + 8);
    if (type === 1 && length === 4) addresses.push([...msg.subarray(at + 10, at + 14)].join('.'));
    ttl = ttl === undefined ? seconds : Math.min(ttl, seconds);
    at += 10 + length;
  }
  return { rcode: msg[3]! & 0x0f, addresses: addresses.sort(), ttl };
}

/** One A question over TCP: the answer's IPv4 addresses, or `{code: 'ENOTFOUND'}` for NXDOMAIN. */
export function resolveATcp(server: string, name: string): Promise<Answer> {
  const [host, port] = server.split(':');
  const qname = wireName(name);
  // id 0x7470, recursion desired, one question of type A, class IN.
  const header = Buffer.from([0x74, 0x70, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
  const message = Buffer.concat([header, qname, Buffer.from([0, 1, 0, 1])]);
  const framed = Buffer.concat([
    Buffer.from([message.length >> 8, message.length & 0xff]),
    message,
  ]);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), host, () => socket.end(framed));
    let data = Buffer.alloc(0);
    socket.setTimeout(3000, () => socket.destroy(new Error('DNS over TCP timed out')));
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
    });
    socket.on('error', reject);
    socket.on('close', () => {
      try {
        resolve(parseA(data.subarray(2)));
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** Skips a (possibly compressed) name at `at`; returns the offset after it. */
function skipName(msg: Buffer, at: number): number {
  let i = at;
  while (msg[i] !== 0) {
    if ((msg[i]! & 0xc0) === 0xc0) return i + 2;
    i += msg[i]! + 1;
  }
  return i + 1;
}

function parseA(msg: Buffer): Answer {
  if ((msg[3]! & 0x0f) === NXDOMAIN) return { code: 'ENOTFOUND' };
  const answers = msg.readUInt16BE(6);
  let at = skipName(msg, 12) + 4;
  const addresses: string[] = [];
  for (let n = 0; n < answers; n++) {
    at = skipName(msg, at);
    const type = msg.readUInt16BE(at);
    const length = msg.readUInt16BE(at + 8);
    if (type === 1 && length === 4) addresses.push([...msg.subarray(at + 10, at + 14)].join('.'));
    at += 10 + length;
  }
  return addresses.length > 0 ? { addresses: addresses.sort() } : { code: 'ENODATA' };
}
