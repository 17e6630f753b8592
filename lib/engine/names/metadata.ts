/**
 * Every label and annotation key tenantplane reads or writes lives here, so the reverse mapping,
 * the anti-spoofing filter, GC and the Events can never disagree about a key's spelling.
 */

/**
 * Labels on every host object: they make a tenant's copies selectable with kubectl. GC itself
 * reads them from each listed object, because the pass lists the whole host namespace anyway (to
 * see occupied names).
 */
export const Labels = {
  ManagedBy: 'app.kubernetes.io/managed-by',
  Tenant: 'tenantplane.io/tenant',
  VirtualNamespace: 'tenantplane.io/virtual-namespace',
  Kind: 'tenantplane.io/kind',
} as const;

/** Annotations on every host object; they hold verbatim values that labels cannot (or hashing lost). */
export const Annotations = {
  VirtualNamespace: 'tenantplane.io/virtual-namespace',
  VirtualName: 'tenantplane.io/virtual-name',
  VirtualUid: 'tenantplane.io/virtual-uid',
  /** JSON `{"labels":[...],"annotations":[...]}`: the tenant-derived keys the engine owns. */
  OwnedKeys: 'tenantplane.io/owned-keys',
  /** Digest of the tenant `spec`, so a field the tenant removed is noticed despite host defaults. */
  SpecHash: 'tenantplane.io/spec-hash',
  /** Digest of the desired object the engine last wrote (see `write-record.ts`). */
  AppliedHash: 'tenantplane.io/applied-hash',
  /** Digest of the copy's content as the host stored that desired object (`write-record.ts`). */
  StoredHash: 'tenantplane.io/stored-hash',
  /**
   * On a host Pod: digest of what of the desired Pod a running Pod cannot change, as last written
   * (`write-record.ts`), so a host webhook's change of it is told from the tenant's.
   */
  ImmutableHash: 'tenantplane.io/immutable-hash',
  /**
   * A host Pod's tenant service account: its host `serviceAccountName` is the host's, so the
   * downward API reads the tenant's from here.
   */
  ServiceAccountName: 'tenantplane.io/service-account-name',
  /**
   * On a host Pod whose downward API reads `metadata.labels` (whole): the tenant Pod's labels in
   * the downward API's file format (`key="value"` lines), which the host Pod's `fieldRef` reads.
   */
  TenantLabels: 'tenantplane.io/tenant-labels',
  /** The same for `metadata.annotations`: the tenant Pod's annotations, in that format. */
  TenantAnnotations: 'tenantplane.io/tenant-annotations',
  /**
   * On a host Pod: JSON of the tenant tokens it mounts (`[{"key","audiences","expirationSeconds"}]`),
   * what a pass mints into its token Secret. Absent: the Pod mounts no tenant token.
   */
  TokenRequests: 'tenantplane.io/token-requests',
  /** On a token Secret: when its tokens were minted (RFC 3339); with the expiry, their life. */
  TokenIssuedAt: 'tenantplane.io/token-issued-at',
  /** On a token Secret: the earliest expiry of its tokens (RFC 3339), never a token itself. */
  TokenExpiresAt: 'tenantplane.io/token-expires-at',
  /** On a token Secret: digest of what was minted (requests, service account, bound Pod). */
  TokenRequestHash: 'tenantplane.io/token-request-hash',
  /**
   * On a tenant Pod the engine bound to a Node: the uid of the host copy it ran as. Its copy gone
   * (deleted or evicted by the host), the Pod ends as on a lost node, never made anew on the host
   * under the same identity (`kinds/pod/endings.ts`). Set through the Binding, whose annotations
   * the apiserver copies to the Pod.
   */
  BoundHostPod: 'tenantplane.io/bound-host-pod',
  /**
   * On a host Pod: JSON array of the container names of the tenant Pod's spec (init, regular and
   * ephemeral). The kubelet gateway serves only these, never a container a host webhook added.
   */
  TenantContainers: 'tenantplane.io/tenant-containers',
} as const;

/**
 * Keys on the tenant's read-only copies of host classes (`classes/`). With {@link Labels.ManagedBy}
 * and {@link Labels.Tenant} they say that a tenant class is this tenant's copy (anything else is
 * never touched); {@link Annotations.AppliedHash} and {@link Annotations.StoredHash} say whether it
 * still matches its host class.
 */
export const HostClassKeys = {
  /** Label, value {@link FROM_HOST_VALUE}: the class copies the host class of the same name. */
  FromHost: 'tenantplane.io/from-host',
} as const;

/** Value of the {@link HostClassKeys.FromHost} label. */
export const FROM_HOST_VALUE = 'true';

/**
 * Keys on the tenant's copies of host Events (`events/`). With {@link Labels.ManagedBy},
 * {@link Labels.Tenant} and {@link HostClassKeys.FromHost} (a tenant object that comes from the
 * host) they say that a tenant Event is this tenant's copy; the annotations say of which host
 * Event, and whether it still matches it, without reading the host Event's tenant object again.
 */
export const EventBackKeys = {
  /** The uid of the host Event the tenant Event copies (its name is derived from it too). */
  HostEventUid: 'tenantplane.io/host-event-uid',
  /** Digest of what of the host Event was copied (count, times, series, message...). */
  HostEventDigest: 'tenantplane.io/host-event-digest',
} as const;

/**
 * The `tenantplane.io/kind` label of the per-Pod token Secrets: not `Secret`, so no Secret rule's
 * GC or retirement ever takes one for a copy of a tenant Secret.
 */
export const TOKEN_SECRET_KIND = 'ServiceAccountToken';

/**
 * Annotations on the Kubernetes Events about a TenantCluster: they let tools find the Events
 * about one host object without parsing messages.
 */
export const EventAnnotations = {
  TenantRef: 'tenantplane.io/tenant-ref',
  HostRef: 'tenantplane.io/host-ref',
  Kind: 'tenantplane.io/kind',
  PassId: 'tenantplane.io/pass-id',
} as const;

/** Value of the managed-by label on every host object the engine writes. */
export const MANAGED_BY_VALUE = 'tenantplane';

/** The engine's own key domain; tenants may not write under it. */
export const RESERVED_DOMAIN = 'tenantplane.io';

/**
 * Annotations copied from tenants that are dropped anyway: kubectl's client-side apply record
 * duplicates the whole tenant object (for Secrets, its data) and means nothing on the host.
 */
export const DROPPED_TENANT_ANNOTATIONS: readonly string[] = [
  'kubectl.kubernetes.io/last-applied-configuration',
];

/** Keys already classified by {@link isReservedKey}, at most this many. */
const RESERVED_KEYS_REMEMBERED = 4096;
const reservedKeys = new Map<string, boolean>();

/**
 * True for keys only the engine may set: anything under `tenantplane.io/` (or a subdomain of it)
 * and `app.kubernetes.io/managed-by`. Tenant-supplied keys like these are dropped (anti-spoofing).
 */
export function isReservedKey(key: string): boolean {
  let reserved = reservedKeys.get(key);
  if (reserved === undefined) {
    reserved = reservedKeyUncached(key);
    // Every label and annotation key of every object is asked, and a cluster uses few distinct
    // keys: remembered, bounded (forgotten all at once when full).
    if (reservedKeys.size >= RESERVED_KEYS_REMEMBERED) reservedKeys.clear();
    reservedKeys.set(key, reserved);
  }
  return reserved;
}

function reservedKeyUncached(key: string): boolean {
  if (key === Labels.ManagedBy) return true;
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  const prefix = key.slice(0, slash).toLowerCase();
  return prefix === RESERVED_DOMAIN || prefix.endsWith(`.${RESERVED_DOMAIN}`);
}

/** Keys on the TenantCluster itself: the engine's finalizer and the operator's acknowledgements. */
export const TenantClusterKeys = {
  /** Holds a deleted TenantCluster until a pass has removed every host copy of its tenant. */
  HostCleanupFinalizer: 'tenantplane.io/host-cleanup',
  /** Set to the new tenant cluster identity to accept a different tenant cluster deliberately. */
  AcceptTenantClusterId: 'tenantplane.io/accept-tenant-cluster-id',
  /** `<Kind>:<token>[,...]`: confirms one mass delete the guard stopped (the token names the set). */
  ConfirmDeletes: 'tenantplane.io/confirm-deletes',
} as const;

/**
 * Where tenant labels under a reserved key (`app.kubernetes.io/managed-by: Helm`) are carried on
 * host Pods: `<prefix>.carried.tenantplane.io/<name>`. Carried, not dropped, so a tenant selector
 * on such a key still matches once the same key function scopes it (`kinds/frame/selectors.ts`);
 * under the reserved domain, so a tenant can never write one of the engine's own keys through it.
 */
export const CARRIED_KEY_DOMAIN = `carried.${RESERVED_DOMAIN}`;

/** Kubernetes' own keys that the workload translators read or rewrite (`kinds/`). */
export const KubernetesKeys = {
  /** Label tying an EndpointSlice to its Service: on the host, the Service's host name. */
  ServiceName: 'kubernetes.io/service-name',
  /** Label naming the controller that manages an EndpointSlice. */
  EndpointSliceManagedBy: 'endpointslice.kubernetes.io/managed-by',
  /** Label every namespace carries with its own name (what namespace selectors usually match). */
  NamespaceName: 'kubernetes.io/metadata.name',
  /** Namespace label: the Pod Security level the host's own admission enforces there. */
  PodSecurityEnforce: 'pod-security.kubernetes.io/enforce',
} as const;

/**
 * The host Node labels a tenant Node copies (`kinds/pod/node/node-copy.ts`): where a Pod runs
 * (host name, zone, region), on what (OS, architecture, instance type), which is what tenant
 * workloads and `kubectl get nodes -L` ask about; no other host label (a host's pool or team
 * labels are the host's business).
 */
export const NODE_COPIED_LABELS: readonly string[] = [
  'kubernetes.io/hostname',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'node.kubernetes.io/instance-type',
];

/**
 * The labels a Pod's binding copies from its Node (the apiserver's PodTopologyLabels admission):
 * on a tenant Pod they come from its tenant Node, so they are not synced to the host Pod, which
 * gets the same ones from its own binding.
 */
export const POD_NODE_LABELS: readonly string[] = [
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
];

/** The tenant's EndpointSlice controller: its slices are remade on the host from host Pods. */
export const ENDPOINT_SLICE_CONTROLLER = 'endpointslice-controller.k8s.io';

/** The tenant's EndpointSlice mirroring controller: it remakes its slices from Endpoints. */
export const ENDPOINT_SLICE_MIRRORING = 'endpointslicemirroring-controller.k8s.io';

/**
 * The manager written on synced EndpointSlices, replacing the tenant's: a host controller that
 * finds its own name on a slice it did not make deletes it (the mirroring controller does).
 */
export const ENDPOINT_SLICE_MANAGER = 'endpointslice-sync.tenantplane.io';

/**
 * Ingress annotations of common controllers that name a Secret (`name` or `namespace/name`) in
 * the Ingress's namespace: renamed to the Secret's host copy.
 */
export const INGRESS_SECRET_ANNOTATIONS: readonly string[] = [
  'nginx.ingress.kubernetes.io/auth-secret',
  'nginx.ingress.kubernetes.io/auth-tls-secret',
  'nginx.ingress.kubernetes.io/proxy-ssl-secret',
];
