/**
 * The Corefile the local tenant DNS runs: the very one of `deploy/tenant-dns/10-corefile.yaml`,
 * read at each start, with the few changes a process on a developer's machine needs where the
 * deployed one runs in a Pod. Each change names the line it expects and fails loudly when the
 * deployed Corefile no longer has it, so the two can never drift apart unnoticed.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { LocalClusterError } from './errors.js';

const here = dirname(fileURLToPath(import.meta.url));
/** The folder operators apply to a tenant cluster. */
export const TENANT_DNS_DIR = resolve(here, '../../deploy/tenant-dns');
/** The file whose ConfigMap holds the Corefile. */
export const TENANT_DNS_COREFILE = resolve(TENANT_DNS_DIR, '10-corefile.yaml');
/** The file with the Namespace, ServiceAccount, ClusterRole and ClusterRoleBinding. */
export const TENANT_DNS_RBAC = resolve(TENANT_DNS_DIR, '00-rbac.yaml');

/** Where and as what the local CoreDNS runs. */
export interface LocalCorefileSpec {
  /** DNS port on 127.0.0.1, UDP and TCP. */
  port: number;
  /** Ports of the `health` and `ready` plugins' HTTP servers on 127.0.0.1. */
  healthPort: number;
  readyPort: number;
  /** A kubeconfig of the tenant apiserver, and its context. */
  kubeconfig: string;
  context: string;
}

/** One document of a manifest file, as far as this module reads it. */
interface ManifestObject {
  kind?: string;
  data?: Record<string, unknown>;
}

/** Reads the Corefile out of the ConfigMap of `deploy/tenant-dns/10-corefile.yaml`. */
export async function readDeployedCorefile(file = TENANT_DNS_COREFILE): Promise<string> {
  const docs = parseAllDocuments(await readFile(file, 'utf8')).map(
    (d) => d.toJS() as ManifestObject | null,
  );
  const corefile = docs.find((d) => d?.kind === 'ConfigMap')?.data?.Corefile;
  if (typeof corefile !== 'string')
    throw new LocalClusterError(`${file} has no ConfigMap with a Corefile key`);
  return corefile;
}

/** One change: what it is for, the text it expects exactly once, what replaces it. */
interface Edit {
  why: string;
  pattern: RegExp;
  replace: (match: string, indent: string) => string;
}

function edits(spec: LocalCorefileSpec): Edit[] {
  return [
    {
      // In a Pod the server listens on every address of the Pod; here, loopback only, on a free
      // port, since other planes (and other developers' tests) share the machine.
      why: 'the server block `.:1053 {`',
      pattern: /^([ \t]*)\.:1053 \{\n/m,
      replace: (_, indent) => `${indent}.:${spec.port} {\n${indent}    bind 127.0.0.1\n`,
    },
    {
      why: 'the `health {` plugin',
      pattern: /^([ \t]*)health \{\n/m,
      replace: (_, indent) => `${indent}health 127.0.0.1:${spec.healthPort} {\n`,
    },
    {
      why: 'the `ready` plugin',
      pattern: /^([ \t]*)ready\n/m,
      replace: (_, indent) => `${indent}ready 127.0.0.1:${spec.readyPort}\n`,
    },
    {
      // In a Pod the plugin uses the in-cluster config (the Pod's tenant token and the tenant
      // endpoint the engine sets); here, a kubeconfig of the tenant apiserver.
      why: 'the `kubernetes cluster.local ... {` plugin',
      pattern: /^([ \t]*)kubernetes cluster\.local .*\{\n/m,
      replace: (line, indent) =>
        `${line}${indent}    kubeconfig ${spec.kubeconfig} ${spec.context}\n`,
    },
    {
      // A Pod forwards other names to its node's resolver; the local plane answers only the
      // tenant's names, so no query ever leaves loopback.
      why: 'the `forward . /etc/resolv.conf {...}` block',
      pattern: /^([ \t]*)forward \. \/etc\/resolv\.conf \{\n[\s\S]*?^\1\}\n/m,
      replace: () => '',
    },
  ];
}

/**
 * The deployed Corefile made local (see {@link edits}); everything else, the `template` that keeps
 * `kubernetes.default.svc` off the host apiserver included, is left exactly as deployed.
 */
export function localCorefile(deployed: string, spec: LocalCorefileSpec): string {
  let text = deployed;
  for (const edit of edits(spec)) {
    const global = new RegExp(edit.pattern.source, 'gm');
    const count = [...text.matchAll(global)].length;
    if (count !== 1)
      throw new LocalClusterError(
        `the Corefile of deploy/tenant-dns has ${count} of ${edit.why} (expected exactly one); update lib/localcluster/tenant-dns-corefile.ts with it`,
      );
    text = text.replace(edit.pattern, (match: string, indent: string) =>
      edit.replace(match, indent),
    );
  }
  return text;
}
