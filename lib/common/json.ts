/** JSON comparison that ignores key order, for drift detection and content hashes. */
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
