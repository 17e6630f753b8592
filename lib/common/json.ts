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

/** Deep equality on JSON values, insensitive to key order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return stableJson(a) === stableJson(b);
}

/** A short digest of JSON content (16 hex characters of SHA-256), insensitive to key order. */
export function jsonDigest(value: unknown): string {
  return createHash('sha256').update(stableJson(value), 'utf8').digest('hex').slice(0, 16);
}
