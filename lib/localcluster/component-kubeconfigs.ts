/**
 * Identities of the workload components (kube-scheduler, kube-controller-manager, kwok): a client
 * certificate each, signed by the local CA, in a kubeconfig per cluster it talks to.
 * The scheduler and the controller manager run as the users their built-in RBAC roles are bound
 * to (`system:kube-scheduler`, `system:kube-controller-manager`), exactly like a kubeadm cluster;
 * kwok plays every kubelet, and no built-in role fits that, so it is in `system:masters`; so is the
 * host's metrics-server, whose own manifest's roles are not installed here.
 */
import { access, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { writeKubeconfig } from './kubeconfig.js';
import { type Pki, signCertificate } from './pki.js';

/** The processes that make a cluster run workloads, next to its apiserver. */
export const COMPONENTS = [
  'kube-scheduler',
  'kube-controller-manager',
  'kwok',
  'metrics-server',
] as const;
export type ComponentName = (typeof COMPONENTS)[number];

const SUBJECTS: Record<ComponentName, string> = {
  'kube-scheduler': '/CN=system:kube-scheduler',
  'kube-controller-manager': '/CN=system:kube-controller-manager',
  kwok: '/O=system:masters/CN=tenantplane-kwok',
  // The stock metrics-server's RBAC (its manifest's ClusterRoles) is not installed locally.
  'metrics-server': '/O=system:masters/CN=tenantplane-metrics-server',
};

function certDir(stateDir: string): string {
  return join(stateDir, 'pki', 'components');
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Signs the components' client certificates once per state directory. Separate from
 * `ensurePki` so a state directory made before the components existed gets them too.
 */
export async function ensureComponentCerts(stateDir: string, pki: Pki): Promise<void> {
  const dir = certDir(stateDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await Promise.all(
    COMPONENTS.map(async (name) => {
      // The certificate is written after its key, so its presence marks a complete pair.
      if (await exists(join(dir, `${name}.crt`))) return;
      await signCertificate(pki, {
        dir,
        name,
        subject: SUBJECTS[name],
        extensions: 'extendedKeyUsage=clientAuth\n',
        days: 3650,
      });
    }),
  );
}

/**
 * Writes `<stateDir>/components/<cluster>-<component>.kubeconfig` for `server` with the
 * component's certificate ({@link ensureComponentCerts} first) and returns its path.
 */
export async function writeComponentKubeconfig(
  stateDir: string,
  pki: Pki,
  cluster: string,
  server: string,
  component: ComponentName,
): Promise<string> {
  const dir = join(stateDir, 'components');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${cluster}-${component}.kubeconfig`);
  const clusterName = `tenantplane-local-${cluster}`;
  await writeKubeconfig(path, {
    clusterName,
    server,
    userName: component,
    contextName: `${clusterName}-${component}`,
    caCert: pki.caCert,
    clientCert: join(certDir(stateDir), `${component}.crt`),
    clientKey: join(certDir(stateDir), `${component}.key`),
  });
  return path;
}
