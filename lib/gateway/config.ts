/**
 * The gateway's tenants: which CA signs each tenant apiserver's kubelet client certificate, the
 * tenant's host namespace, and the host kubeconfig the gateway calls the host with for it (the
 * tenant's own host identity, the one its sync pass uses). One YAML or JSON file:
 *
 * ```yaml
 * tenants:
 *   - name: dev                       # the TenantCluster name (the tenant of every host name)
 *     hostNamespace: tenant-dev
 *     clientCA: dev/kubelet-client-ca.crt      # relative paths: from this file's directory
 *     hostKubeconfig: dev/host.kubeconfig
 * ```
 *
 * A tenant is known by the CA that issued the client certificate its apiserver presents
 * (directly: no intermediates), so two tenants never share a CA.
 */
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { load } from 'js-yaml';
import { loadKubeconfig } from '../adapters/kubeconfig/load.js';
import { isRecord, tenantNameProblem } from '../common/index.js';
import { HostTarget } from './upstream.js';

/** One tenant the gateway serves. */
export interface GatewayTenant {
  name: string;
  hostNamespace: string;
  /** The CA certificates (PEM bundle) that sign its apiserver's kubelet client certificates. */
  clientCas: X509Certificate[];
  /** The PEM bundle of {@link clientCas}, for the TLS server's trust list. */
  clientCaPem: string;
  host: HostTarget;
}

export class GatewayConfigError extends Error {
  override readonly name = 'GatewayConfigError';
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** The certificates of a PEM bundle (none when it holds none). */
export function pemCertificates(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => new X509Certificate(block));
}

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new GatewayConfigError(`${what} ${path} cannot be read (${String(code ?? 'error')})`);
  }
}

type Check = (value: unknown) => boolean;

const FIELDS: readonly (readonly [string, Check, string])[] = [
  ['name', (v) => typeof v === 'string' && !tenantNameProblem(v), 'a TenantCluster name'],
  ['hostNamespace', (v) => typeof v === 'string' && DNS_LABEL.test(v), 'a namespace name'],
  ['clientCA', (v) => typeof v === 'string' && v !== '', 'the path of a PEM CA bundle'],
  ['hostKubeconfig', (v) => typeof v === 'string' && v !== '', 'the path of a kubeconfig'],
];

/** Every problem of a tenant entry's fields, each naming its field. */
function fieldProblems(entry: Record<string, unknown>): string[] {
  return FIELDS.flatMap(([field, ok, what]) => {
    const value = entry[field];
    if (value === undefined) return [`${field} is missing (${what})`];
    return ok(value) ? [] : [`${field} must be ${what}, got ${JSON.stringify(value)}`];
  });
}

async function parseTenant(entry: unknown, at: string, base: string): Promise<GatewayTenant> {
  if (!isRecord(entry)) throw new GatewayConfigError(`${at} must be an object`);
  const problems = fieldProblems(entry);
  if (problems.length > 0) throw new GatewayConfigError(`${at}: ${problems.join('; ')}`);
  const { name, hostNamespace, clientCA, hostKubeconfig } = entry as {
    name: string;
    hostNamespace: string;
    clientCA: string;
    hostKubeconfig: string;
  };
  const caPath = resolve(base, clientCA);
  const clientCaPem = await readText(caPath, `${at}.clientCA`);
  let clientCas: X509Certificate[];
  try {
    clientCas = pemCertificates(clientCaPem);
  } catch {
    throw new GatewayConfigError(
      `${at}.clientCA ${caPath} holds a certificate that cannot be read`,
    );
  }
  if (clientCas.length === 0 || clientCas.some((ca) => !ca.ca)) {
    throw new GatewayConfigError(`${at}.clientCA ${caPath} must hold CA certificates`);
  }
  const kubeconfigPath = resolve(base, hostKubeconfig);
  const text = await readText(kubeconfigPath, `${at}.hostKubeconfig`);
  const loaded = loadKubeconfig({ text, origin: kubeconfigPath });
  return { name, hostNamespace, clientCas, clientCaPem, host: new HostTarget(loaded) };
}

/**
 * A hint for the file most often given by mistake: the CDK's config/tenants.yaml also lists
 * `tenants`, but with their secrets and schedules, not the gateway's fields.
 */
function cdkConfigHint(doc: unknown): string {
  const tenants = isRecord(doc) && Array.isArray(doc.tenants) ? doc.tenants : [];
  const cdk = tenants.some((t) => isRecord(t) && ('tenantSecretId' in t || 'schedule' in t));
  return cdk
    ? '. This looks like the CDK tenants config (config/tenants.yaml); the gateway takes its own file: docs/kubelet-gateway.md'
    : '';
}

/** Reads and checks the gateway's tenants file (see the module doc). */
export async function loadGatewayTenants(path: string): Promise<GatewayTenant[]> {
  const text = await readText(path, 'the gateway configuration');
  let doc: unknown;
  try {
    doc = load(text);
  } catch {
    throw new GatewayConfigError(`the gateway configuration ${path} is not YAML`);
  }
  const list = isRecord(doc) ? doc.tenants : undefined;
  if (!Array.isArray(list) || list.length === 0) {
    throw new GatewayConfigError(`the gateway configuration ${path} lists no tenants`);
  }
  const base = dirname(resolve(path));
  const hint = cdkConfigHint(doc);
  const tenants = await Promise.all(
    list.map((t, i) => {
      const name = isRecord(t) && typeof t.name === 'string' ? ` (${t.name})` : '';
      return parseTenant(t, `the gateway configuration ${path}: tenants[${i}]${name}`, base).catch(
        (error: unknown) => {
          throw error instanceof GatewayConfigError && hint !== ''
            ? new GatewayConfigError(`${error.message}${hint}`)
            : error;
        },
      );
    }),
  );
  const seen = new Map<string, string>();
  const names = new Set<string>();
  for (const tenant of tenants) {
    if (names.has(tenant.name))
      throw new GatewayConfigError(`tenant ${tenant.name} is listed twice`);
    names.add(tenant.name);
    for (const ca of tenant.clientCas) {
      const other = seen.get(ca.fingerprint256);
      if (other !== undefined) {
        throw new GatewayConfigError(
          `tenants ${other} and ${tenant.name} share a client CA: a tenant is known by its CA`,
        );
      }
      seen.set(ca.fingerprint256, tenant.name);
    }
  }
  return tenants;
}

/**
 * The tenant whose CA issued `leaf` (the client certificate the TLS handshake verified), or
 * `undefined`. Issued means named as issuer and signed by the CA's key.
 */
export function tenantOf(
  tenants: readonly GatewayTenant[],
  leaf: X509Certificate,
): GatewayTenant | undefined {
  return tenants.find((t) =>
    t.clientCas.some((ca) => leaf.checkIssued(ca) && leaf.verify(ca.publicKey)),
  );
}
