/**
 * A cluster client whose requests carry a bearer token from a {@link BearerTokenSource} (an EKS
 * token signed from the process's IAM role, see `../eks/token.ts`) instead of a credential held
 * in a kubeconfig. The token is set on each request as it is sent, so a renewed token reaches
 * every later request, and it is never written into the kubeconfig text.
 */
import type { KubeConfig, RequestContext } from '@kubernetes/client-node';
import { ClusterErrorReason, isClusterError, type KubeconfigText } from '../../ports/index.js';
import { loadKubeconfig } from '../kubeconfig/load.js';
import {
  type ClusterApiOptions,
  type KubeClusterApi,
  KubeClusterClient,
} from './cluster-client.js';

/** Short-lived bearer tokens: the current one, and word that the cluster refused it. */
export interface BearerTokenSource {
  /** A token valid now (signed anew when the last one is old or was refused). */
  token(): Promise<string>;
  /** The cluster answered 401: drop the current token. */
  rejected(): void;
}

/** Adds `Authorization: Bearer <token>` to every request `kubeConfig` authenticates. */
function authenticateWith(kubeConfig: KubeConfig, tokens: BearerTokenSource): void {
  const applyTls = kubeConfig.applySecurityAuthentication.bind(kubeConfig);
  kubeConfig.applySecurityAuthentication = async (context: RequestContext) => {
    await applyTls(context);
    context.setHeaderParam('Authorization', `Bearer ${await tokens.token()}`);
  };
}

/**
 * `api` with each asynchronous call tried once more, with a fresh token, when the cluster
 * answered 401: a token refused for its age (a clock skew, credentials rotated) costs one round
 * trip, not a failed pass. A 401 means the request was not processed, so a write is safe to send
 * again.
 */
function renewingOnUnauthorized<T extends object>(api: T, tokens: BearerTokenSource): T {
  const refused = (error: unknown) =>
    isClusterError(error) && error.reason === ClusterErrorReason.Unauthorized;
  return new Proxy(api, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const first: unknown = value.apply(target, args);
        if (!(first instanceof Promise)) return first;
        return first.catch((error: unknown) => {
          if (!refused(error)) throw error;
          tokens.rejected();
          return value.apply(target, args) as Promise<unknown>;
        });
      };
    },
  });
}

/**
 * A cluster client for `kubeconfig` (server and CA; its user holds no credential) that
 * authenticates with `tokens`.
 * @throws KubeconfigError when the kubeconfig is malformed.
 */
export function createBearerClusterApi(
  kubeconfig: KubeconfigText,
  tokens: BearerTokenSource,
  options: ClusterApiOptions = {},
): KubeClusterApi {
  const loaded = loadKubeconfig(kubeconfig, options.context);
  authenticateWith(loaded.kubeConfig, tokens);
  const client = new KubeClusterClient(loaded.kubeConfig, loaded.server, loaded.context, options);
  return renewingOnUnauthorized(client, tokens);
}
