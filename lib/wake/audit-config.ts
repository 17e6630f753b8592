/**
 * What a tenant apiserver needs to wake its function (docs/wake.md): an audit policy that sends
 * only the writes of the kinds its policy syncs, at Metadata level, and the kubeconfig of the
 * audit webhook (the wake URL with the tenant's path, the tenant's bearer token), plus the
 * kube-apiserver flags that use them. Pure rendering, shared by `tenantplane wake-config` and the
 * local plane, so both produce the same files.
 *
 * Written by hand rather than through a YAML library: the shape is fixed, and every string is
 * emitted as a JSON string, which is a valid YAML double-quoted scalar (no injection through a
 * tenant name or a URL).
 */

/** The writes that can change what a pass would copy. Reads and watches never wake anything. */
export const AUDIT_WRITE_VERBS = [
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
] as const;

/** Tenant namespaces a pass never reads (the engine skips them): their writes wake nothing. */
export const AUDIT_SKIPPED_NAMESPACES = ['kube-system', 'kube-public', 'kube-node-lease'] as const;

/**
 * The engine's own tenant identity (deploy/rbac/tenant-workloads): its writes to the tenant
 * (status back, bindings, Nodes, Events) are the function's own work and must not wake it again.
 */
export const DEFAULT_ENGINE_USER = 'tenantplane-sync';

/** One rule's resources: an API group (`""` for core) and resource names (plurals). */
export interface AuditResources {
  group: string;
  resources: readonly string[];
}

/** A kind the policy syncs, as its rule names it. */
export interface SyncedKind {
  apiVersion: string;
  kind: string;
}

import { Buffer } from 'node:buffer';

const q = (value: string): string => JSON.stringify(value);
const list = (values: readonly string[]): string => `[${values.map(q).join(', ')}]`;

/**
 * The resource name of a kind as Kubernetes guesses it without discovery
 * (`meta.UnsafeGuessKindToResource`): lower-cased, `s` added (`es` after an `s`, `ies` for a
 * final `y`). Right for every kind the engine knows; discovery is the authority for the others.
 */
export function guessResource(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower === '') return lower;
  if (lower.endsWith('s')) return `${lower}es`;
  if (lower.endsWith('y')) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

/** The group of an apiVersion (`v1` -> `""`, `apps/v1` -> `apps`). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * The audit resources of the synced kinds, grouped by API group (sorted, without duplicates).
 * `resourceOf` names a kind's resource (default {@link guessResource}).
 */
export function auditResourcesOf(
  kinds: readonly SyncedKind[],
  resourceOf: (kind: SyncedKind) => string = (k) => guessResource(k.kind),
): AuditResources[] {
  const groups = new Map<string, Set<string>>();
  for (const kind of kinds) {
    const group = groupOf(kind.apiVersion);
    const set = groups.get(group) ?? new Set<string>();
    set.add(resourceOf(kind));
    groups.set(group, set);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([group, set]) => ({ group, resources: [...set].sort() }));
}

export interface AuditPolicyOptions {
  /** Users whose writes wake nothing (default: {@link DEFAULT_ENGINE_USER}). */
  ignoreUsers?: readonly string[];
}

/**
 * The audit policy (audit.k8s.io/v1): the first matching rule decides, so the exclusions come
 * first (the engine's own writes, the skipped namespaces), then the write verbs of the synced
 * resources at Metadata level (no request or response bodies: nothing of the objects leaves the
 * apiserver), then `None` for everything else. The RequestReceived stage is omitted: one event per
 * request, at its end.
 */
export function renderAuditPolicy(
  resources: readonly AuditResources[],
  options: AuditPolicyOptions = {},
): string {
  const users = options.ignoreUsers ?? [DEFAULT_ENGINE_USER];
  const lines = [
    'apiVersion: audit.k8s.io/v1',
    'kind: Policy',
    '# tenantplane wake: only writes of the synced kinds, at Metadata level (docs/wake.md).',
    'omitStages: ["RequestReceived"]',
    'rules:',
  ];
  if (users.length > 0) lines.push('  - level: None', `    users: ${list(users)}`);
  lines.push('  - level: None', `    namespaces: ${list(AUDIT_SKIPPED_NAMESPACES)}`);
  if (resources.length > 0) {
    lines.push('  - level: Metadata', `    verbs: ${list(AUDIT_WRITE_VERBS)}`, '    resources:');
    for (const r of resources)
      lines.push(`      - group: ${q(r.group)}`, `        resources: ${list(r.resources)}`);
  }
  lines.push('  - level: None');
  return `${lines.join('\n')}\n`;
}

/** The path of a tenant on the wake endpoint. */
export function wakePath(tenant: string): string {
  return `/tenants/${encodeURIComponent(tenant)}`;
}

/** The wake URL of a tenant: the endpoint's URL (with or without a trailing `/`) and its path. */
export function tenantWakeUrl(wakeUrl: string, tenant: string): string {
  return `${wakeUrl.replace(/\/+$/, '')}${wakePath(tenant)}`;
}

export interface WebhookKubeconfigInput {
  tenant: string;
  /** The wake endpoint's URL (the function URL, or the local plane's `wake.url`). */
  wakeUrl: string;
  /** The tenant's wake token. The output holds it: it is a credential, handle it as one. */
  token: string;
  /** PEM of the CA that signed the endpoint's certificate, when not a public one. */
  certificateAuthorityPem?: string;
}

/** The audit webhook's kubeconfig: the tenant's wake URL as the server, its token as the user's. */
export function renderWebhookKubeconfig(input: WebhookKubeconfigInput): string {
  const cluster = `tenantplane-wake-${input.tenant}`;
  const lines = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `  - name: ${q(cluster)}`,
    '    cluster:',
    `      server: ${q(tenantWakeUrl(input.wakeUrl, input.tenant))}`,
  ];
  if (input.certificateAuthorityPem !== undefined)
    lines.push(
      `      certificate-authority-data: ${q(Buffer.from(input.certificateAuthorityPem, 'utf8').toString('base64'))}`,
    );
  lines.push(
    'users:',
    `  - name: ${q(cluster)}`,
    '    user:',
    `      token: ${q(input.token)}`,
    'contexts:',
    `  - name: ${q(cluster)}`,
    '    context:',
    `      cluster: ${q(cluster)}`,
    `      user: ${q(cluster)}`,
    `current-context: ${q(cluster)}`,
  );
  return `${lines.join('\n')}\n`;
}

/**
 * How long the apiserver holds an audit batch at most: the latency the wake adds (uniform over
 * the wait, as its batch timer runs whether or not an event came: half of it on average). 250 ms
 * and not the 1 s it was: 375 ms less on average from idle. Four batches a second at most per
 * tenant stay within the backend's default throttle (10 per second), and the endpoint coalesces
 * them into one invocation as before.
 */
export const AUDIT_BATCH_MAX_WAIT_MS = 250;

/**
 * The kube-apiserver flags of the audit webhook: batch mode (the apiserver buffers events and
 * sends them apart from its requests: a slow or absent endpoint never fails or slows a write, the
 * batch is retried, then dropped), a {@link AUDIT_BATCH_MAX_WAIT_MS} maximum wait, a 1 s initial
 * back-off instead of 10 s.
 */
export function apiserverAuditFlags(policyFile: string, kubeconfigFile: string): string[] {
  return [
    `--audit-policy-file=${policyFile}`,
    `--audit-webhook-config-file=${kubeconfigFile}`,
    '--audit-webhook-mode=batch',
    `--audit-webhook-batch-max-wait=${AUDIT_BATCH_MAX_WAIT_MS}ms`,
    '--audit-webhook-initial-backoff=1s',
  ];
}
