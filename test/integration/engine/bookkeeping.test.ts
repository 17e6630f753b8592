/**
 * Bookkeeping before the first copy write, on the real clusters: when the host refuses the
 * TenantCluster update that adds the host-cleanup finalizer (here a ValidatingAdmissionPolicy),
 * the pass writes no copy at all (the host namespace's uid + resourceVersion snapshot is
 * unchanged), says why, and once the policy is gone the next pass converges.
 */
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { KindRef, KubeObject } from '../../../lib/ports/index.js';
import { snapshot } from '../faults/support.js';
import {
  createTenant,
  hostObjects,
  kubectl,
  pass,
  type Tenant,
  tenantClusterObject,
  tenantConfigMap,
  useApis,
  waitFor,
} from './support.js';

const apis = useApis();

const FINALIZER = 'tenantplane.io/host-cleanup';
const VAP: KindRef = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
};

/**
 * Refuses any update of the tenant's own TenantCluster that carries the finalizer; waits until
 * the apiserver (which loads policies asynchronously) refuses a server-side dry run of that update.
 */
async function denyFinalizer(t: Tenant): Promise<KubeObject[]> {
  const name = `deny-finalizer-${t.name}`;
  const denial = `TenantCluster ${t.name} may not carry ${FINALIZER}`;
  const policy = await t.hostApi.create({
    ...VAP,
    metadata: { name },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: ['tenantplane.io'],
            apiVersions: ['*'],
            operations: ['UPDATE'],
            resources: ['tenantclusters'],
          },
        ],
      },
      validations: [
        {
          expression: `object.metadata.name != '${t.name}' || !has(object.metadata.finalizers) || !object.metadata.finalizers.exists(f, f == '${FINALIZER}')`,
          message: denial,
          reason: 'Forbidden',
        },
      ],
    },
  });
  const binding = await t.hostApi.create({
    ...VAP,
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName: name, validationActions: ['Deny'] },
  });
  const patch = JSON.stringify([{ op: 'add', path: '/metadata/finalizers', value: [FINALIZER] }]);
  await waitFor('the ValidatingAdmissionPolicy to take effect', async () => {
    try {
      await kubectl([
        'patch',
        'tenantcluster',
        t.name,
        '--type=json',
        '-p',
        patch,
        '--dry-run=server',
      ]);
      return undefined;
    } catch (error) {
      if (String(error).includes(denial)) return true;
      throw error;
    }
  });
  return [policy, binding];
}

describe('bookkeeping the host refuses', () => {
  it('a refused finalizer: no copy is written, the pass says why, and converges once allowed', async () => {
    const t = await createTenant(apis(), 'bookkeep');
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'a'));
    const copy = hostName('a', t.vns.a, t.name);
    const admission = await denyFinalizer(t);
    let removed = false;
    const remove = async () => {
      if (removed) return;
      removed = true;
      for (const object of [...admission].reverse())
        await t.hostApi.delete(object, undefined, object.metadata.name, {
          uid: object.metadata.uid as string,
        });
    };
    try {
      const before = await snapshot(t.hostNamespace);
      const { result } = await pass(t);
      expect(await snapshot(t.hostNamespace)).toEqual(before);
      expect(result.decisions).toEqual([]);
      expect(result.complete).toBe(false);
      expect(result.incompleteReason).toMatch(
        new RegExp(
          `the host-cleanup finalizer could not be added to TenantCluster "${t.name}", so no copy was written`,
        ),
      );
      expect(result.errors).toEqual([
        expect.objectContaining({
          kind: 'TenantCluster',
          message: expect.stringMatching(
            /^could not add the host-cleanup finalizer: .*may not carry/,
          ),
        }),
      ]);
      // The status subresource is not refused: the reason is where an operator looks.
      const refused = await tenantClusterObject(t);
      expect(refused.metadata.finalizers ?? []).not.toContain(FINALIZER);
      expect(refused.status).toMatchObject({
        hostNamespaces: [t.hostNamespace],
        lastPass: { complete: false, incompleteReason: result.incompleteReason },
      });

      await remove();
      // The apiserver unloads the policy asynchronously too: pass until it stops refusing.
      const next = await waitFor('a pass that converges once the policy is gone', async () => {
        const run = await pass(t);
        return run.result.complete ? run.result : undefined;
      });
      expect(next.errors).toEqual([]);
      expect((await hostObjects(t)).map((o) => o.metadata.name)).toEqual([copy]);
      expect((await tenantClusterObject(t)).metadata.finalizers).toContain(FINALIZER);
      expect((await pass(t)).result.requests.host.writes).toBe(0);
    } finally {
      await remove();
    }
  });
});
