/**
 * Non-admin identities on the local control plane: a client certificate signed by the local CA
 * (CN = user, O = groups) in a kubeconfig of its own, so RBAC manifests can be proven against the
 * real apiservers with exactly the rights an operator would grant.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeconfigText } from '../ports/index.js';
import type { ControlPlaneState, LocalClusterName } from './control-plane.js';
import { LocalClusterError } from './errors.js';
import { writeKubeconfig } from './kubeconfig.js';
import { ensurePki, signCertificate } from './pki.js';

/** Characters allowed in a user or group name (no `/`, `=`, `,`, `+` that openssl subjects parse). */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9:._@-]*$/;

/**
 * Signs a client certificate for `user` (CN) in `groups` (one O each) with the CA in
 * `<stateDir>/pki` and writes a kubeconfig for the `cluster` apiserver as
 * `<stateDir>/<cluster>-<user>.kubeconfig`, next to the admin ones. The user holds only what RBAC
 * grants it (plus what every authenticated user has, such as API discovery). Re-issuing
 * overwrites the user's previous certificate and kubeconfig.
 */
export async function issueUserKubeconfig(
  state: ControlPlaneState,
  cluster: LocalClusterName,
  user: string,
  groups: string[] = [],
): Promise<KubeconfigText & { path: string }> {
  for (const name of [user, ...groups]) {
    if (!SAFE_NAME.test(name)) {
      throw new LocalClusterError(
        `"${name}" cannot be a certificate user or group name: use letters, digits and : . _ @ -`,
      );
    }
  }
  if (groups.includes('system:masters')) {
    throw new LocalClusterError(
      'issueUserKubeconfig makes restricted identities; system:masters is what the admin kubeconfigs are for',
    );
  }
  const server = state.clusters[cluster]?.server;
  if (!server) throw new LocalClusterError(`the local control plane has no "${cluster}" cluster`);

  const pki = await ensurePki(join(state.stateDir, 'pki'));
  const dir = join(state.stateDir, 'pki', 'users');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const { cert, key } = await signCertificate(pki, {
    dir,
    name: user,
    subject: `${groups.map((g) => `/O=${g}`).join('')}/CN=${user}`,
    extensions: 'extendedKeyUsage=clientAuth\n',
    days: 365,
  });
  const clusterName = `tenantplane-local-${cluster}`;
  const path = join(state.stateDir, `${cluster}-${user}.kubeconfig`);
  const text = await writeKubeconfig(path, {
    clusterName,
    server,
    userName: user,
    contextName: `${clusterName}-${user}`,
    caCert: pki.caCert,
    clientCert: cert,
    clientKey: key,
  });
  return { text, origin: path, path };
}
