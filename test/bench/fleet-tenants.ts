/**
 * The fleet bench's tenants: N TenantClusters on the one host, each with its own host namespace
 * and its own host identity (a client certificate user, `tenantplane-sync-<tenant>`, bound by
 * deploy/rbac/host-cluster filled in for it, exactly as the RBAC tests apply it), optionally its
 * FlowSchema (deploy/rbac/host-fairness). The quiet tenants are spread round-robin over the
 * tenant apiservers but the first, several TenantClusters reading one tenant apiserver, each into
 * its own host namespace; the noisy tenant has the first tenant apiserver to itself. Tenant-side
 * the engine uses the admin kubeconfig (the tenant apiservers are not what is measured).
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClusterApi, type KubeClusterApi } from '../../lib/adapters/kube/cluster-client.js';
import { issueUserKubeconfig } from '../../lib/localcluster/users.js';
import type { KubeconfigText, KubeObject } from '../../lib/ports/index.js';
import type { FleetApiserver, FleetPlane } from './fleet-plane.js';
import { pool } from './scenario.js';

const RBAC_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../deploy/rbac');
export const NOISY = 'noisy';
/** The tenant namespace a followed tenant's probes are written in: one of its own. */
export const probeNamespace = (tenant: string): string => `probe-${tenant}`;

export interface FleetTenant {
  name: string;
  hostNamespace: string;
  noisy: boolean;
  followed: boolean;
  apiserver: FleetApiserver;
  tenantKubeconfig: KubeconfigText;
  hostKubeconfig: KubeconfigText & { path: string };
}

export interface TenantsOptions {
  tenants: number;
  followed: number;
  withFlowSchema: boolean;
  seedNamespaces: number;
  seedObjects: number;
  log: (line: string) => void;
}

const rbacFile = (name: string) => resolve(RBAC_DIR, name, `${name}.yaml`);

/** The host template filled in for a tenant, as its comment says (the RBAC tests do the same). */
function fill(template: string, tenant: string, hostNamespace: string): string {
  return template.replace(/\btenant-dev\b/g, hostNamespace).replace(/\bdev\b/g, tenant);
}

/**
 * `kubectl apply`, again up to 4 times on failure: a manifest that creates a namespace and
 * objects in it meets "namespaces ... not found" when the apiserver's namespace admission has not
 * seen the namespace yet, as happens on a loaded host (seen at 300 tenants). Apply is idempotent.
 */
async function kubectlApply(kubectl: string, kubeconfig: string, manifest: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await kubectlApplyOnce(kubectl, kubeconfig, manifest);
    } catch (error) {
      if (attempt >= 5) throw error;
      await new Promise((r) => setTimeout(r, 500 * attempt));
    }
  }
}

function kubectlApplyOnce(kubectl: string, kubeconfig: string, manifest: string): Promise<void> {
  return new Promise((ok, fail) => {
    const child = spawn(kubectl, ['--kubeconfig', kubeconfig, 'apply', '-f', '-'], {
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
    });
    child.on('error', fail);
    child.on('close', (code) => (code === 0 ? ok() : fail(new Error(`kubectl apply: ${err}`))));
    child.stdin.end(manifest);
  });
}

/** A quiet tenant apiserver's seed: namespaces with a few ConfigMaps and Secrets each. */
async function seedApiserver(
  api: KubeClusterApi,
  namespaces: number,
  objects: number,
  probeNamespaces: string[],
) {
  const names = [...Array.from({ length: namespaces }, (_, i) => `app-${i}`), ...probeNamespaces];
  for (const name of names)
    await api.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  const items: KubeObject[] = [];
  for (let n = 0; n < namespaces; n += 1) {
    for (let i = 0; i < objects; i += 1) {
      const metadata = { name: `obj-${i}`, namespace: `app-${n}`, labels: { app: `app-${n}` } };
      items.push(
        i % 3 === 2
          ? {
              apiVersion: 'v1',
              kind: 'Secret',
              metadata,
              type: 'Opaque',
              data: { key: 'c2VjcmV0' },
            }
          : { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { config: 'x'.repeat(400) } },
      );
    }
  }
  await pool(items, 16, async (o) => {
    await api.create(o);
  });
}

/** The noisy tenant syncs Pods too (its 2,000 Pods), so it gets host-workloads as well. */
const NOISY_KINDS = [
  { apiVersion: 'v1', kind: 'ConfigMap' },
  { apiVersion: 'v1', kind: 'Secret' },
  { apiVersion: 'v1', kind: 'Pod' },
];

/** The label of a followed tenant's probes: the tenant it probes. */
export const PROBE_LABEL = 'fleet-probe-for';

/**
 * A quiet tenant's kinds: ConfigMaps and Secrets, the other followed tenants' probe namespaces
 * excluded, so a probe is copied by the tenant it probes and costs the others sharing its tenant
 * apiserver nothing (they stay idle, as a deployed tenant, alone on its tenant apiserver, is).
 * Excluded by namespace, not by label: a resumed pass drops a change outside its static scope
 * (namespaces, names) before anything else, while a label-excluded change costs one host GET (is
 * there a copy to collect?). With labels, a quiet pass's host requests grew with the number of
 * tenants sharing its tenant apiserver: 4 at 10 tenants, 6.5 at 100, 12.5 at 300.
 */
function quietKinds(name: string, followed: Set<string>) {
  const others = [...followed].filter((f) => f !== name).map(probeNamespace);
  return [
    { apiVersion: 'v1', kind: 'ConfigMap', exclude: { namespaces: others } },
    { apiVersion: 'v1', kind: 'Secret' },
  ];
}

/** Creates every tenant's host side and identity, and seeds the quiet tenant apiservers. */
export async function setUpTenants(plane: FleetPlane, o: TenantsOptions): Promise<FleetTenant[]> {
  const quietServers = plane.tenantApiservers.slice(1);
  const names = [
    NOISY,
    ...Array.from({ length: o.tenants - 1 }, (_, i) => `q${String(i).padStart(3, '0')}`),
  ];
  const t0 = Date.now();
  const templates = {
    cluster: await readFile(rbacFile('host-cluster'), 'utf8'),
    workloads: await readFile(rbacFile('host-workloads'), 'utf8'),
    fairness: await readFile(rbacFile('host-fairness'), 'utf8'),
    follow: await readFile(rbacFile('host-follow'), 'utf8'),
  };
  // The first quiet tenants are followed: spread over the apiservers by the round-robin.
  const followed = new Set(names.slice(1, 1 + o.followed));
  const manifests: string[] = [];
  for (const name of names) {
    const ns = `tenant-${name}`;
    manifests.push(fill(templates.cluster, name, ns));
    if (name === NOISY) manifests.push(fill(templates.workloads, name, ns));
    if (followed.has(name)) manifests.push(fill(templates.follow, name, ns));
    if (o.withFlowSchema) manifests.push(fill(templates.fairness, name, ns));
  }
  const kubectl = plane.state.binaries.kubectl;
  const hostAdmin = plane.state.clusters.host.kubeconfig;
  // A few tenants per kubectl run: one apply of 300 tenants' RBAC is slow to diff, 300 runs too.
  const chunks = Array.from({ length: Math.ceil(manifests.length / 40) }, (_, i) =>
    manifests.slice(i * 40, i * 40 + 40).join('\n---\n'),
  );
  await pool(chunks, 2, (m) => kubectlApply(kubectl, hostAdmin, m));
  o.log(
    `host RBAC${o.withFlowSchema ? ' and FlowSchemas' : ''} of ${names.length} tenants in ${Date.now() - t0} ms`,
  );

  const hostApi = createClusterApi({ text: await readFile(hostAdmin, 'utf8'), origin: hostAdmin });
  const tenants: FleetTenant[] = [];
  try {
    await pool(names, 2, async (name) => {
      const hostKubeconfig = await issueUserKubeconfig(
        plane.state,
        'host',
        `tenantplane-sync-${name}`,
      );
      const index = names.indexOf(name);
      const noisy = name === NOISY;
      const apiserver = noisy
        ? (plane.tenantApiservers[0] as FleetApiserver)
        : (quietServers[(index - 1) % quietServers.length] as FleetApiserver);
      await hostApi.create({
        apiVersion: 'tenantplane.io/v1alpha1',
        kind: 'TenantCluster',
        metadata: { name },
        spec: {
          hostNamespace: `tenant-${name}`,
          toHost: noisy ? NOISY_KINDS : quietKinds(name, followed),
        },
      });
      tenants.push({
        name,
        hostNamespace: `tenant-${name}`,
        noisy,
        followed: followed.has(name),
        apiserver,
        tenantKubeconfig: {
          text: await readFile(apiserver.kubeconfig, 'utf8'),
          origin: apiserver.kubeconfig,
        },
        hostKubeconfig,
      });
    });
  } finally {
    await hostApi.close();
  }
  o.log(`${names.length} identities and TenantClusters in ${Date.now() - t0} ms`);
  for (const server of plane.tenantApiservers) {
    const api = createClusterApi({
      text: await readFile(server.kubeconfig, 'utf8'),
      origin: server.kubeconfig,
    });
    try {
      if (server.index === 0) {
        for (const name of ['burst', 'pods'])
          await api.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      } else {
        await seedApiserver(
          api,
          o.seedNamespaces,
          o.seedObjects,
          [...followed].map(probeNamespace),
        );
      }
    } finally {
      await api.close();
    }
  }
  o.log(`seeded ${quietServers.length} quiet tenant apiservers in ${Date.now() - t0} ms`);
  return tenants.sort((a, b) => a.name.localeCompare(b.name));
}
