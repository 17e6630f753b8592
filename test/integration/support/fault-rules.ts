/**
 * The rules of the fault proxy (`fault-proxy.ts`): which requests a rule matches (method, path
 * pattern, query) and what it does to them, plus the Kubernetes `Status` body of a synthesized
 * answer.
 */

/** What a rule sees of a request. */
export interface ProxiedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
}

export interface FaultMatch {
  method?: string | RegExp;
  /** Tested against the path without the query. */
  path?: RegExp;
  /** Per query parameter: a value, a pattern, `true` (present) or `false` (absent). */
  query?: Record<string, string | RegExp | boolean>;
  where?: (request: ProxiedRequest) => boolean;
}

export type FaultAction =
  | {
      kind: 'respond';
      status: number;
      reason?: string;
      message?: string;
      headers?: Record<string, string>;
    }
  | { kind: 'stall' }
  | { kind: 'delay'; ms: number }
  | { kind: 'cut'; afterBytes: number }
  | { kind: 'reset' }
  | { kind: 'hook'; run: (request: ProxiedRequest) => Promise<void> };

export interface FaultRule {
  match?: FaultMatch;
  action: FaultAction;
  /** Matching requests let through before the rule fires. */
  skip?: number;
  /** How many times the rule fires (default: always). */
  times?: number;
}

/** One request the proxy saw, and what it did. */
export interface ProxyLogEntry {
  method: string;
  path: string;
  query: string;
  /** The rule's action kind, or `forward`. */
  action: string;
  /** The status sent to the client, when one was. */
  status?: number;
  /** When the request arrived (epoch ms): the gaps a client left between its requests. */
  at: number;
}

export interface ArmedRule extends FaultRule {
  seen: number;
  fired: number;
}

export function matches(match: FaultMatch | undefined, request: ProxiedRequest): boolean {
  if (!match) return true;
  const { method, path, query, where } = match;
  if (typeof method === 'string' && method !== request.method) return false;
  if (method instanceof RegExp && !method.test(request.method)) return false;
  if (path && !path.test(request.path)) return false;
  for (const [key, want] of Object.entries(query ?? {})) {
    const value = request.query.get(key);
    if (want === true && value === null) return false;
    if (want === false && value !== null) return false;
    if (typeof want === 'string' && value !== want) return false;
    if (want instanceof RegExp && (value === null || !want.test(value))) return false;
  }
  return where === undefined || where(request);
}

/** A Kubernetes `Status` body for a synthesized answer. */
export function statusBody(code: number, reason: string, message: string): string {
  return JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
  });
}

/** A rule set's building blocks, for readable tests. */
export const Faults = {
  status(
    status: number,
    reason: string,
    extra: Omit<Extract<FaultAction, { kind: 'respond' }>, 'kind' | 'status' | 'reason'> = {},
  ): FaultAction {
    return { kind: 'respond', status, reason, ...extra };
  },
  stall(): FaultAction {
    return { kind: 'stall' };
  },
};
