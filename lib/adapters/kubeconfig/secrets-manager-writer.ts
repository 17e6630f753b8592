/**
 * Writes a tenant's kubeconfig into AWS Secrets Manager in the format the function reads
 * ({@link SecretsManagerKubeconfigSource}): `SecretString` JSON `{"kubeconfig": "<yaml>"}`. The
 * kubeconfig is checked first with the function's own rules (it parses; its users carry their
 * credentials inline: no `exec`, auth provider or file path), so a secret the function would
 * refuse is never written. Errors name the role, the file or the secret id, never the content.
 */
import {
  CreateSecretCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { ClusterRole } from '../../ports/index.js';
import { loadKubeconfig } from './load.js';
import { storedCredentialsProblem } from './stored-credentials.js';

/** A kubeconfig that cannot be stored, or a write Secrets Manager refused. */
export class KubeconfigSecretError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KubeconfigSecretError';
  }
}

export interface PutKubeconfigSecretOptions {
  client: SecretsManagerClient;
  tenant: string;
  role: ClusterRole;
  secretId: string;
  /** The kubeconfig text and where it was read (a file path, for messages). */
  kubeconfig: { text: string; origin: string };
  /** A customer managed KMS key for a secret this call creates (default: aws/secretsmanager). */
  kmsKeyId?: string;
}

export interface PutKubeconfigSecretResult {
  secretId: string;
  /** True when the secret did not exist and was created. */
  created: boolean;
  versionId: string | undefined;
}

/** The `SecretString` the function reads for `kubeconfig` (see secrets-manager-source.ts). */
export function kubeconfigSecretString(kubeconfig: string): string {
  return JSON.stringify({ kubeconfig });
}

/**
 * Checks `kubeconfig` as the function will and returns why it cannot be stored, or undefined.
 * Parsing errors name the file and the field, never a value.
 */
export function storableKubeconfigProblem(
  role: ClusterRole,
  kubeconfig: { text: string; origin: string },
): string | undefined {
  const refused = storedCredentialsProblem(kubeconfig.text);
  if (refused !== undefined) {
    return `${role} kubeconfig ${kubeconfig.origin}: ${refused}; a stored kubeconfig must carry its credentials inline (kubectl config view --flatten --minify --context <name> writes one)`;
  }
  try {
    loadKubeconfig(kubeconfig);
  } catch (error) {
    return `${role} kubeconfig ${kubeconfig.origin}: ${error instanceof Error ? error.message : String(error)}`;
  }
  return undefined;
}

const awsName = (error: unknown) => (error instanceof Error ? error.name : '');

function writeError(options: PutKubeconfigSecretOptions, error: unknown): KubeconfigSecretError {
  const name = awsName(error) || 'Error';
  // AWS error messages describe the failure (access, KMS, a deleted secret), never the value.
  const message = error instanceof Error && error.message ? `: ${error.message}` : '';
  return new KubeconfigSecretError(
    `could not write the ${options.role} kubeconfig of tenant ${options.tenant} to secret ${options.secretId}: ${name}${message}`,
    { cause: error },
  );
}

/**
 * Stores the kubeconfig as a new version of `secretId`, creating the secret (tagged
 * `tenantplane:tenant`) when it does not exist.
 * @throws KubeconfigSecretError when the kubeconfig cannot be stored or the write is refused.
 */
export async function putKubeconfigSecret(
  options: PutKubeconfigSecretOptions,
): Promise<PutKubeconfigSecretResult> {
  const problem = storableKubeconfigProblem(options.role, options.kubeconfig);
  if (problem !== undefined) throw new KubeconfigSecretError(problem);
  const SecretString = kubeconfigSecretString(options.kubeconfig.text);
  const { client, secretId } = options;
  try {
    const out = await client.send(new PutSecretValueCommand({ SecretId: secretId, SecretString }));
    return { secretId, created: false, versionId: out.VersionId };
  } catch (error) {
    if (awsName(error) !== 'ResourceNotFoundException') throw writeError(options, error);
  }
  try {
    const out = await client.send(
      new CreateSecretCommand({
        Name: secretId,
        SecretString,
        Description: `tenantplane: the ${options.role} kubeconfig of tenant ${options.tenant}`,
        Tags: [
          { Key: 'tenantplane:tenant', Value: options.tenant },
          { Key: 'tenantplane:role', Value: options.role },
        ],
        ...(options.kmsKeyId === undefined ? {} : { KmsKeyId: options.kmsKeyId }),
      }),
    );
    return { secretId, created: true, versionId: out.VersionId };
  } catch (error) {
    throw writeError(options, error);
  }
}
