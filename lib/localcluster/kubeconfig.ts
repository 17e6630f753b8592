import { readFile, writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';

export interface KubeconfigSpec {
  clusterName: string;
  server: string;
  userName: string;
  contextName: string;
  caCert: string;
  clientCert: string;
  clientKey: string;
}

/**
 * Writes a kubeconfig with the credentials embedded, so it can be handed around as text (Secrets
 * Manager, the Lambda handler tests) exactly like a real cluster's. Returns the text.
 */
export async function writeKubeconfig(path: string, spec: KubeconfigSpec): Promise<string> {
  const b64 = async (f: string) => (await readFile(f)).toString('base64');
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: spec.clusterName,
        cluster: { server: spec.server, 'certificate-authority-data': await b64(spec.caCert) },
      },
    ],
    users: [
      {
        name: spec.userName,
        user: {
          'client-certificate-data': await b64(spec.clientCert),
          'client-key-data': await b64(spec.clientKey),
        },
      },
    ],
    contexts: [
      { name: spec.contextName, context: { cluster: spec.clusterName, user: spec.userName } },
    ],
    'current-context': spec.contextName,
  };
  const text = stringify(doc);
  await writeFile(path, text, { mode: 0o600 });
  return text;
}
