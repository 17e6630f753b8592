/**
 * What a kubeconfig read from a secret store may use as credentials: only what it carries itself
 * (`token`, `client-certificate-data` and `client-key-data`, `username`/`password`).
 *
 * Why: the cluster client honours a user's `exec` plugin (runs a command), an `auth-provider`
 * (gcp and azure run their `cmd-path`; the file provider reads `tokenFile`), and `token-file`,
 * `client-certificate` and `client-key` paths. In a function, a stored kubeconfig (possibly the
 * tenant's own) would run a program or read a file such as `/proc/self/environ`, where the
 * function's AWS credentials live, and send it to whatever server the kubeconfig names. A
 * kubeconfig on an operator's laptop may use them; a stored one may not.
 */
import { load } from 'js-yaml';
import { isRecord } from '../../common/index.js';

/** The user fields that run a program or read a file of the machine that loads the kubeconfig. */
const OUTSIDE_CREDENTIALS: Record<string, string> = {
  exec: 'runs a command (exec)',
  'auth-provider': 'runs an auth provider (auth-provider)',
  'token-file': 'reads its token from a file (token-file)',
  'client-certificate': 'reads its client certificate from a file (client-certificate)',
  'client-key': 'reads its client key from a file (client-key)',
};

/**
 * The problem of a stored kubeconfig whose users get credentials from outside it, or undefined.
 * Names the user and the field, never a value. A document that does not parse is left to
 * `loadKubeconfig`, which says what is wrong with it.
 */
export function storedCredentialsProblem(text: string): string | undefined {
  let doc: unknown;
  try {
    doc = load(text);
  } catch {
    return undefined;
  }
  if (!isRecord(doc) || !Array.isArray(doc.users)) return undefined;
  // Every user, not only the current context's: the kubeconfig is loaded as a whole, and
  // a context switch must not be what stands between a stored kubeconfig and a command.
  for (const entry of doc.users) {
    if (!isRecord(entry) || !isRecord(entry.user)) continue;
    const name = typeof entry.name === 'string' ? entry.name : '(unnamed)';
    for (const [field, what] of Object.entries(OUTSIDE_CREDENTIALS)) {
      if (entry.user[field] !== undefined && entry.user[field] !== null)
        return `user ${JSON.stringify(name)} ${what}; a kubeconfig read from Secrets Manager must carry its credentials inline (a token or an embedded client certificate)`;
    }
  }
  return undefined;
}
