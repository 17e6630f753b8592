/**
 * Address blocks (CIDRs) and addresses, IPv4 and IPv6, compared as integers: what the isolation
 * limits check a Service's external IPs, an endpoint's address and a NetworkPolicy's `ipBlock`
 * against. Pure; no DNS, no network.
 */
import { isIP } from 'node:net';

/** A parsed address block. */
export interface Cidr {
  /** As the policy wrote it. */
  readonly text: string;
  readonly family: 4 | 6;
  /** The network address as an integer (host bits cleared). */
  readonly network: bigint;
  readonly prefix: number;
}

/** An IPv4 or IPv6 address as an integer and its family; `undefined` when it is not one. */
export function parseAddress(text: string): { family: 4 | 6; value: bigint } | undefined {
  // A zone (`fe80::1%eth0`) names a link of one machine: no block holds it.
  if (text.includes('%')) return undefined;
  const family = isIP(text);
  if (family === 4) {
    const parts = text.split('.').map(Number);
    return { family, value: parts.reduce((acc, p) => (acc << 8n) | BigInt(p), 0n) };
  }
  if (family === 6) {
    const [head = '', tail] = text.split('::');
    const groups = (part: string | undefined): string[] =>
      part === undefined || part === '' ? [] : part.split(':');
    let left = groups(head);
    let right = groups(tail);
    // An embedded IPv4 tail (`::ffff:1.2.3.4`): two groups.
    const expand = (list: string[]): string[] => {
      const last = list.at(-1);
      if (last?.includes('.')) {
        const v4 = parseAddress(last)?.value ?? 0n;
        return [...list.slice(0, -1), (v4 >> 16n).toString(16), (v4 & 0xffffn).toString(16)];
      }
      return list;
    };
    left = expand(left);
    right = expand(right);
    const fill = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
    const all = [...left, ...fill, ...right];
    return { family, value: all.reduce((acc, g) => (acc << 16n) | BigInt(`0x${g}`), 0n) };
  }
  return undefined;
}

/** A CIDR (`10.0.0.0/8`, `fd00::/8`; a bare address is its /32 or /128); `undefined` otherwise. */
export function parseCidr(text: string): Cidr | undefined {
  const [address = '', bits, extra] = text.split('/');
  if (extra !== undefined) return undefined;
  const parsed = parseAddress(address);
  if (!parsed) return undefined;
  const width = parsed.family === 4 ? 32 : 128;
  // Decimal digits only: `Number` would also read ` 8`, `0x8` and `1e1`.
  if (bits !== undefined && !/^\d{1,3}$/.test(bits)) return undefined;
  const prefix = bits === undefined ? width : Number(bits);
  if (prefix > width) return undefined;
  const hostBits = BigInt(width - prefix);
  const network = (parsed.value >> hostBits) << hostBits;
  return { text, family: parsed.family, network, prefix };
}

/** Whether address `text` lies inside `cidr`. */
export function cidrContains(cidr: Cidr, text: string): boolean {
  const parsed = parseAddress(text);
  if (!parsed || parsed.family !== cidr.family) return false;
  const width = cidr.family === 4 ? 32 : 128;
  const hostBits = BigInt(width - cidr.prefix);
  return (parsed.value >> hostBits) << hostBits === cidr.network;
}

/** Whether block `inner` (a CIDR text) lies wholly inside one of `allowed`. */
export function blockWithin(inner: string, allowed: readonly Cidr[]): boolean {
  const block = parseCidr(inner);
  if (!block) return false;
  return allowed.some(
    (outer) =>
      outer.family === block.family &&
      outer.prefix <= block.prefix &&
      cidrContains(outer, formatNetwork(block)),
  );
}

/** Whether address `text` lies inside one of `allowed`. */
export function addressWithin(text: string, allowed: readonly Cidr[]): boolean {
  return allowed.some((cidr) => cidrContains(cidr, text));
}

/**
 * Address `text` spelt one way (IPv4 dotted, IPv6 as eight hex groups): `2001:db8::1` and
 * `2001:0db8:0:0::1` are one address. `undefined` when it is not an address.
 */
export function canonicalAddress(text: string): string | undefined {
  const parsed = parseAddress(text);
  if (!parsed) return undefined;
  const prefix = parsed.family === 4 ? 32 : 128;
  return formatNetwork({ text, family: parsed.family, network: parsed.value, prefix });
}

/** The network address of `cidr` as text (for containment checks). */
function formatNetwork(cidr: Cidr): string {
  if (cidr.family === 4) {
    const v = cidr.network;
    return [24n, 16n, 8n, 0n].map((s) => ((v >> s) & 0xffn).toString()).join('.');
  }
  const groups: string[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(((cidr.network >> s) & 0xffffn).toString(16));
  return groups.join(':');
}
