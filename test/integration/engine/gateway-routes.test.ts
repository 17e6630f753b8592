/**
 * Gateway API routes on the real clusters (issue 40, point 2), with a victim and an attacker
 * TenantCluster sharing one host namespace, one host Gateway and one hostname suffix. The victim's
 * HTTPRoute to its Service, on the Gateway the policy allows, lands on the host pointing at the
 * Service's host copy; the test plays the host's gateway controller (it writes the host route's
 * status) and the tenant route shows Accepted, its parent as the tenant wrote it. The attacker's
 * route to a Gateway not allowed, to the victim's Service, or for the victim's hostname is a Skip
 * naming the field; a uid@resourceVersion snapshot of the host namespace shows nothing else
 * changed, and later passes of both tenants decide the same with no write. A GRPCRoute goes the
 * same way, its hostnames claimed among the GRPCRoutes; so does a TLSRoute (standard since v1.5).
 */
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { KindRef, KubeObject, PassResult } from '../../../lib/ports/index.js';
import { snapshot } from '../faults/support.js';
import {
  createTenant,
  diffSnapshots,
  ensureNamespace,
  pass,
  RUN,
  SERVICE,
  tenantObject,
  useApis,
} from './support.js';

const apis = useApis();
const GROUP = 'gateway.networking.k8s.io';
const HTTP_ROUTE: KindRef = { apiVersion: `${GROUP}/v1`, kind: 'HTTPRoute' };
const GRPC_ROUTE: KindRef = { apiVersion: `${GROUP}/v1`, kind: 'GRPCRoute' };
const TLS_ROUTE: KindRef = { apiVersion: `${GROUP}/v1`, kind: 'TLSRoute' };
const GATEWAY: KindRef = { apiVersion: `${GROUP}/v1`, kind: 'Gateway' };
const SUFFIX = `.gr-${RUN}.apps.example.com`;
const GATEWAY_NS = `gateways-${RUN}`;
const PARENT = { name: 'shared', namespace: GATEWAY_NS };

type Spec = Record<string, unknown>;

/**
 * The Decisions about routes: the tenant has no namespace of the allowed Gateway, so the import of
 * it is a Skip every pass (gateway-import.test.ts proves the import).
 */
const routeDecisions = (result: PassResult) => result.decisions.filter((d) => d.kind !== 'Gateway');
const routeSpec = (over: Spec = {}): Spec => ({
  parentRefs: [PARENT],
  hostnames: [`shop.victim${SUFFIX}`],
  rules: [{ backendRefs: [{ name: 'web', port: 80 }] }],
  ...over,
});

const condition = (type: string) => ({
  type,
  status: 'True',
  reason: type,
  message: '',
  lastTransitionTime: '2026-01-01T00:00:00Z',
  observedGeneration: 1,
});

describe('Gateway API routes', () => {
  it('a route to its Service on an allowed Gateway lands on the copy and shows Accepted; a foreign Gateway, another tenant’s Service or hostname is a Skip naming the field; nothing else changes', async () => {
    const a = apis();
    // The operator's shared Gateway: the routes attach to it (no controller runs locally).
    await ensureNamespace(a.hostApi, GATEWAY_NS);
    await a.hostApi.create({
      ...GATEWAY,
      metadata: { namespace: GATEWAY_NS, name: 'shared' },
      spec: {
        gatewayClassName: 'example',
        listeners: [
          {
            name: 'http',
            protocol: 'HTTP',
            port: 80,
            allowedRoutes: { namespaces: { from: 'All' } },
          },
        ],
      },
    });
    const workloads = { gateways: { parents: [PARENT], hostSuffixes: [SUFFIX] } };
    const victim = await createTenant(a, 'gr-victim', { toHost: [SERVICE, HTTP_ROUTE], workloads });
    const hostNs = victim.hostNamespace;
    const attacker = await createTenant(a, 'gr-attacker', {
      toHost: [SERVICE, HTTP_ROUTE],
      hostNamespace: hostNs,
      workloads,
    });

    const vns = victim.vns.a;
    await victim.tenantApi.create(
      tenantObject(victim, SERVICE, vns, 'web', { spec: { ports: [{ port: 80 }] } }),
    );
    await victim.tenantApi.create(
      tenantObject(victim, HTTP_ROUTE, vns, 'shop', { spec: routeSpec() }),
    );
    const first = await pass(victim);
    expect(first.result.errors).toEqual([]);
    expect(
      routeDecisions(first.result)
        .map((d) => `${d.action} ${d.kind}`)
        .sort(),
    ).toEqual(['Create HTTPRoute', 'Create Service']);
    // The allowed Gateway is not shown: its namespace is not the tenant's (the engine makes none).
    expect(first.result.decisions.filter((d) => d.kind === 'Gateway')).toEqual([
      expect.objectContaining({
        action: 'Skip',
        tenantRef: PARENT,
        reason: expect.stringContaining(`the tenant has no namespace "${GATEWAY_NS}"`),
      }),
    ]);

    // On the host: attached to the shared Gateway, pointing at the Service's host copy.
    const copyName = hostName('shop', vns, victim.name);
    const copy = await victim.hostApi.get(HTTP_ROUTE, hostNs, copyName);
    const service = hostName('web', vns, victim.name);
    expect(await victim.hostApi.get(SERVICE, hostNs, service)).toBeDefined();
    expect(copy?.spec).toMatchObject({
      parentRefs: [PARENT],
      hostnames: [`shop.victim${SUFFIX}`],
      rules: [{ backendRefs: [{ name: service, port: 80 }] }],
    });

    // The host's gateway controller accepts the copy (the test plays it), on the host's names.
    const hostParent = { group: GROUP, kind: 'Gateway', ...PARENT };
    const accepted = {
      parentRef: hostParent,
      controllerName: 'example.com/gateway-controller',
      conditions: [condition('Accepted'), condition('ResolvedRefs')],
    };
    await victim.hostApi.patchStatus(HTTP_ROUTE, hostNs, copyName, { parents: [accepted] });
    const back = await pass(victim, { full: true });
    expect(back.result.errors).toEqual([]);
    const shown = (await victim.tenantApi.get(HTTP_ROUTE, vns, 'shop')) as KubeObject;
    // The parent as the tenant's route holds it (its CRD spells out group and kind).
    const written = (shown.spec as { parentRefs: unknown[] }).parentRefs[0];
    expect(written).toEqual(hostParent);
    expect(shown.status).toEqual({ parents: [{ ...accepted, parentRef: written }] });

    // The attacker, in the same host namespace.
    const ns = attacker.vns.a;
    const hostile: Array<[string, Spec, string]> = [
      [
        'private-gateway',
        routeSpec({
          parentRefs: [{ name: 'internal', namespace: GATEWAY_NS }],
          hostnames: [`a.attacker${SUFFIX}`],
        }),
        `spec.parentRefs[0] names the Gateway ${GATEWAY_NS}/internal, which is not one the policy allows`,
      ],
      [
        'victim-service',
        routeSpec({
          hostnames: [`b.attacker${SUFFIX}`],
          rules: [{ backendRefs: [{ name: 'web', namespace: vns, port: 80 }] }],
        }),
        `spec.rules[0].backendRefs[0].namespace "${vns}" is another namespace`,
      ],
      [
        'victim-copy',
        routeSpec({
          hostnames: [`c.attacker${SUFFIX}`],
          rules: [{ backendRefs: [{ name: service, namespace: hostNs, port: 80 }] }],
        }),
        `spec.rules[0].backendRefs[0].namespace "${hostNs}" is another namespace`,
      ],
      [
        'victim-hostname',
        routeSpec(),
        `spec.hostnames[0] "shop.victim${SUFFIX}" is already served by another HTTPRoute of the host namespace, which named it first`,
      ],
    ];
    for (const [name, spec] of hostile) {
      await attacker.tenantApi.create(tenantObject(attacker, HTTP_ROUTE, ns, name, { spec }));
    }
    const own = routeSpec({
      hostnames: [`www.attacker${SUFFIX}`],
      rules: [{ backendRefs: [{ name: 'api', port: 8080 }] }],
    });
    await attacker.tenantApi.create(tenantObject(attacker, HTTP_ROUTE, ns, 'own', { spec: own }));
    const before = await snapshot(hostNs);

    const { result } = await pass(attacker);
    expect(result.errors).toEqual([]);
    const skips = routeDecisions(result).filter((d) => d.action === 'Skip');
    for (const [name, , says] of hostile) {
      expect(skips).toContainEqual(
        expect.objectContaining({
          tenantRef: expect.objectContaining({ namespace: ns, name }),
          reason: expect.stringContaining(says),
        }),
      );
    }
    expect(skips).toHaveLength(hostile.length);
    const ownCopy = hostName('own', ns, attacker.name);
    expect(diffSnapshots(before, await snapshot(hostNs))).toEqual({
      created: [`HTTPRoute/${ownCopy}`],
      changed: [],
      deleted: [],
    });
    const ownHost = await attacker.hostApi.get(HTTP_ROUTE, hostNs, ownCopy);
    expect(ownHost?.spec).toMatchObject({
      rules: [{ backendRefs: [{ name: hostName('api', ns, attacker.name), port: 8080 }] }],
    });

    // Steady: the same Skips with no write; the victim keeps its copy, with nothing to decide.
    const settled = await snapshot(hostNs);
    const again = await pass(attacker, { full: true });
    expect(again.result.errors).toEqual([]);
    expect(again.result.decisions.filter((d) => d.action !== 'Skip')).toEqual([]);
    expect(routeDecisions(again.result)).toHaveLength(hostile.length);
    const steady = await pass(victim, { full: true });
    expect(steady.result.errors).toEqual([]);
    expect(routeDecisions(steady.result)).toEqual([]);
    expect(diffSnapshots(settled, await snapshot(hostNs))).toEqual({
      created: [],
      changed: [],
      deleted: [],
    });
    const tenantAfter = (await victim.tenantApi.get(HTTP_ROUTE, vns, 'shop')) as KubeObject;
    expect(tenantAfter.metadata.resourceVersion).toBe(shown.metadata.resourceVersion);
  });

  it('a GRPCRoute to its Service lands on the copy and shows Accepted; another namespace’s Service is a Skip; nothing else changes', async () => {
    const a = apis();
    const workloads = { gateways: { parents: [PARENT], hostSuffixes: [SUFFIX] } };
    const t = await createTenant(a, 'gr-grpc', { toHost: [SERVICE, GRPC_ROUTE], workloads });
    const { hostNamespace: hostNs } = t;
    const vns = t.vns.a;
    const grpcSpec = (backend: Spec, hostname: string): Spec => ({
      parentRefs: [PARENT],
      hostnames: [hostname],
      rules: [{ matches: [{ method: { service: 'shop.Cart' } }], backendRefs: [backend] }],
    });
    await t.tenantApi.create(
      tenantObject(t, SERVICE, vns, 'cart', { spec: { ports: [{ port: 9090 }] } }),
    );
    await t.tenantApi.create(
      tenantObject(t, GRPC_ROUTE, vns, 'cart', {
        spec: grpcSpec({ name: 'cart', port: 9090 }, `cart.grpc${SUFFIX}`),
      }),
    );
    const first = await pass(t);
    expect(first.result.errors).toEqual([]);
    const copyName = hostName('cart', vns, t.name);
    const copy = await t.hostApi.get(GRPC_ROUTE, hostNs, copyName);
    expect(copy?.spec).toMatchObject({
      parentRefs: [PARENT],
      rules: [{ backendRefs: [{ name: hostName('cart', vns, t.name), port: 9090 }] }],
    });
    const accepted = {
      parentRef: { group: GROUP, kind: 'Gateway', ...PARENT },
      controllerName: 'example.com/gateway-controller',
      conditions: [condition('Accepted'), condition('ResolvedRefs')],
    };
    await t.hostApi.patchStatus(GRPC_ROUTE, hostNs, copyName, { parents: [accepted] });
    expect((await pass(t, { full: true })).result.errors).toEqual([]);
    const shown = (await t.tenantApi.get(GRPC_ROUTE, vns, 'cart')) as KubeObject;
    expect(shown.status).toEqual({ parents: [accepted] });

    const other = t.vns.b;
    await t.tenantApi.create(
      tenantObject(t, GRPC_ROUTE, vns, 'reach', {
        spec: grpcSpec({ name: 'cart', namespace: other, port: 9090 }, `reach.grpc${SUFFIX}`),
      }),
    );
    const before = await snapshot(hostNs);
    const { result } = await pass(t);
    expect(result.errors).toEqual([]);
    expect(routeDecisions(result)).toEqual([
      expect.objectContaining({
        action: 'Skip',
        kind: 'GRPCRoute',
        reason: expect.stringContaining(
          `spec.rules[0].backendRefs[0].namespace "${other}" is another namespace`,
        ),
      }),
    ]);
    expect(diffSnapshots(before, await snapshot(hostNs))).toEqual({
      created: [],
      changed: [],
      deleted: [],
    });
  });

  it('a TLSRoute to its Service lands on the copy and shows Accepted; a Gateway not allowed is a Skip; nothing else changes', async () => {
    const a = apis();
    const workloads = { gateways: { parents: [PARENT], hostSuffixes: [SUFFIX] } };
    const t = await createTenant(a, 'gr-tls', { toHost: [SERVICE, TLS_ROUTE], workloads });
    const { hostNamespace: hostNs } = t;
    const vns = t.vns.a;
    const tlsSpec = (parent: Spec, hostname: string): Spec => ({
      parentRefs: [parent],
      hostnames: [hostname],
      rules: [{ backendRefs: [{ name: 'db', port: 5432 }] }],
    });
    await t.tenantApi.create(
      tenantObject(t, SERVICE, vns, 'db', { spec: { ports: [{ port: 5432 }] } }),
    );
    await t.tenantApi.create(
      tenantObject(t, TLS_ROUTE, vns, 'db', { spec: tlsSpec(PARENT, `db.tls${SUFFIX}`) }),
    );
    expect((await pass(t)).result.errors).toEqual([]);
    const copyName = hostName('db', vns, t.name);
    const copy = await t.hostApi.get(TLS_ROUTE, hostNs, copyName);
    expect(copy?.spec).toMatchObject({
      parentRefs: [PARENT],
      rules: [{ backendRefs: [{ name: hostName('db', vns, t.name), port: 5432 }] }],
    });
    const accepted = {
      parentRef: { group: GROUP, kind: 'Gateway', ...PARENT },
      controllerName: 'example.com/gateway-controller',
      conditions: [condition('Accepted'), condition('ResolvedRefs')],
    };
    await t.hostApi.patchStatus(TLS_ROUTE, hostNs, copyName, { parents: [accepted] });
    expect((await pass(t, { full: true })).result.errors).toEqual([]);
    const shown = (await t.tenantApi.get(TLS_ROUTE, vns, 'db')) as KubeObject;
    expect(shown.status).toEqual({ parents: [accepted] });

    const foreign = { name: 'internal', namespace: GATEWAY_NS };
    await t.tenantApi.create(
      tenantObject(t, TLS_ROUTE, vns, 'sneak', { spec: tlsSpec(foreign, `sneak.tls${SUFFIX}`) }),
    );
    const before = await snapshot(hostNs);
    const { result } = await pass(t);
    expect(result.errors).toEqual([]);
    expect(routeDecisions(result)).toEqual([
      expect.objectContaining({
        action: 'Skip',
        kind: 'TLSRoute',
        reason: expect.stringContaining(
          `spec.parentRefs[0] names the Gateway ${GATEWAY_NS}/internal, which is not one the policy allows`,
        ),
      }),
    ]);
    expect(diffSnapshots(before, await snapshot(hostNs))).toEqual({
      created: [],
      changed: [],
      deleted: [],
    });
  });
});
