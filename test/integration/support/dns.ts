/**
 * DNS questions to the local tenant DNS (a real CoreDNS, `lib/localcluster/tenant-dns.ts`): over
 * UDP through `node:dns`, and over TCP by hand (one A question, its answer's addresses), since a
 * Pod's resolver falls back to TCP for long answers and both must be served.
 */
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

/** One A question over TCP: the answer's IPv4 addresses, or `{code: 'ENOTFOUND'}` for NXDOMAIN. */
export function resolveATcp(server: string, name: string): Promise<Answer> {
  const [host, port] = server.split(':');
  const labels = name.split('.').filter(Boolean);
  const qname = Buffer.concat([
    ...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'ascii')])),
    Buffer.from([0]),
  ]);
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
