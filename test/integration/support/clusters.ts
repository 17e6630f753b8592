import { readFileSync } from 'node:fs';
import type { KubeconfigText } from '../../../lib/ports/index.js';

export interface IntegrationClusters {
  tenant: KubeconfigText;
  host: KubeconfigText;
  /** The built kubectl of the pinned release. */
  kubectl: string;
  tenantKubeconfigPath: string;
  hostKubeconfigPath: string;
  version: string;
}

/**
 * The real tenant and host clusters the global setup started. Throws, never skips, when they
 * are missing: an integration test that cannot reach real clusters must fail.
 */
export function integrationClusters(): IntegrationClusters {
  const tenantPath = process.env.TENANTPLANE_TENANT_KUBECONFIG;
  const hostPath = process.env.TENANTPLANE_HOST_KUBECONFIG;
  const kubectl = process.env.TENANTPLANE_KUBECTL;
  if (!tenantPath || !hostPath || !kubectl) {
    throw new Error(
      'Integration tests need the local control plane: run them through jest (its integration globalSetup starts it), e.g. `npm run test:integration`.',
    );
  }
  return {
    tenant: { text: readFileSync(tenantPath, 'utf8'), origin: tenantPath },
    host: { text: readFileSync(hostPath, 'utf8'), origin: hostPath },
    kubectl,
    tenantKubeconfigPath: tenantPath,
    hostKubeconfigPath: hostPath,
    version: process.env.TENANTPLANE_KUBERNETES_VERSION ?? '',
  };
}
