/**
 * Issue 28, finding 6, on the real clusters, with an attacker and a victim TenantCluster sharing
 * one host namespace and one host suffix. A host Ingress is served by a controller every tenant
 * shares: the victim's host (and a name under its wildcard), a host outside the policy's suffixes,
 * a catch-all (a default backend, a rule without a host), a class the policy does not list and
 * controller annotations (an nginx snippet, an ALB group) are Skips naming the field, with no host
 * object; an Ingress within the policy is copied. A uid/resourceVersion snapshot of the host
 * namespace shows nothing else changed (the victim's copy untouched), and later passes of both
 * tenants decide the same with no write.
 */
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { KindRef } from '../../../lib/ports/index.js';
import { snapshot } from '../faults/support.js';
import { createTenant, diffSnapshots, pass, RUN, tenantObject, useApis } from './support.js';

const apis = useApis();
const INGRESS: KindRef = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' };
const SUFFIX = `.ii-${RUN}.apps.example.com`;
const backend = { service: { name: 'web', port: { number: 80 } } };
const rule = (host?: string) => ({
  ...(host === undefined ? {} : { host }),
  http: { paths: [{ path: '/', pathType: 'Prefix', backend }] },
});

type Spec = Record<string, unknown>;
/** Hostile Ingresses: name, spec, annotations, what the Skip says. */
const HOSTILE: Array<[string, Spec, Record<string, string>, string]> = [
  [
    'steal',
    { ingressClassName: 'public', rules: [rule(`shop.victim${SUFFIX}`)] },
    {},
    `spec.rules[0].host "shop.victim${SUFFIX}" is already served by another Ingress of the host namespace, which named it first`,
  ],
  [
    'steal-wildcard',
    {
      ingressClassName: 'public',
      rules: [rule(`mine.attacker${SUFFIX}`)],
      tls: [{ hosts: [`login.shops.victim${SUFFIX}`], secretName: 'tls' }],
    },
    {},
    `spec.tls[0].hosts[0] "login.shops.victim${SUFFIX}" is already served by another Ingress of the host namespace, through its *.shops.victim${SUFFIX}, which came first`,
  ],
  [
    'foreign-host',
    { ingressClassName: 'public', rules: [rule('login.bank.example.org')] },
    {},
    `spec.rules[0].host "login.bank.example.org" is not a host the policy allows (spec.workloads.ingresses.hostSuffixes: ${SUFFIX})`,
  ],
  [
    'catch-all',
    { ingressClassName: 'public', defaultBackend: backend },
    {},
    "spec.defaultBackend would answer for every host the host's ingress controller serves",
  ],
  [
    'hostless',
    { ingressClassName: 'public', rules: [rule()] },
    {},
    'the rule spec.rules[0] has no host',
  ],
  [
    'foreign-class',
    { ingressClassName: 'internal-admin', rules: [rule(`b.attacker${SUFFIX}`)] },
    {},
    'spec.ingressClassName "internal-admin" is not a class the policy allows (spec.workloads.ingresses.classes: public)',
  ],
  [
    'snippet',
    { ingressClassName: 'public', rules: [rule(`c.attacker${SUFFIX}`)] },
    {
      'nginx.ingress.kubernetes.io/server-snippet':
        'location /x { proxy_pass http://169.254.169.254/; }',
    },
    'the annotation nginx.ingress.kubernetes.io/server-snippet is not one the policy allows on a host Ingress (spec.workloads.ingresses.annotations: example.com/)',
  ],
  [
    'alb-group',
    { ingressClassName: 'public', rules: [rule(`d.attacker${SUFFIX}`)] },
    { 'alb.ingress.kubernetes.io/group.name': 'victim' },
    'the annotation alb.ingress.kubernetes.io/group.name is not one the policy allows',
  ],
];

describe('Ingresses within the policy', () => {
  it('another tenant’s host, a foreign host, a catch-all, a foreign class and controller annotations are Skips naming them; an allowed Ingress is copied; nothing else changes', async () => {
    const limits = { hostSuffixes: [SUFFIX], classes: ['public'], annotations: ['example.com/'] };
    const victim = await createTenant(apis(), 'ii-victim', {
      toHost: [INGRESS],
      workloads: { ingresses: limits },
    });
    const hostNs = victim.hostNamespace;
    const attacker = await createTenant(apis(), 'ii-attacker', {
      toHost: [INGRESS],
      hostNamespace: hostNs,
      workloads: { ingresses: limits },
    });
    await victim.tenantApi.create(
      tenantObject(victim, INGRESS, victim.vns.a, 'shop', {
        spec: {
          ingressClassName: 'public',
          rules: [rule(`shop.victim${SUFFIX}`), rule(`*.shops.victim${SUFFIX}`)],
        },
      }),
    );
    const first = await pass(victim);
    expect(first.result.errors).toEqual([]);
    expect(first.result.decisions.map((d) => d.action)).toEqual(['Create']);

    const ns = attacker.vns.a;
    for (const [name, spec, annotations] of HOSTILE) {
      await attacker.tenantApi.create(
        tenantObject(attacker, INGRESS, ns, name, { spec }, { annotations }),
      );
    }
    await attacker.tenantApi.create(
      tenantObject(
        attacker,
        INGRESS,
        ns,
        'own',
        {
          spec: {
            ingressClassName: 'public',
            rules: [rule(`www.attacker${SUFFIX}`)],
            tls: [{ hosts: [`www.attacker${SUFFIX}`], secretName: 'tls' }],
          },
        },
        { annotations: { 'example.com/team': 'web' } },
      ),
    );
    const before = await snapshot(hostNs);

    const { result } = await pass(attacker);
    expect(result.errors).toEqual([]);
    const skips = result.decisions.filter((d) => d.action === 'Skip');
    for (const [name, , , says] of HOSTILE) {
      expect(skips).toContainEqual(
        expect.objectContaining({
          tenantRef: { namespace: ns, name },
          reason: expect.stringContaining(says),
        }),
      );
    }
    expect(skips).toHaveLength(HOSTILE.length);
    const own = hostName('own', ns, attacker.name);
    expect(diffSnapshots(before, await snapshot(hostNs))).toEqual({
      created: [`Ingress/${own}`],
      changed: [],
      deleted: [],
    });
    const copy = await attacker.hostApi.get(INGRESS, hostNs, own);
    expect(copy?.metadata.annotations?.['example.com/team']).toBe('web');
    expect((copy?.spec as Spec | undefined)?.ingressClassName).toBe('public');

    // Steady: the same Skips with no write; the victim keeps its copy, with nothing to decide.
    const settled = await snapshot(hostNs);
    const again = await pass(attacker, { full: true });
    expect(again.result.errors).toEqual([]);
    expect(again.result.decisions.filter((d) => d.action !== 'Skip')).toEqual([]);
    expect(again.result.decisions).toHaveLength(HOSTILE.length);
    const steady = await pass(victim, { full: true });
    expect(steady.result.errors).toEqual([]);
    expect(steady.result.decisions).toEqual([]);
    expect(diffSnapshots(settled, await snapshot(hostNs))).toEqual({
      created: [],
      changed: [],
      deleted: [],
    });
  });
});
