/**
 * Non-admin identities on the local control plane: a client certificate signed by the local CA
 * (CN = user, O = groups) in a kubeconfig of its own, so RBAC manifests can be proven against the
 * real apiservers with exactly the rights an operator would grant.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { KubeconfigText } from '../ports/index.js';
import type { ControlPlaneState, LocalClusterName } from './control-plane.js';
import { LocalClusterError } from './errors.js';
import { ensurePki } from './pki.js';
import { runCommand } from './run.js';

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
  const f = (ext: string) => join(dir, `${user}.${ext}`);
  const ssl = (...args: string[]) => runCommand('openssl', args, { cwd: dir });
  const subject = `${groups.map((g) => `/O=${g}`).join('')}/CN=${user}`;
  await writeFile(f('ext'), 'extendedKeyUsage=clientAuth\n');
  await ssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    f('key'),
    '-out',
    f('csr'),
    '-subj',
    subject,
  );
  // A random serial instead of -CAcreateserial: concurrent issues never race on ca.srl.
  await ssl(
    'x509',
    '-req',
    '-in',
    f('csr'),
    '-CA',
    pki.caCert,
    '-CAkey',
    pki.caKey,
    '-set_serial',
    `0x${randomBytes(16).toString('hex')}`,
    '-out',
    f('crt'),
    '-days',
    '365',
    '-extfile',
    f('ext'),
  );

  const b64 = async (file: string) => (await readFile(file)).toString('base64');
  const clusterName = `tenantplane-local-${cluster}`;
  const contextName = `${clusterName}-${user}`;
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: clusterName,
        cluster: { server, 'certificate-authority-data': await b64(pki.caCert) },
      },
    ],
    users: [
      {
        name: user,
        user: {
          'client-certificate-data': await b64(f('crt')),
          'client-key-data': await b64(f('key')),
        },
      },
    ],
    contexts: [{ name: contextName, context: { cluster: clusterName, user } }],
    'current-context': contextName,
  };
  const path = join(state.stateDir, `${cluster}-${user}.kubeconfig`);
  const text = stringify(doc);
  await writeFile(path, text, { mode: 0o600 });
  return { text, origin: path, path };
}
