/**
 * Kubeconfigs from AWS Secrets Manager through Powertools Parameters, cached for `maxAgeSeconds`
 * (default 300) so warm Lambda invocations reuse them.
 *
 * The secret's `SecretString` is either the kubeconfig YAML itself or JSON
 * `{"kubeconfig": "<yaml>"}`. Its users must carry their credentials: `exec`, auth providers and
 * credential file paths are refused ({@link storedCredentialsProblem}). Failures are
 * {@link KubeconfigSourceError}s naming the role and the secret id; they never contain the
 * secret's content.
 */

import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { isRecord } from '../../common/index.js';
import type { ClusterRole, KubeconfigSource, KubeconfigText } from '../../ports/index.js';
import { KubeconfigSourceError } from './errors.js';
import { storedCredentialsProblem } from './stored-credentials.js';

/** Default cache lifetime of a fetched secret. */
export const DEFAULT_SECRETS_MAX_AGE_SECONDS = 300;

export interface SecretsManagerKubeconfigSourceOptions {
  tenantSecretId: string;
  hostSecretId: string;
  /** Cache lifetime in seconds (default 300; 0 disables the cache). */
  maxAgeSeconds?: number;
  /** The SDK client to use (default: a new one from the environment's region and credentials). */
  client?: SecretsManagerClient;
}

/** The AWS error of a Powertools `GetParameterError` (its `cause`), or the error itself. */
function awsError(error: unknown): { name: string; message: string } {
  let current: unknown = error;
  for (let depth = 0; depth < 4; depth++) {
    if (!(current instanceof Error)) break;
    if (current.name !== 'GetParameterError' || current.cause === undefined) {
      return { name: current.name, message: current.message };
    }
    current = current.cause;
  }
  return current instanceof Error
    ? { name: current.name, message: current.message }
    : { name: 'Error', message: String(current) };
}

function problemOf(error: unknown): string {
  const { name, message } = awsError(error);
  switch (name) {
    case 'ResourceNotFoundException':
      return 'secret not found (ResourceNotFoundException)';
    case 'AccessDeniedException':
      return 'access denied: the function may read only its own secrets (AccessDeniedException)';
    case 'DecryptionFailure':
      return 'the secret cannot be decrypted with its KMS key (DecryptionFailure)';
    case 'InvalidRequestException':
      return `the secret cannot be read now, e.g. it is scheduled for deletion (InvalidRequestException)`;
    default:
      // AWS error messages describe the failure, not the secret value.
      return `cannot be read: ${name}${message ? `: ${message}` : ''}`;
  }
}

/** The kubeconfig text of a SecretString: raw YAML, or JSON `{"kubeconfig": "..."}`. */
export function kubeconfigFromSecretString(value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (isRecord(parsed) && 'kubeconfig' in parsed) {
        return typeof parsed.kubeconfig === 'string' && parsed.kubeconfig.trim() !== ''
          ? parsed.kubeconfig
          : undefined;
      }
    } catch {
      // Not JSON: treat it as YAML, which reports its own problems without quoting content.
    }
  }
  return trimmed === '' ? undefined : value;
}

export class SecretsManagerKubeconfigSource implements KubeconfigSource {
  private readonly ids: Record<ClusterRole, string>;
  private readonly maxAge: number;
  private readonly provider: SecretsProvider;

  constructor(options: SecretsManagerKubeconfigSourceOptions) {
    this.ids = { tenant: options.tenantSecretId, host: options.hostSecretId };
    this.maxAge = options.maxAgeSeconds ?? DEFAULT_SECRETS_MAX_AGE_SECONDS;
    // One provider per source: its cache belongs to this source only.
    this.provider = new SecretsProvider(
      options.client === undefined ? {} : { awsSdkV3Client: options.client },
    );
  }

  async load(role: ClusterRole): Promise<KubeconfigText> {
    const id = this.ids[role];
    const origin = `secret ${id}`;
    if (!id) throw new KubeconfigSourceError(role, '(no secret id)', 'no secret id is configured');
    let value: unknown;
    try {
      value = await this.provider.get(id, { maxAge: this.maxAge });
    } catch (error) {
      throw new KubeconfigSourceError(role, origin, problemOf(error), { cause: error });
    }
    if (value instanceof Uint8Array) {
      throw new KubeconfigSourceError(
        role,
        origin,
        'holds binary data (SecretBinary); store the kubeconfig as SecretString',
      );
    }
    if (typeof value !== 'string' || value.trim() === '') {
      throw new KubeconfigSourceError(role, origin, 'is empty');
    }
    const text = kubeconfigFromSecretString(value);
    if (text === undefined) {
      throw new KubeconfigSourceError(
        role,
        origin,
        'is JSON without a non-empty string field "kubeconfig"',
      );
    }
    const refused = storedCredentialsProblem(text);
    if (refused !== undefined) throw new KubeconfigSourceError(role, origin, refused);
    return { text, origin };
  }

  /** Forgets cached secrets (the next load fetches again). */
  clearCache(): void {
    this.provider.clearCache();
  }
}
