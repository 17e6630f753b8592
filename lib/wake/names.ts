/** Names the wake parts agree on: the CDK app, the wake function and `tenantplane wake-config`. */

/** What every wake token secret's name starts with: `[<stage>/]tenantplane/wake/`. */
export function wakeSecretPrefix(stage?: string): string {
  return `${stage ? `${stage}/` : ''}tenantplane/wake/`;
}
