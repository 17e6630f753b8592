/** The Service translator: selectors scoped, headless kept, allocations left to the host. */
import { describe, expect, it } from '@jest/globals';
import { translate } from '../../../../../lib/engine/kinds/registry.js';
import { SERVICE_HOST_OWNED } from '../../../../../lib/engine/kinds/service/module.js';
import { Labels } from '../../../../../lib/engine/names/metadata.js';
import { bodyFor, driftOf } from '../../../../../lib/engine/object/drift.js';
import { parseWorkloadPolicy } from '../../../../../lib/engine/policy/workloads.js';
import type { KubeObject } from '../../../../../lib/ports/index.js';
import { HOST_NAMESPACE, TENANT, tenantObject } from '../support.js';

const scope = { [Labels.Tenant]: 'dev', [Labels.VirtualNamespace]: 'shop' };
const service = (spec: Record<string, unknown>) => tenantObject('v1', 'Service', { spec });
const port = { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' };
/** A policy that allows the NodePort and ExternalName Services of these cases (`service-limits`). */
const workloads = parseWorkloadPolicy(
  {
    services: {
      types: ['ClusterIP', 'NodePort', 'ExternalName'],
      externalNames: ['db.example.com'],
    },
  },
  [],
);

function hostOf(source: KubeObject): KubeObject {
  const result = translate(source, { tenant: TENANT, hostNamespace: HOST_NAMESPACE, workloads });
  if (!('host' in result)) throw new Error(`refused: ${result.refused}`);
  return result.host;
}

describe('Service translator', () => {
  const cases = [
    {
      name: 'a selector is scoped to its tenant and virtual namespace',
      spec: { selector: { app: 'web' }, ports: [port] },
      expected: { selector: { app: 'web', ...scope }, ports: [port] },
    },
    {
      name: 'a reserved key in the selector is carried, as on the Pods',
      spec: { selector: { 'app.kubernetes.io/managed-by': 'Helm' }, ports: [port] },
      expected: {
        selector: { 'app.kubernetes.io.carried.tenantplane.io/managed-by': 'Helm', ...scope },
        ports: [port],
      },
    },
    {
      name: 'a headless Service stays headless; its clusterIPs are the host’s',
      spec: { clusterIP: 'None', clusterIPs: ['None'], selector: { app: 'db' }, ports: [port] },
      expected: { clusterIP: 'None', selector: { app: 'db', ...scope }, ports: [port] },
    },
    {
      name: 'allocations are host-owned: cluster IPs, IP families and their policy, node ports',
      spec: {
        type: 'NodePort',
        clusterIP: '10.0.0.7',
        clusterIPs: ['10.0.0.7'],
        ipFamilies: ['IPv4'],
        ipFamilyPolicy: 'SingleStack',
        selector: { app: 'web' },
        ports: [{ ...port, nodePort: 30080 }],
      },
      expected: { type: 'NodePort', selector: { app: 'web', ...scope }, ports: [port] },
    },
    {
      name: 'a Service without a selector stays without one',
      spec: { ports: [port] },
      expected: { ports: [port] },
    },
    {
      name: 'an empty selector is no selector, not "every Pod of the namespace"',
      spec: { selector: {}, ports: [port] },
      expected: { selector: {}, ports: [port] },
    },
    {
      name: 'an ExternalName Service the policy allows is copied',
      spec: { type: 'ExternalName', externalName: 'db.example.com' },
      expected: { type: 'ExternalName', externalName: 'db.example.com' },
    },
  ];
  it.each(cases)('$name', ({ spec, expected }) => {
    expect(hostOf(service(spec)).spec).toEqual(expected);
  });

  it('an update keeps what the host allocated and writes nothing when only that differs', () => {
    const desired = hostOf(service({ type: 'NodePort', selector: { app: 'web' }, ports: [port] }));
    const allocated = {
      clusterIP: '10.96.0.12',
      clusterIPs: ['10.96.0.12'],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
    };
    const observed = {
      ...desired,
      metadata: { ...desired.metadata, uid: 'h', resourceVersion: '5' },
      spec: {
        ...(desired.spec as object),
        ...allocated,
        ports: [{ ...port, nodePort: 31000 }],
        sessionAffinity: 'None',
      },
    };
    expect(driftOf(desired, observed).changed).toEqual([]);
    const edited = hostOf(service({ type: 'NodePort', selector: { app: 'api' }, ports: [port] }));
    const drift = driftOf(edited, observed);
    expect(drift.changed).toEqual(['annotations', 'spec']); // the spec hash, and the spec
    expect(bodyFor(edited, observed, drift, SERVICE_HOST_OWNED).spec).toEqual({
      type: 'NodePort',
      selector: { app: 'api', ...scope },
      ports: [{ ...port, nodePort: 31000 }],
      ...allocated,
    });
  });
});
