/**
 * The gateway's check of a host Pod before it relays: only a copy whose reverse mapping names the
 * asking tenant, namespace and name passes; everything else is the same 403, so a client
 * certificate cannot tell a missing Pod from another tenant's or a foreign one.
 */
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import { tenantContainersAnnotation } from '../../../lib/engine/kinds/pod/tenant-containers.js';
import {
  reverseMappingAnnotations,
  reverseMappingLabels,
} from '../../../lib/engine/names/reverse-mapping.js';
import { checkAccess } from '../../../lib/gateway/access.js';
import type { GatewayTenant } from '../../../lib/gateway/config.js';
import { parseKubeletRequest } from '../../../lib/gateway/routes.js';
import { HostStatusError } from '../../../lib/gateway/upstream.js';
import type { KubeObject } from '../../../lib/ports/index.js';

const request = parseKubeletRequest('/containerLogs/apps/web/nginx', false)!;

/** A tenant whose host answers each GET from `pods` (by path), 404 for the rest. */
function tenant(name: string, pods: Record<string, KubeObject | Error>) {
  const asked: string[] = [];
  const host = {
    getJson: async (path: string) => {
      asked.push(path);
      const pod = pods[path];
      if (pod instanceof Error) throw pod;
      return pod;
    },
  };
  // Only getJson is called by the check; the rest of HostTarget is never reached.
  const t = { name, hostNamespace: `tenant-${name}`, host } as unknown as GatewayTenant;
  return { t, asked };
}

const path = (t: string, pod: string) => `/api/v1/namespaces/tenant-${t}/pods/${pod}`;

function copy(
  name: string,
  of: { tenant: string; kind?: string; namespace?: string; pod?: string },
): KubeObject {
  const namespace = of.namespace ?? 'apps';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      labels: reverseMappingLabels(of.tenant, of.kind ?? 'Pod', namespace),
      annotations: {
        ...reverseMappingAnnotations(namespace, of.pod ?? 'web', 'uid-1'),
        ...tenantContainersAnnotation(['init', 'nginx']),
      },
    },
  };
}

describe('checkAccess', () => {
  const own = hostName('web', 'apps', 'dev');

  it('relays to the tenant’s own copy, asked in its host namespace only', async () => {
    const { t, asked } = tenant('dev', { [path('dev', own)]: copy(own, { tenant: 'dev' }) });
    expect(await checkAccess(t, request)).toEqual({ hostPod: own });
    expect(asked).toEqual([path('dev', own)]);
  });

  const forbidden = {
    status: 403,
    message: 'forbidden: the kubelet gateway serves no pod apps/web of this tenant',
  };
  const prod = hostName('web', 'apps', 'prod');
  it.each([
    ['no host copy (the Pod is another tenant’s, or no one’s)', {}],
    [
      'a copy of another tenant under the name',
      { [path('prod', prod)]: copy(prod, { tenant: 'dev' }) },
    ],
    [
      'a foreign object under the name',
      { [path('prod', prod)]: { ...copy(prod, { tenant: 'prod' }), metadata: { name: prod } } },
    ],
    [
      'a copy of another kind',
      { [path('prod', prod)]: copy(prod, { tenant: 'prod', kind: 'Service' }) },
    ],
    [
      'a copy of another namespace',
      { [path('prod', prod)]: copy(prod, { tenant: 'prod', namespace: 'other' }) },
    ],
    ['a copy of another name', { [path('prod', prod)]: copy(prod, { tenant: 'prod', pod: 'db' }) }],
  ])('403, one message, for %s', async (_, pods: Record<string, KubeObject>) => {
    expect(await checkAccess(tenant('prod', pods).t, request)).toEqual(forbidden);
  });

  it.each([
    ['/containerLogs/apps/web/init', { hostPod: own }],
    [
      '/containerLogs/apps/web/sidecar',
      { status: 404, message: 'not found: pod apps/web has no container "sidecar"' },
    ],
  ])('%s: only a container of the tenant Pod’s spec', async (url, want) => {
    const { t } = tenant('dev', { [path('dev', own)]: copy(own, { tenant: 'dev' }) });
    expect(await checkAccess(t, parseKubeletRequest(url, false)!)).toEqual(want);
  });

  it('port-forward names no container: the Pod is enough', async () => {
    const { t } = tenant('dev', { [path('dev', own)]: copy(own, { tenant: 'dev' }) });
    const forward = parseKubeletRequest('/portForward/apps/web?port=80', true)!;
    expect(await checkAccess(t, forward)).toEqual({ hostPod: own });
  });

  it('a host that cannot be asked is 502, not a verdict on the Pod', async () => {
    const { t } = tenant('dev', { [path('dev', own)]: new HostStatusError(500) });
    expect(await checkAccess(t, request)).toEqual({
      status: 502,
      message: 'the host apiserver could not be asked (500)',
    });
  });
});
