/** Where kubeconfigs come from: files, Secrets Manager, or the local control plane. */
export const ClusterRole = { Tenant: 'tenant', Host: 'host' } as const;
export type ClusterRole = (typeof ClusterRole)[keyof typeof ClusterRole];

export interface KubeconfigText {
  /** The kubeconfig YAML. Never log it. */
  text: string;
  /** Where it came from, safe to print: a file path or a secret id. */
  origin: string;
}

export interface KubeconfigSource {
  load(role: ClusterRole): Promise<KubeconfigText>;
}
