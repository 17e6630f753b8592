/**
 * The deploy/rbac manifests as an operator applies them (with the admin kubeconfigs), and the
 * restricted identities they bind: shared by the least-privilege test and every test that must
 * run a component with exactly those grants (the kubelet gateway's host calls).
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readRunningControlPlane } from '../../../lib/localcluster/index.js';
import { issueUserKubeconfig } from '../../../lib/localcluster/users.js';
import type { KubeconfigText } from '../../../lib/ports/index.js';
import { integrationClusters } from './clusters.js';

/** The repository's deploy/rbac folder. */
export const RBAC_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../deploy/rbac');

/** A manifest of deploy/rbac by file name: each lives in the kustomize folder of its name. */
export function rbacFile(file: string): string {
  return resolve(RBAC_DIR, file.replace(/\.yaml$/, ''), file);
}

/** The host template filled in for a tenant, as the comment in the file says. */
export function fillHostTemplate(template: string, tenant: string, hostNamespace: string): string {
  return template.replace(/\btenant-dev\b/g, hostNamespace).replace(/\bdev\b/g, tenant);
}

/** `kubectl apply -f -` of `manifest` with `kubeconfig`; rejects with kubectl's output. */
export function kubectlApply(kubeconfig: string, manifest: string): Promise<string> {
  const { kubectl } = integrationClusters();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(kubectl, ['--kubeconfig', kubeconfig, 'apply', '-f', '-'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolvePromise(out) : reject(new Error(`kubectl apply failed: ${out}`)),
    );
    child.stdin.end(manifest);
  });
}

/** The host templates a tenant with workload kinds gets (host-workloads.yaml is opt-in). */
export const HOST_WORKLOAD_FILES = ['host-cluster.yaml', 'host-workloads.yaml'] as const;

/**
 * Applies the host `files` of deploy/rbac filled in for `tenant` and `hostNamespace` (which they
 * create, labelled for Pod Security) with the host admin kubeconfig, and issues the identity they
 * bind, `tenantplane-sync-<tenant>`: a client certificate of the local CA in a kubeconfig of its
 * own, holding those grants and nothing more. RBAC takes effect eventually: callers poll a call
 * the grants allow before relying on them.
 */
export async function restrictedHostIdentity(
  tenant: string,
  hostNamespace: string,
  files: readonly string[] = HOST_WORKLOAD_FILES,
  /** Changes a filled-in file before it is applied (a test taking a grant away). */
  edit: (manifest: string, file: string) => string = (manifest) => manifest,
): Promise<KubeconfigText & { path: string; user: string }> {
  const clusters = integrationClusters();
  for (const file of files) {
    const template = await readFile(rbacFile(file), 'utf8');
    await kubectlApply(
      clusters.hostKubeconfigPath,
      edit(fillHostTemplate(template, tenant, hostNamespace), file),
    );
  }
  const stateDir = process.env.TENANTPLANE_TEST_STATE_DIR;
  const state = stateDir ? await readRunningControlPlane(stateDir) : undefined;
  if (!state) throw new Error('the integration control plane state is missing');
  const user = `tenantplane-sync-${tenant}`;
  return { ...(await issueUserKubeconfig(state, 'host', user)), user };
}
