/**
 * Deterministic host names. Frozen: changing this function renames every host
 * object, so test vectors pin its exact output.
 */
import { createHash } from 'node:crypto';

const SEPARATOR = '-x-';
const MAX_NAME = 63;
const PREFIX_LENGTH = 52;
const HASH_LENGTH = 10;

/**
 * The host name of tenant object `name` in virtual namespace `vns` of tenant cluster `tenant`.
 *
 * The plain form `<name>-x-<vns>-x-<tenant>` is used only when it fits in 63 characters and splits
 * back into exactly its three parts (otherwise `a-x-b`/`c` and `a`/`b-x-c` would collide).
 * Everything else becomes a 52-character prefix (trailing `-`/`.` removed), `-`, and the first 10
 * hex characters of SHA-256 over `name/vns/tenant` ("/" cannot occur in names, so the key is
 * unambiguous).
 */
export function hostName(name: string, vns: string, tenant: string): string {
  const plain = name + SEPARATOR + vns + SEPARATOR + tenant;
  const parts = plain.split(SEPARATOR);
  if (
    plain.length <= MAX_NAME &&
    parts.length === 3 &&
    parts[0] === name &&
    parts[1] === vns &&
    parts[2] === tenant
  ) {
    return plain;
  }
  const h = createHash('sha256')
    .update(`${name}/${vns}/${tenant}`, 'utf8')
    .digest('hex')
    .slice(0, HASH_LENGTH);
  const prefix = plain.slice(0, PREFIX_LENGTH).replace(/[-.]+$/, '');
  return `${prefix}-${h}`;
}

const HASHED_TAIL = new RegExp(`-[0-9a-f]{${HASH_LENGTH}}$`);

/**
 * Whether `name` can be a {@link hostName} output for `tenant` at all: its plain form ends in
 * `-x-<tenant>`, its hashed form in `-` and 10 hex characters. Only a cheap pre-filter (it rules
 * names out, never in): whose copy an object is, is read from its reverse mapping.
 */
export function mayBeHostName(name: string, tenant: string): boolean {
  if (name.length > MAX_NAME) return false;
  return name.endsWith(SEPARATOR + tenant) || HASHED_TAIL.test(name);
}

/** What {@link tokenSecretName} appends to a host Pod's name. */
const TOKEN_SECRET_SUFFIX = '.token';

/**
 * The host Secret holding the tenant service-account token of host Pod `hostPodName`. Ending in
 * `.token`, it is no {@link hostName} output (those end in `-x-<tenant>`, a DNS label without dots,
 * or in 10 hex characters), so it never takes the name of a tenant object's copy.
 */
export function tokenSecretName(hostPodName: string): string {
  return hostPodName + TOKEN_SECRET_SUFFIX;
}
