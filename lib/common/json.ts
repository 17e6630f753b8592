/** JSON comparison that ignores key order, for drift detection and content hashes. */
import { createHash } from 'node:crypto';
import { isRecord } from './guards.js';

/** JSON with object keys sorted (undefined members dropped), so equal content prints equally. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A plain object as JSON.parse makes them (so its own enumerable keys are all there is). */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** How many own members of `record` are not undefined (stableJson drops undefined ones). */
function definedCount(record: Record<string, unknown>): number {
  let n = 0;
  for (const key of Object.keys(record)) if (record[key] !== undefined) n += 1;
  return n;
}

/**
 * Deep equality on JSON values, insensitive to key order: exactly `stableJson(a) ===
 * stableJson(b)`, without printing either. Drift detection compares every object of every pass,
 * so this walks the values and stops at the first difference; anything that is not a plain JSON
 * value (a Date, a number JSON prints as null, a class instance) is compared by its printing.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' || typeof a === 'boolean') return a === b;
  if (typeof a === 'number' && typeof b === 'number' && Number.isFinite(a)) return a === b;
  if (Array.isArray(a) && Array.isArray(b)) {
    // Unequal lengths may still print alike when holes (never in parsed JSON) are involved.
    if (a.length !== b.length) return stableJson(a) === stableJson(b);
    for (let i = 0; i < a.length; i += 1) {
      const x = a[i];
      const y = b[i];
      // A hole (never in parsed JSON) prints as nothing at all: compare the printings.
      if ((x === undefined && !(i in a)) || (y === undefined && !(i in b))) {
        return stableJson(a) === stableJson(b);
      }
      if (!jsonEqual(x, y)) return false;
    }
    return true;
  }
  if (isPlainRecord(a) && isPlainRecord(b)) {
    let defined = 0;
    for (const key of Object.keys(a)) {
      const value = a[key];
      if (value === undefined) continue;
      defined += 1;
      // A member missing from `b` (or undefined there) is dropped from its printing: unequal.
      const other = Object.hasOwn(b, key) ? b[key] : undefined;
      if (other === undefined || !jsonEqual(value, other)) return false;
    }
    // Every defined member of `a` is in `b`: equal when `b` has no other defined member.
    return definedCount(b) === defined;
  }
  return stableJson(a) === stableJson(b);
}

/**
 * A deep copy of a JSON value, as `structuredClone` makes it: plain objects and arrays are copied
 * member by member (much cheaper than structuredClone's serialisation for the many small values a
 * pass copies), anything else that is an object (a Date, a Map) goes through `structuredClone`.
 */
export function cloneJson<T>(value: T): T {
  // A function or a symbol: structuredClone refuses it (throws), and so does this.
  if (typeof value === 'function' || typeof value === 'symbol') return structuredClone(value);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  if (!isPlainRecord(value)) return structuredClone(value);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const member = cloneJson(value[key]);
    // JSON may name a member `__proto__` (a ConfigMap data key may): an assignment would set the
    // copy's prototype instead, so that one is defined as the own member it is.
    if (key === '__proto__') {
      Object.defineProperty(copy, key, {
        value: member,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else copy[key] = member;
  }
  return copy as T;
}

/** A short digest of JSON content (16 hex characters of SHA-256), insensitive to key order. */
export function jsonDigest(value: unknown): string {
  return createHash('sha256').update(stableJson(value), 'utf8').digest('hex').slice(0, 16);
}
