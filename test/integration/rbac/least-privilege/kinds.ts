/**
 * The table of the workload kinds the opt-in manifests (host-workloads.yaml,
 * tenant-workloads.yaml) grant: one row per kind, with its RBAC resource, the writes the engine
 * makes on the tenant beyond `list` and `watch`, and the tenant objects a pass copies. A new kind
 * adds its row here (and its resource to the manifests); the least-privilege files read the rows.
 */
import type { KindRef, KubeObject } from '../../../../lib/ports/index.js';
import {
  CLAIM,
  ENDPOINT_SLICE,
  INGRESS,
  NETWORK_POLICY,
  PDB,
  POD,
  SERVICE,
  SERVICE_ACCOUNT,
} from './support.js';

/** Gateway API routes (the local plane serves their CRDs on both sides). */
const HTTP_ROUTE: KindRef = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute' };
const GRPC_ROUTE: KindRef = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GRPCRoute' };
const TLS_ROUTE: KindRef = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'TLSRoute' };

/** Makes a tenant object of the workload tenant (labelled, in its virtual namespace). */
export type TenantObject = (
  kind: KindRef,
  name: string,
  body: Record<string, unknown>,
) => KubeObject;

/** One workload kind as the least-privilege files exercise it. */
export interface WorkloadRow {
  readonly kind: KindRef;
  /** Its RBAC resource (its API group is the kind's). */
  readonly resource: string;
  /** The verbs the engine uses on the tenant beyond `list` and `watch`. */
  readonly tenantWrites?: readonly string[];
  /** Tenant objects of the kind a pass copies, beyond the Pod and its Service `web`. */
  readonly seed?: (object: TenantObject) => KubeObject[];
  /** The name of the seeded object whose host copy the first pass makes. */
  readonly copied?: string;
}

/** The Ingress the table seeds: to Service `ext`, TLS from the synced Secret `token`. */
function ingress(object: TenantObject): KubeObject {
  const backend = { service: { name: 'ext', port: { number: 80 } } };
  return object(INGRESS, 'web', {
    spec: {
      tls: [{ hosts: ['web.example.com'], secretName: 'token' }],
      // A rule with its host: a default backend would catch every host (refused, issue 28).
      rules: [
        {
          host: 'web.example.com',
          http: { paths: [{ path: '/', pathType: 'Prefix', backend }] },
        },
      ],
    },
  });
}

/** A hand-written EndpointSlice of the selector-less Service `ext`. */
function slice(object: TenantObject): KubeObject {
  const made = object(ENDPOINT_SLICE, 'ext-1', {
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.0.0.1'] }],
    ports: [{ port: 80 }],
  });
  made.metadata.labels = { ...made.metadata.labels, 'kubernetes.io/service-name': 'ext' };
  return made;
}

/** Every kind tenant-workloads.yaml and host-workloads.yaml grant, Pods first. */
export const WORKLOAD_ROWS: readonly WorkloadRow[] = [
  // Pod endings: a tenant Pod whose copy ended is deleted by the engine.
  { kind: POD, resource: 'pods', tenantWrites: ['delete'] },
  {
    kind: SERVICE,
    resource: 'services',
    // A tenant Service recreated with its host copy's address.
    tenantWrites: ['create', 'delete'],
    seed: (object) => [object(SERVICE, 'ext', { spec: { ports: [{ port: 80 }] } })],
  },
  { kind: ENDPOINT_SLICE, resource: 'endpointslices', seed: (o) => [slice(o)], copied: 'ext-1' },
  {
    kind: CLAIM,
    resource: 'persistentvolumeclaims',
    seed: (object) => [
      object(CLAIM, 'data', {
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Mi' } } },
      }),
    ],
    copied: 'data',
  },
  { kind: INGRESS, resource: 'ingresses', seed: (o) => [ingress(o)], copied: 'web' },
  {
    kind: NETWORK_POLICY,
    resource: 'networkpolicies',
    seed: (object) => [
      object(NETWORK_POLICY, 'web', {
        spec: { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'] },
      }),
    ],
    copied: 'web',
  },
  {
    kind: SERVICE_ACCOUNT,
    resource: 'serviceaccounts',
    seed: (object) => [object(SERVICE_ACCOUNT, 'runner', {})],
    copied: 'runner',
  },
  {
    kind: PDB,
    resource: 'poddisruptionbudgets',
    seed: (object) => [
      object(PDB, 'web', { spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } } }),
    ],
    copied: 'web',
  },
  // To Service `ext`, on the Gateway the workload tenant's policy lists (gateways.parents).
  {
    kind: HTTP_ROUTE,
    resource: 'httproutes',
    seed: (object) => [
      object(HTTP_ROUTE, 'web', {
        spec: {
          parentRefs: [{ namespace: 'gateways', name: 'shared' }],
          hostnames: ['web.example.com'],
          rules: [{ backendRefs: [{ name: 'ext', port: 80 }] }],
        },
      }),
    ],
    copied: 'web',
  },
  // Listed on both sides every pass; their copies are the dedicated test's
  // (test/integration/engine/gateway-routes.test.ts), on the rules HTTPRoute proves here.
  { kind: GRPC_ROUTE, resource: 'grpcroutes' },
  { kind: TLS_ROUTE, resource: 'tlsroutes' },
];

/** The kinds of {@link WORKLOAD_ROWS}. */
export const WORKLOAD_KINDS: readonly KindRef[] = WORKLOAD_ROWS.map((row) => row.kind);

/** The class kinds of `spec.fromHost` (tenant-workloads.yaml and host-workloads.yaml grant them). */
export const CLASS_KINDS: readonly KindRef[] = [
  { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass' },
  { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass' },
  { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass' },
  { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass' },
  { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass' },
];

/** A host class of each kind, named after the tenant (classes are cluster-scoped). */
export function hostClasses(tenant: string): KubeObject[] {
  const [sc, ic, pc, rc, gc] = CLASS_KINDS as [KindRef, KindRef, KindRef, KindRef, KindRef];
  return [
    { ...sc, metadata: { name: `${tenant}-sc` }, provisioner: 'example.com/none' },
    { ...ic, metadata: { name: `${tenant}-ic` }, spec: { controller: 'example.com/ingress' } },
    { ...pc, metadata: { name: `${tenant}-pc` }, value: 100 },
    { ...rc, metadata: { name: `${tenant}-rc` }, handler: 'runsc' },
    { ...gc, metadata: { name: `${tenant}-gc` }, spec: { controllerName: 'example.com/gateway' } },
  ];
}

/**
 * The Gateways from the host (`spec.workloads.gateways.parents`): the host Gateway the HTTPRoute row
 * attaches to, which the tenant sees read-only in the namespace and name its route gives it
 * (host-gateways.yaml grants the GET in the Gateway's namespace; tenant-workloads.yaml the copy).
 */
export const GATEWAY: KindRef = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway' };
export const GATEWAY_NAMESPACE = 'gateways';
export const HOST_GATEWAY: KubeObject = {
  ...GATEWAY,
  metadata: { namespace: GATEWAY_NAMESPACE, name: 'shared' },
  spec: {
    gatewayClassName: 'example',
    listeners: [{ name: 'http', protocol: 'HTTP', port: 80 }],
  },
};
