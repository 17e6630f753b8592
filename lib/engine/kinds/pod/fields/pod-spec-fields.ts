/**
 * Every field of a Pod's spec (`io.k8s.api.core.v1.PodSpec`, Kubernetes 1.37), and what the
 * engine does with it on purpose (`field-table.ts`). A field added by a later Kubernetes is not
 * here until someone decides: until then a Pod that sets it is refused (`unknown-fields.ts`).
 */
import { checked, copied, type FieldTable, refused, translated } from './field-table.js';

const HOST_ACCESS = 'refused unless spec.workloads.allowHostAccess (host namespaces of the node)';
const HOST_DECIDES = 'left off: the host decides it';
const TENANT_DNS = 'with spec.workloads.tenantDns, cluster DNS becomes the tenant DNS (None)';

/** The PodSpec fields: see the module doc. */
export const POD_SPEC_FIELDS = {
  activeDeadlineSeconds: copied('updated on a running Pod'),
  affinity: translated('pod (anti-)affinity terms scoped to the tenant and virtual namespace'),
  automountServiceAccountToken: translated('false: the tenant token comes from a Secret'),
  containers: translated('each container by the Container table'),
  dnsConfig: translated(`${TENANT_DNS}, the tenant's options after it`),
  dnsPolicy: translated(TENANT_DNS),
  enableServiceLinks: translated('false: host Service variables would name host objects'),
  ephemeralContainers: translated('left off: the host refuses them at create'),
  evictionResponders: refused(
    'responders are named host controllers that would take over the host Pod’s eviction',
  ),
  hostAliases: copied('entries of the Pod’s own /etc/hosts'),
  hostIPC: checked(HOST_ACCESS),
  hostNetwork: checked(HOST_ACCESS),
  hostPID: checked(HOST_ACCESS),
  hostUsers: copied('a user namespace only narrows the Pod; Pod Security checks the rest'),
  hostname: translated('the tenant Pod’s name when unset'),
  hostnameOverride: copied('the hostname the Pod sees; no DNS record, so nothing of the host'),
  imagePullSecrets: translated('renamed to the host copies of the Secrets'),
  initContainers: translated('each container by the Container table; sidecars included'),
  nodeName: translated(HOST_DECIDES),
  nodeSelector: checked(
    'labels spec.workloads.scheduling hands out; the policy’s nodeSelector merged in',
  ),
  os: copied(),
  overhead: translated(`${HOST_DECIDES} (its RuntimeClass)`),
  preemptionPolicy: translated(`${HOST_DECIDES} (from the host priority class)`),
  priority: translated(`${HOST_DECIDES} (from the host priority class)`),
  priorityClassName: translated('mapped by spec.workloads.priorityClasses, else left off'),
  readinessGates: copied(),
  resourceClaims: refused('ResourceClaims are not synced: the raw name would be the host’s'),
  resources: copied('pod-level requests and limits; a change is a recreate'),
  restartPolicy: copied(),
  runtimeClassName: checked('the policy’s runtimeClassName set; another one is a Skip'),
  schedulerName: checked('refused unless spec.workloads.allowSchedulerName'),
  schedulingGates: copied('updated on a running Pod'),
  schedulingGroup: refused('PodGroups are not synced: the raw name would be the host’s'),
  securityContext: checked('the PodSecurityContext table; Pod Security at the policy’s level'),
  serviceAccount: translated('left off: the host service account (the tenant’s in a token)'),
  serviceAccountName: translated('spec.workloads.hostServiceAccountName or the host default'),
  setHostnameAsFQDN: copied('the FQDN is the host Pod’s (hostname and host subdomain)'),
  shareProcessNamespace: copied(),
  subdomain: translated('renamed to the host copy of the headless Service'),
  terminationGracePeriodSeconds: copied(),
  tolerations: checked('taints spec.workloads.scheduling hands out; the policy’s added'),
  topologySpreadConstraints: translated('selectors scoped to the tenant and virtual namespace'),
  volumes: translated('each volume by the Volume table'),
} as const satisfies FieldTable;
