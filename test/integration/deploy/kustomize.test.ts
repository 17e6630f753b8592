/**
 * deploy/ as kustomize, as an operator uses it: two tenants' overlays, each a copy of the sample
 * overlay deploy/overlays/dev with its two values changed, rendered with the local kubectl
 * (`kubectl kustomize`) and applied for real to the local host cluster (the tenant side to the
 * tenant cluster). Each tenant gets its own objects and its identity reaches only its own
 * TenantCluster; applying the second tenant changes nothing of the first (uid@resourceVersion);
 * objects both overlays render (the shared policy, the follow namespace) are the same object.
 * Everything the test created is deleted at the end; what existed before is left as it was.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse, parseAllDocuments, stringify } from 'yaml';
import {
  createClusterApi,
  type KubeClusterApi,
} from '../../../lib/adapters/kube/cluster-client.js';
import type { KubeObject } from '../../../lib/ports/index.js';
import { integrationClusters } from '../support/clusters.js';

const REPO = resolve(import.meta.dirname, '../../..');
const TENANTS = [
  { name: 'kz-alpha', hostNamespace: 'kz-alpha-host' },
  { name: 'kz-beta', hostNamespace: 'kz-beta-host' },
] as const;
const TENANT_LABEL = 'tenantplane.io/tenant';

let tmp: string;
let hostApi: KubeClusterApi;
let tenantApi: KubeClusterApi;
/** Objects the test created (did not exist before it applied them), to delete at the end. */
const created: { api: () => KubeClusterApi; object: KubeObject }[] = [];

function kubectl(args: readonly string[], input?: string): Promise<string> {
  const { kubectl: bin } = integrationClusters();
  return new Promise((resolvePromise, reject) => {
    const child = execFile(bin, [...args], { maxBuffer: 16 * 1024 * 1024 }, (error, out, err) => {
      if (error)
        reject(new Error(`kubectl ${args.join(' ')} failed: ${out}${err || error.message}`));
      else resolvePromise(out);
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** A copy of the sample overlay for `tenant`, its two values changed, in the copied deploy/. */
async function overlayFor(tenant: (typeof TENANTS)[number]): Promise<string> {
  const dir = join(tmp, 'deploy', 'overlays', tenant.name);
  await cp(join(tmp, 'deploy', 'overlays', 'dev'), dir, { recursive: true });
  const file = join(dir, 'host', 'kustomization.yaml');
  const kustomization = parse(await readFile(file, 'utf8')) as {
    configMapGenerator: { name: string; literals: string[] }[];
  };
  const values = kustomization.configMapGenerator.find((g) => g.name === 'tenantplane-tenant');
  if (!values) throw new Error('the sample overlay has no tenantplane-tenant values');
  values.literals = [`name=${tenant.name}`, `hostNamespace=${tenant.hostNamespace}`];
  await writeFile(file, stringify(kustomization));
  return dir;
}

async function render(dir: string): Promise<KubeObject[]> {
  const text = await kubectl(['kustomize', dir]);
  return parseAllDocuments(text).map((d) => d.toJS() as KubeObject);
}

const idOf = (o: KubeObject) =>
  `${o.apiVersion}/${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const kindOf = (o: KubeObject) => ({ apiVersion: o.apiVersion, kind: o.kind });

async function read(api: KubeClusterApi, o: KubeObject): Promise<KubeObject | undefined> {
  return api.get(kindOf(o), o.metadata.namespace, o.metadata.name);
}

/** Applies `objects` with `kubeconfig`, remembering the ones that did not exist before. */
async function apply(api: () => KubeClusterApi, kubeconfig: string, objects: KubeObject[]) {
  for (const o of objects) {
    if ((await read(api(), o)) === undefined) created.push({ api, object: o });
  }
  await kubectl(
    ['--kubeconfig', kubeconfig, 'apply', '-f', '-'],
    objects.map((o) => `---\n${stringify(o)}`).join(''),
  );
}

async function stamps(objects: KubeObject[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const o of objects) {
    const live = await read(hostApi, o);
    out.set(idOf(o), `${live?.metadata.uid}@${live?.metadata.resourceVersion}`);
  }
  return out;
}

beforeAll(async () => {
  const clusters = integrationClusters();
  hostApi = createClusterApi(clusters.host);
  tenantApi = createClusterApi(clusters.tenant);
  tmp = await mkdtemp(join(tmpdir(), 'tenantplane-kustomize-'));
  await cp(join(REPO, 'deploy'), join(tmp, 'deploy'), { recursive: true });
});

afterAll(async () => {
  // Namespaced objects first, then namespaces and cluster-scoped ones; what existed stays.
  const order = (o: KubeObject) => (o.metadata.namespace ? 0 : o.kind === 'Namespace' ? 2 : 1);
  for (const { api, object } of created.sort((a, b) => order(a.object) - order(b.object))) {
    const live = await read(api(), object).catch(() => undefined);
    const uid = live?.metadata.uid;
    if (uid === undefined) continue;
    await api()
      .delete(kindOf(object), object.metadata.namespace, object.metadata.name, { uid })
      .catch(() => undefined);
  }
  await hostApi?.close();
  await tenantApi?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('deploy/ as kustomize: two tenants from the sample overlay', () => {
  it('renders each tenant’s own objects, applies both to the host, and nothing collides', async () => {
    const [alpha, beta] = await Promise.all(
      TENANTS.map(async (t) => render(join(await overlayFor(t), 'host'))),
    );
    if (!alpha || !beta) throw new Error('two renders expected');
    const dev = await render(join(tmp, 'deploy', 'overlays', 'dev', 'host'));

    // The values reach every field that names the tenant: no trace of `dev` is left.
    for (const [objects, tenant, other] of [
      [alpha, TENANTS[0], TENANTS[1]],
      [beta, TENANTS[1], TENANTS[0]],
    ] as const) {
      const text = stringify(objects);
      expect(text).not.toMatch(/\bdev\b/);
      expect(text).not.toContain(other.name);
      expect(
        objects.some((o) => o.kind === 'ConfigMap' && o.metadata.name === 'tenantplane-tenant'),
      ).toBe(false);
      const own = objects.filter((o) => o.metadata.labels?.[TENANT_LABEL] !== undefined);
      expect(own.length).toBeGreaterThan(10);
      for (const o of own) {
        expect(o.metadata.labels?.[TENANT_LABEL]).toBe(tenant.name);
        expect(o.metadata.name).toContain(`-${tenant.name}`);
      }
      const clusterRole = objects.find(
        (o) => o.kind === 'ClusterRole' && o.metadata.name === `tenantplane-sync-${tenant.name}`,
      ) as KubeObject & { rules: { resourceNames?: string[] }[] };
      expect(clusterRole.rules.map((r) => r.resourceNames)).toEqual([
        [tenant.name],
        [tenant.name],
        [tenant.hostNamespace],
      ]);
      const lease = objects.find(
        (o) => o.kind === 'Role' && o.metadata.name === `tenantplane-sync-${tenant.name}`,
      ) as KubeObject & { rules: { resourceNames?: string[] }[] };
      expect(lease.metadata.namespace).toBe(tenant.hostNamespace);
      expect(lease.rules[2]?.resourceNames).toEqual([`tenantplane-${tenant.name}`]);
      const follow = objects.find((o) => o.kind === 'Deployment') as KubeObject & {
        spec: { template: { spec: { containers: { command: string[] }[] } } };
      };
      expect(follow.metadata.name).toBe(`tenantplane-follow-${tenant.name}`);
      expect(follow.spec.template.spec.containers[0]?.command.slice(2, 5)).toEqual([
        'sync',
        tenant.name,
        '--follow',
      ]);
      // Same objects as the sample, one for one.
      expect(objects.map((o) => o.kind).sort()).toEqual(dev.map((o) => o.kind).sort());
    }

    // Objects both render are shared by design and must be the very same; no other name is shared.
    const betaById = new Map(beta.map((o) => [idOf(o), o]));
    const shared = alpha.filter((o) => betaById.has(idOf(o)));
    expect(shared.map(idOf).sort()).toEqual([
      'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy//tenantplane-sync-finalizer-only',
      'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding//tenantplane-sync-finalizer-only',
      'flowcontrol.apiserver.k8s.io/v1/PriorityLevelConfiguration//tenantplane',
      'v1/Namespace//tenantplane-follow',
      'v1/ServiceAccount/tenantplane-follow/tenantplane-follow',
    ]);
    for (const o of shared) expect(betaById.get(idOf(o))).toEqual(o);

    // For real, on the host: alpha, then beta. Beta changes nothing of alpha's.
    const { hostKubeconfigPath } = integrationClusters();
    await apply(() => hostApi, hostKubeconfigPath, alpha);
    const alphaBefore = await stamps(alpha);
    await apply(() => hostApi, hostKubeconfigPath, beta);
    expect(await stamps(alpha)).toEqual(alphaBefore);
    const betaStamps = await stamps(beta);
    for (const o of beta) {
      const stamp = betaStamps.get(idOf(o));
      expect(stamp).not.toMatch(/^undefined/);
      if (!shared.some((s) => idOf(s) === idOf(o))) {
        expect([...alphaBefore.values()]).not.toContain(stamp);
      }
    }

    // Each identity reaches its own TenantCluster and host namespace, not the other tenant's.
    for (const [tenant, other] of [
      [TENANTS[0], TENANTS[1]],
      [TENANTS[1], TENANTS[0]],
    ] as const) {
      const canI = (verb: string, resource: string, namespace?: string) =>
        kubectl([
          '--kubeconfig',
          hostKubeconfigPath,
          'auth',
          'can-i',
          verb,
          resource,
          '--as',
          `tenantplane-sync-${tenant.name}`,
          ...(namespace ? ['-n', namespace] : []),
        ]).then(
          (out) => out.trim(),
          (error: Error) => (/failed: no\n/.test(error.message) ? 'no' : error.message),
        );
      // RBAC reaches the authorizer eventually: wait for the first grant, then read the rest.
      for (let i = 0; i < 50; i++) {
        if ((await canI('get', `tenantclusters.tenantplane.io/${tenant.name}`)) === 'yes') break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(await canI('get', `tenantclusters.tenantplane.io/${tenant.name}`)).toBe('yes');
      expect(await canI('get', `tenantclusters.tenantplane.io/${other.name}`)).toBe('no');
      expect(await canI('create', 'configmaps', tenant.hostNamespace)).toBe('yes');
      expect(await canI('create', 'configmaps', other.hostNamespace)).toBe('no');
      expect(await canI('watch', 'services', tenant.hostNamespace)).toBe('yes');
    }
  });

  it('the tenant side renders the tenant-cluster parts and applies to a tenant cluster', async () => {
    const objects = await render(join(tmp, 'deploy', 'overlays', 'dev', 'tenant'));
    const parts = await Promise.all(
      ['rbac/tenant-cluster', 'tenant-dns'].map((p) => render(join(tmp, 'deploy', p))),
    );
    expect(objects.map(idOf)).toEqual(expect.arrayContaining(parts.flat().map(idOf)));
    expect(objects.some((o) => o.metadata.name === 'tenantplane-sync-reader-workloads')).toBe(true);
    const { tenantKubeconfigPath } = integrationClusters();
    await apply(() => tenantApi, tenantKubeconfigPath, objects);
    for (const o of objects) expect(await read(tenantApi, o)).toBeDefined();
  });
});
