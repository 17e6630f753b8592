/**
 * No data in error text, on the real clusters: a host ValidatingAdmissionPolicy rejects a Secret
 * copy with a message that echoes the Secret's data (a canary value). The rejection reaches the
 * pass result, its Events (`kubectl describe tenantcluster`), `status.lastPass` and the logs as
 * reason, HTTP code and field paths only; the canary appears nowhere. A ConfigMap rejected the same
 * way keeps the server's message (ConfigMaps are not sensitive), unless the policy marks its kind
 * `sensitive`.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { KubeObject } from '../../../lib/ports/index.js';
import {
  admissionPolicy,
  CONFIGMAP,
  createTenant,
  kubectl,
  pass,
  SECRET,
  TENANT_CLUSTER,
  type Tenant,
  tenantConfigMap,
  tenantObject,
  useApis,
} from '../engine/support.js';

const apis = useApis();
const CANARY = `canary-${randomBytes(8).toString('hex')}`;

/** Denies Secrets and ConfigMaps with a `password` key, echoing its value, in the tenant's host namespace. */
function echoingPolicy(t: Tenant): Promise<KubeObject[]> {
  return admissionPolicy(t, {
    name: `echo-${t.name}`,
    operations: ['CREATE', 'UPDATE'],
    resources: ['secrets', 'configmaps'],
    validation: {
      expression: "!has(object.data) || !('password' in object.data)",
      messageExpression:
        "'password may not be ' + (object.kind == 'Secret' ? string(object.data['password']) : object.data['password'])",
      reason: 'Invalid',
    },
    probeData: { password: 'probe' },
    denial: 'password may not be',
  });
}

describe('no data in error text', () => {
  it('a Secret rejected with its data echoed: reason, code and fields only, nowhere the canary', async () => {
    const t = await createTenant(apis(), 'sens', { toHost: [CONFIGMAP, SECRET] });
    const admission = await echoingPolicy(t);
    try {
      await t.tenantApi.create(
        tenantObject(t, SECRET, t.vns.a, 'db', {
          type: 'Opaque',
          stringData: { password: CANARY },
        }),
      );
      await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'plain', { password: 'visible-value' }));
      const { result, logs } = await pass(t);

      const secretError = result.errors.find((e) => e.kind === 'Secret');
      expect(secretError).toMatchObject({
        reason: 'Invalid',
        tenantRef: { namespace: t.vns.a, name: 'db' },
        message: expect.stringMatching(
          /^the server refused it: Invalid \(HTTP 422\).*; its message is withheld because Secret objects are sensitive$/,
        ),
      });
      // A ConfigMap is not sensitive: the server's words stay, so the operator sees why.
      const configMapError = result.errors.find((e) => e.kind === 'ConfigMap');
      expect(configMapError?.message).toContain('password may not be visible-value');

      const everywhere = JSON.stringify({
        result,
        logs,
        status: (await t.hostApi.get(TENANT_CLUSTER, undefined, t.name))?.status,
        describe: await kubectl(['describe', 'tenantcluster', t.name]),
        events: await kubectl(['get', 'events', '-n', 'default', '-o', 'json']),
      });
      expect(everywhere).not.toContain(CANARY);
      expect(everywhere).not.toContain(Buffer.from(CANARY).toString('base64'));
      expect(everywhere).toContain(hostName('db', t.vns.a, t.name));
    } finally {
      for (const object of admission.reverse()) {
        await t.hostApi.delete(object, undefined, object.metadata.name, {
          uid: object.metadata.uid as string,
        });
      }
    }
  });

  it('a kind the policy marks sensitive is reduced the same way', async () => {
    const t = await createTenant(apis(), 'sens-cm');
    const tc = (await t.hostApi.get(TENANT_CLUSTER, undefined, t.name)) as KubeObject;
    const spec = tc.spec as { toHost: Record<string, unknown>[] };
    await t.hostApi.update({
      ...tc,
      spec: { ...spec, toHost: spec.toHost.map((r) => ({ ...r, sensitive: true })) },
    });
    const admission = await echoingPolicy(t);
    try {
      await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'cfg', { password: CANARY }));
      const { result, logs } = await pass(t);
      expect(result.errors).toEqual([
        expect.objectContaining({
          kind: 'ConfigMap',
          message: expect.stringContaining('withheld because ConfigMap objects are sensitive'),
        }),
      ]);
      const status = (await t.hostApi.get(TENANT_CLUSTER, undefined, t.name))?.status;
      expect(JSON.stringify({ result, logs, status })).not.toContain(CANARY);
    } finally {
      for (const object of admission.reverse()) {
        await t.hostApi.delete(object, undefined, object.metadata.name, {
          uid: object.metadata.uid as string,
        });
      }
    }
  });
});
