/** JSON comparison that ignores key order, for drift detection and content hashes. */
import { createHash } from 'node:crypto';
import { isRecord } from './guards.js';

/**
 * How deeply objects and lists may nest in a value the helpers below walk. They recurse, and a
 * value nested a few thousand levels deep (the apiserver accepts 10,000 for a custom resource
 * that preserves unknown fields) would overflow the stack: a RangeError that no caller can tell
 * from a bug. No real schema comes near 1,000 levels, and 1,000 recursive frames fit the stack
 * with a wide margin (measured here: stableJson overflowed at about 3,500 inside a pass).
 */
export const MAX_JSON_DEPTH = 1000;

/** A value nested deeper than {@link MAX_JSON_DEPTH}: an error of that value, with a clear reason. */
export class JsonDepthError extends Error {
  constructor() {
    super(
      `the object nests objects and lists more than ${MAX_JSON_DEPTH} levels deep, more than tenantplane handles; it is not synced`,
    );
    this.name = 'JsonDepthError';
  }
}

function checkDepth(depth: number): void {
  if (depth > MAX_JSON_DEPTH) throw new JsonDepthError();
}

/**
 * JSON with object keys sorted (undefined members dropped), so equal content prints equally.
 * @throws JsonDepthError for a value nested deeper than {@link MAX_JSON_DEPTH}.
 */
export function stableJson(value: unknown): string {
  return stableJsonAt(value, 0);
}

function stableJsonAt(value: unknown, depth: number): string {
  if (Array.isArray(value)) {
    checkDepth(depth + 1);
    return `[${value.map((item) => stableJsonAt(item, depth + 1)).join(',')}]`;
  }
  if (isRecord(value)) {
    checkDepth(depth + 1);
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJsonAt(value[k], depth + 1)}`).join(',')}}`;
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
 * It recurses no deeper than the shallower of the two values (it stops at the first difference).
 * @throws JsonDepthError when both nest deeper than {@link MAX_JSON_DEPTH} alike.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return jsonEqualAt(a, b, 0);
}

function jsonEqualAt(a: unknown, b: unknown, depth: number): boolean {
  if (typeof a === 'string' || typeof a === 'boolean') return a === b;
  if (typeof a === 'number' && typeof b === 'number' && Number.isFinite(a)) return a === b;
  if (Array.isArray(a) && Array.isArray(b)) {
    checkDepth(depth + 1);
    // Unequal lengths may still print alike when holes (never in parsed JSON) are involved.
    if (a.length !== b.length) return stableJson(a) === stableJson(b);
    for (let i = 0; i < a.length; i += 1) {
      const x = a[i];
      const y = b[i];
      // A hole (never in parsed JSON) prints as nothing at all: compare the printings.
      if ((x === undefined && !(i in a)) || (y === undefined && !(i in b))) {
        return stableJson(a) === stableJson(b);
      }
      if (!jsonEqualAt(x, y, depth + 1)) return false;
    }
    return true;
  }
  if (isPlainRecord(a) && isPlainRecord(b)) {
    checkDepth(depth + 1);
    let defined = 0;
    for (const key of Object.keys(a)) {
      const value = a[key];
      if (value === undefined) continue;
      defined += 1;
      // A member missing from `b` (or undefined there) is dropped from its printing: unequal.
      const other = Object.hasOwn(b, key) ? b[key] : undefined;
      if (other === undefined || !jsonEqualAt(value, other, depth + 1)) return false;
    }
    // Every defined member of `a` is in `b`: equal when `b` has no other defined member.
    return definedCount(b) === defined;
  }
  // A plain record, a list and a primitive never print alike: unequal, without printing either
  // (one of them may be nested too deeply to print).
  const shapeA = shapeOf(a);
  const shapeB = shapeOf(b);
  if (shapeA !== 'other' && shapeB !== 'other' && shapeA !== shapeB) return false;
  return stableJson(a) === stableJson(b);
}

/** What a value prints as, roughly: `{...}`, `[...]`, a primitive's printing, or anything. */
function shapeOf(value: unknown): 'record' | 'list' | 'primitive' | 'other' {
  if (Array.isArray(value)) return 'list';
  if (isPlainRecord(value)) return 'record';
  if (typeof value === 'bigint') return 'other'; // JSON cannot print it: stableJson throws
  return typeof value !== 'object' || value === null ? 'primitive' : 'other';
}

/**
 * A deep copy of a JSON value, as `structuredClone` makes it: plain objects and arrays are copied
 * member by member (much cheaper than structuredClone's serialisation for the many small values a
 * pass copies), anything else that is an object (a Date, a Map) goes through `structuredClone`.
 * @throws JsonDepthError for a value nested deeper than {@link MAX_JSON_DEPTH}.
 */
export function cloneJson<T>(value: T): T {
  return cloneJsonAt(value, 0);
}

function cloneJsonAt<T>(value: T, depth: number): T {
  // A function or a symbol: structuredClone refuses it (throws), and so does this.
  if (typeof value === 'function' || typeof value === 'symbol') return structuredClone(value);
  if (typeof value !== 'object' || value === null) return value;
  checkDepth(depth + 1);
  if (Array.isArray(value)) return value.map((item) => cloneJsonAt(item, depth + 1)) as T;
  if (!isPlainRecord(value)) return structuredClone(value);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const member = cloneJsonAt(value[key], depth + 1);
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

/**
 * A short digest of JSON content (16 hex characters of SHA-256), insensitive to key order.
 * @throws JsonDepthError for a value nested deeper than {@link MAX_JSON_DEPTH}.
 */
export function jsonDigest(value: unknown): string {
  return createHash('sha256').update(stableJson(value), 'utf8').digest('hex').slice(0, 16);
}
