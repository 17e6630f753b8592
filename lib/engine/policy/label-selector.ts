/**
 * A small Kubernetes label-selector parser and matcher (the string syntax of
 * `kubectl get -l`): `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, joined by
 * commas (all must hold). Used for per-kind policy exclusions and by the in-memory test cluster.
 */

export type LabelRequirement =
  | { key: string; operator: 'Equals' | 'NotEquals'; value: string }
  | { key: string; operator: 'In' | 'NotIn'; values: readonly string[] }
  | { key: string; operator: 'Exists' | 'DoesNotExist' };

/** A parsed selector: every requirement must hold. No requirements matches everything. */
export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
}

/** A selector string that is not valid label-selector syntax. */
export class LabelSelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LabelSelectorError';
  }
}

const NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

/** True when `key` is a valid label key (optional DNS-subdomain prefix, `/`, a 63-char name). */
export function isValidLabelKey(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return NAME_PART.test(key);
  const prefix = key.slice(0, slash);
  const name = key.slice(slash + 1);
  return prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix) && NAME_PART.test(name);
}

/** True when `value` is a valid label value (empty, or up to 63 characters of `[-A-Za-z0-9_.]`). */
export function isValidLabelValue(value: string): boolean {
  return LABEL_VALUE.test(value);
}

function checkKey(key: string, text: string): string {
  if (!isValidLabelKey(key)) {
    throw new LabelSelectorError(`invalid label key "${key}" in selector "${text}"`);
  }
  return key;
}

function checkValue(value: string, text: string): string {
  if (!isValidLabelValue(value)) {
    throw new LabelSelectorError(`invalid label value "${value}" in selector "${text}"`);
  }
  return value;
}

/** Splits at commas that are not inside a `( ... )` value set. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (depth < 0) throw new LabelSelectorError(`unbalanced ")" in selector "${text}"`);
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  if (depth !== 0) throw new LabelSelectorError(`unbalanced "(" in selector "${text}"`);
  parts.push(current);
  return parts;
}

const SET_FORM = /^(\S+)\s+(in|notin)\s*\(([^()]*)\)$/;
const EQUALITY_FORM = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/;

/**
 * Parses a selector string. An empty (or blank) string has no requirements.
 * @throws LabelSelectorError naming what is wrong.
 */
export function parseLabelSelector(text: string): LabelSelector {
  if (text.trim() === '') return { requirements: [] };
  const requirements: LabelRequirement[] = [];
  for (const raw of splitTopLevel(text)) {
    const part = raw.trim();
    if (part === '') throw new LabelSelectorError(`empty requirement in selector "${text}"`);
    const set = SET_FORM.exec(part);
    if (set) {
      const [, key = '', op, list = ''] = set;
      const values = list.split(',').map((v) => checkValue(v.trim(), text));
      requirements.push({
        key: checkKey(key, text),
        operator: op === 'in' ? 'In' : 'NotIn',
        values,
      });
      continue;
    }
    const eq = EQUALITY_FORM.exec(part);
    if (eq) {
      const [, key = '', op, value = ''] = eq;
      requirements.push({
        key: checkKey(key, text),
        operator: op === '!=' ? 'NotEquals' : 'Equals',
        value: checkValue(value, text),
      });
      continue;
    }
    if (part.startsWith('!')) {
      requirements.push({ key: checkKey(part.slice(1).trim(), text), operator: 'DoesNotExist' });
      continue;
    }
    if (/\s/.test(part)) {
      throw new LabelSelectorError(`cannot parse requirement "${part}" in selector "${text}"`);
    }
    requirements.push({ key: checkKey(part, text), operator: 'Exists' });
  }
  return { requirements };
}

/** True when `labels` satisfy every requirement (Kubernetes semantics: `!=`/`notin` match an absent key). */
export function matchesLabelSelector(
  selector: LabelSelector,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  const all = labels ?? {};
  return selector.requirements.every((r) => {
    const has = Object.hasOwn(all, r.key);
    const value = all[r.key];
    switch (r.operator) {
      case 'Exists':
        return has;
      case 'DoesNotExist':
        return !has;
      case 'Equals':
        return has && value === r.value;
      case 'NotEquals':
        return !has || value !== r.value;
      case 'In':
        return has && r.values.includes(value ?? '');
      case 'NotIn':
        return !has || !r.values.includes(value ?? '');
    }
    return false;
  });
}

/** An equality-only selector string for `labels`, e.g. for a LIST by the reverse-mapping labels. */
export function equalitySelector(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}
