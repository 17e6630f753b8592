/**
 * Provenance by uid: every kind's copy carries its tenant object's uid (token Secrets the uid of
 * the tenant Pod they serve), and the status back writes a copy's status only onto the tenant
 * object whose uid the copy carries: not onto a later object of the name, and not from an object
 * that carries the engine's labels but no uid (a host controller's, stamped from a template).
 */
import { describe, expect, it } from '@jest/globals';
import { NotedObjects } from '../../../../../lib/engine/kinds/frame/status-back.js';
import { tokenSecret } from '../../../../../lib/engine/kinds/pod/translate/token-secret.js';
import { KINDS, translate } from '../../../../../lib/engine/kinds/registry.js';
import { Annotations } from '../../../../../lib/engine/names/metadata.js';
import { toHostObject } from '../../../../../lib/engine/object/transform.js';
import type { KubeObject } from '../../../../../lib/ports/index.js';
import { HOST_NAMESPACE, TENANT } from '../support.js';

/** A plain, valid tenant object of each kind with a module (nothing any translator refuses). */
const BODIES: Record<string, Record<string, unknown>> = {
  ConfigMap: { data: { key: 'value' } },
  Secret: { type: 'Opaque', data: {} },
  Pod: {
    spec: { automountServiceAccountToken: false, containers: [{ name: 'web', image: 'nginx:1' }] },
  },
  Service: { spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } },
  EndpointSlice: { addressType: 'IPv4', endpoints: [], ports: [] },
  Endpoints: { subsets: [] },
  PersistentVolumeClaim: {
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  },
  Ingress: { spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } } },
  NetworkPolicy: { spec: { podSelector: {}, policyTypes: ['Ingress'] } },
  ServiceAccount: {},
  PodDisruptionBudget: { spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } } },
  HTTPRoute: {
    spec: { hostnames: ['web.example.com'], rules: [{ backendRefs: [{ name: 'web' }] }] },
  },
  GRPCRoute: {
    spec: { hostnames: ['web.example.com'], rules: [{ backendRefs: [{ name: 'web' }] }] },
  },
  TLSRoute: {
    spec: {
      hostnames: ['web.example.com'],
      rules: [{ backendRefs: [{ name: 'web', port: 443 }] }],
    },
  },
};

describe('every copy carries its tenant object’s uid', () => {
  it('lists a body for every kind with a module', () => {
    expect(KINDS.map((m) => m.kind.kind).sort()).toEqual(Object.keys(BODIES).sort());
  });

  // Through the kind's own translator, whatever its refusals (orthogonal: a refused object has
  // no copy), so no isolation limit hides a translator that dropped the annotation.
  it.each(KINDS.map((m) => [m.kind.kind, m] as const))('%s', (kind, module) => {
    const source: KubeObject = {
      apiVersion: module.kind.apiVersion,
      kind,
      metadata: { name: 'web', namespace: 'shop', uid: `${kind}-uid` },
      ...BODIES[kind],
    };
    const target = { tenant: TENANT, hostNamespace: HOST_NAMESPACE };
    const generic = toHostObject(source, target, true, module.hostOwned);
    const host = module.translator
      ? module.translator.toHost(generic, { ...target, virtualNamespace: 'shop', source })
      : generic;
    expect(host.metadata.annotations?.[Annotations.VirtualUid]).toBe(`${kind}-uid`);
    // And through the registry, when the kind takes it at all.
    const result = translate(source, target);
    if ('host' in result) {
      expect(result.host.metadata.annotations?.[Annotations.VirtualUid]).toBe(`${kind}-uid`);
    }
  });

  it('a generic kind (ConfigMap, a custom resource)', () => {
    const source: KubeObject = {
      apiVersion: 'example.com/v1',
      kind: 'Blob',
      metadata: { name: 'b', namespace: 'shop', uid: 'blob-uid' },
    };
    const host = toHostObject(source, { tenant: TENANT, hostNamespace: HOST_NAMESPACE });
    expect(host.metadata.annotations?.[Annotations.VirtualUid]).toBe('blob-uid');
  });

  it('a token Secret: the tenant Pod’s', () => {
    const secret = tokenSecret({
      tenant: TENANT,
      hostNamespace: HOST_NAMESPACE,
      need: {
        hostPod: { name: 'web-x-shop-x-dev', uid: 'host-pod-uid' },
        virtualNamespace: 'shop',
        virtualName: 'web',
        virtualUid: 'pod-uid',
        serviceAccount: 'default',
        requests: [{ key: 'token', audiences: [], expirationSeconds: 3600 }],
      },
      tokens: new Map(),
      issuedAt: 0,
    });
    expect(secret.metadata.annotations?.[Annotations.VirtualUid]).toBe('pod-uid');
  });
});

describe('NotedObjects.of: the status back’s match of a copy to its tenant object', () => {
  const CLAIM = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };
  const tenantClaim = (uid?: string): KubeObject => ({
    ...CLAIM,
    metadata: { namespace: 'shop', name: 'data', ...(uid ? { uid } : {}) },
  });
  /** A host object with this tenant's reverse mapping for `shop/data`, carrying `uid` if any. */
  const copy = (uid?: string, tenant = TENANT): KubeObject => {
    const host = toHostObject(tenantClaim(uid), { tenant, hostNamespace: HOST_NAMESPACE });
    return host;
  };
  const cases: Array<{ name: string; tenantUid?: string; host: KubeObject; found: boolean }> = [
    { name: 'the copy of this very object', tenantUid: 'u-1', host: copy('u-1'), found: true },
    {
      name: 'a copy of an earlier object of the name',
      tenantUid: 'u-2',
      host: copy('u-1'),
      found: false,
    },
    {
      name: 'an object with the engine’s labels and no uid (a host controller’s): not this one’s',
      tenantUid: 'u-1',
      host: copy(undefined),
      found: false,
    },
    { name: 'another tenant’s copy', tenantUid: 'u-1', host: copy('u-1', 'other'), found: false },
    {
      name: 'a tenant object without a uid (never from an apiserver): matched by name',
      host: copy('u-1'),
      found: true,
    },
  ];
  it.each(cases)('$name', ({ tenantUid, host, found }) => {
    const noted = new NotedObjects({ tenant: TENANT, kind: CLAIM.kind });
    const object = tenantClaim(tenantUid);
    noted.note(object);
    expect(noted.of(host)).toBe(found ? object : undefined);
  });
});
