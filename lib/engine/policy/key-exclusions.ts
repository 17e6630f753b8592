/**
 * Label and annotation keys a policy keeps off the host. Tenant labels and annotations reach the
 * host copy, and some host controllers act on them (a replicator copying a Secret into other
 * namespaces, an ingress controller reading configuration snippets); a rule's
 * `exclude.labelKeys` / `exclude.annotationKeys` (glob patterns, `*` for any characters) drop
 * those keys in the transform. A key dropped that an earlier pass copied is removed from the host
 * copy at the next update (it is no longer among the owned keys), while keys host controllers add
 * stay.
 */
import { isRecord } from '../../common/index.js';

/** Compiled key exclusions of one rule: true for a key that must not reach the host. */
export interface KeyExclusions {
  labels?: (key: string) => boolean;
  annotations?: (key: string) => boolean;
}

/** A glob over a label or annotation key: key characters and `*`. */
const GLOB = /^[A-Za-z0-9*]([A-Za-z0-9._/*-]{0,315}[A-Za-z0-9*])?$/;

function parseGlobs(value: unknown, where: string, problems: string[]): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    problems.push(`${where} must be a list of key patterns like "example.com/*"`);
    return undefined;
  }
  const bad = value.filter((v) => !GLOB.test(v));
  if (bad.length > 0) {
    problems.push(
      `${where} has patterns that match no label or annotation key: ${bad.map((b) => JSON.stringify(b)).join(', ')} (use key characters and * only)`,
    );
    return undefined;
  }
  return [...value];
}

/** Parses `exclude.labelKeys` and `exclude.annotationKeys` of a rule (problems collected). */
export function parseKeyExclusions(
  exclude: Record<string, unknown>,
  where: string,
  problems: string[],
): { labelKeys?: string[]; annotationKeys?: string[] } {
  const out: { labelKeys?: string[]; annotationKeys?: string[] } = {};
  const labelKeys = parseGlobs(exclude.labelKeys, `${where}.labelKeys`, problems);
  const annotationKeys = parseGlobs(exclude.annotationKeys, `${where}.annotationKeys`, problems);
  if (labelKeys && labelKeys.length > 0) out.labelKeys = labelKeys;
  if (annotationKeys && annotationKeys.length > 0) out.annotationKeys = annotationKeys;
  return out;
}

/** A predicate matching any of `globs` (whole key, `*` = any characters, `/` included). */
export function keyMatcher(
  globs: readonly string[] | undefined,
): ((key: string) => boolean) | undefined {
  if (!globs || globs.length === 0) return undefined;
  const toPattern = (g: string) => g.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  const pattern = new RegExp(`^(?:${globs.map(toPattern).join('|')})$`);
  return (key) => pattern.test(key);
}

/** Compiles the key exclusions of a rule's `exclude`. */
export function compileKeyExclusions(exclude: unknown): KeyExclusions {
  if (!isRecord(exclude)) return {};
  const labels = keyMatcher(exclude.labelKeys as string[] | undefined);
  const annotations = keyMatcher(exclude.annotationKeys as string[] | undefined);
  return { ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) };
}
