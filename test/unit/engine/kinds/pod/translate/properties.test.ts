/** Properties of every translated Pod, over generated Pods, namespaces and tenants. */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { walkPodReferences } from '../../../../../../lib/engine/kinds/pod/translate/references.js';
import { referencesOf, translate } from '../../../../../../lib/engine/kinds/registry.js';
import { hostName, tokenSecretName } from '../../../../../../lib/engine/names/naming.js';
import type { KubeObject } from '../../../../../../lib/ports/index.js';
import { CSI_ALLOWED } from './fixtures.js';

const label = fc.stringMatching(/^[a-z]([-a-z0-9]{0,20}[a-z0-9])?$/);
const optional = fc.option(fc.boolean(), { nil: undefined });
const withOptional = (o: Record<string, unknown>, opt: boolean | undefined) =>
  opt === undefined ? o : { ...o, optional: opt };

const volume = fc.oneof(
  fc.record({ n: label, ref: label, opt: optional }).map(({ n, ref, opt }) => ({
    name: n,
    configMap: withOptional({ name: ref }, opt),
  })),
  fc.record({ n: label, ref: label, opt: optional }).map(({ n, ref, opt }) => ({
    name: n,
    secret: withOptional({ secretName: ref }, opt),
  })),
  fc.record({ n: label, ref: label }).map(({ n, ref }) => ({
    name: n,
    persistentVolumeClaim: { claimName: ref },
  })),
  fc.record({ n: label, cm: label, s: label, token: fc.boolean() }).map(({ n, cm, s, token }) => ({
    name: n,
    projected: {
      sources: [
        ...(token ? [{ serviceAccountToken: { path: 'token' } }] : []),
        { configMap: { name: cm } },
        { secret: { name: s } },
      ],
    },
  })),
  fc.record({ n: label, ref: label }).map(({ n, ref }) => ({
    name: n,
    csi: { driver: 'd', nodePublishSecretRef: { name: ref } },
  })),
  // The claim the tenant's controller made for it (`<pod>-<volume>`), never the template.
  label.map((n) => ({
    name: n,
    ephemeral: { volumeClaimTemplate: { metadata: { labels: { a: 'b' } }, spec: {} } },
  })),
);
const env = fc.oneof(
  fc.record({ n: label, ref: label }).map(({ n, ref }) => ({
    name: n,
    valueFrom: { configMapKeyRef: { name: ref, key: 'k' } },
  })),
  fc.record({ n: label, ref: label }).map(({ n, ref }) => ({
    name: n,
    valueFrom: { secretKeyRef: { name: ref, key: 'k' } },
  })),
);
const container = fc.record({
  name: label,
  image: fc.constant('nginx'),
  env: fc.array(env, { maxLength: 3 }),
  envFrom: fc.array(
    fc.oneof(
      label.map((ref) => ({ configMapRef: { name: ref } })),
      label.map((ref) => ({ secretRef: { name: ref } })),
    ),
    { maxLength: 2 },
  ),
});
const podArb = fc.record({
  name: label,
  vns: label,
  tenant: label,
  spec: fc.record({
    volumes: fc.array(volume, { maxLength: 4 }),
    initContainers: fc.array(container, { maxLength: 1 }),
    containers: fc.array(container, { minLength: 1, maxLength: 2 }),
    imagePullSecrets: fc.array(
      label.map((n) => ({ name: n })),
      { maxLength: 2 },
    ),
    automountServiceAccountToken: fc.option(fc.boolean(), { nil: undefined }),
    serviceAccountName: fc.option(label, { nil: undefined }),
  }),
});

function translated(p: { name: string; vns: string; tenant: string; spec: object }) {
  const source: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: p.name, namespace: p.vns },
    spec: structuredClone(p.spec),
  };
  const result = translate(source, {
    tenant: p.tenant,
    hostNamespace: 'host-ns',
    workloads: CSI_ALLOWED,
  });
  if (!('host' in result)) throw new Error(result.refused);
  return { source, host: result.host };
}

describe('every translated Pod', () => {
  it('refers only to host names of its own virtual namespace and tenant, one for each tenant reference', () => {
    fc.assert(
      fc.property(podArb, (p) => {
        const { source, host } = translated(p);
        const names: string[] = [];
        // The token Secret is the Pod's own (minted by a pass), no copy of a tenant object.
        const tokens = tokenSecretName(host.metadata.name);
        walkPodReferences(host.spec, host.metadata.name, (ref) => {
          if (ref.name !== tokens) names.push(`${ref.kind.kind}/${ref.name}`);
        });
        const expected = referencesOf(source).map(
          (r) => `${r.kind}/${hostName(r.name, p.vns, p.tenant)}`,
        );
        expect(names).toEqual(expected);
      }),
    );
  });

  it('carries no host credentials: no token mounted, no service-account token source', () => {
    fc.assert(
      fc.property(podArb, (p) => {
        const spec = translated(p).host.spec as Record<string, unknown>;
        expect(spec.automountServiceAccountToken).toBe(false);
        expect(spec.enableServiceLinks).toBe(false);
        expect(JSON.stringify(spec)).not.toContain('serviceAccountToken');
        expect(spec.serviceAccountName).toBeUndefined();
      }),
    );
  });

  it('is translated the same way twice (pure)', () => {
    fc.assert(
      fc.property(podArb, (p) => {
        expect(translated(p).host).toEqual(translated(p).host);
      }),
    );
  });
});
