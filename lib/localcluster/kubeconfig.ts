import { readFile, writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import type { Pki } from './pki.js';

/**
 * Writes an admin kubeconfig with the credentials embedded, so it can be handed around as text
 * (Secrets Manager, the Lambda handler tests) exactly like a real cluster's.
 */
export async function writeAdminKubeconfig(
  path: string,
  clusterName: string,
  server: string,
  pki: Pki,
): Promise<void> {
  const b64 = async (f: string) => (await readFile(f)).toString('base64');
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
        name: `${clusterName}-admin`,
        user: {
          'client-certificate-data': await b64(pki.adminCert),
          'client-key-data': await b64(pki.adminKey),
        },
      },
    ],
    contexts: [
      { name: clusterName, context: { cluster: clusterName, user: `${clusterName}-admin` } },
    ],
    'current-context': clusterName,
  };
  await writeFile(path, stringify(doc), { mode: 0o600 });
}
