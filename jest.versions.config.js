/**
 * `npm run test:versions`: the smoke of an older host (docs/versions.md). Its own config, so
 * `npm test` never runs it: the host's release is built on first use (10 to 15 minutes of CPU).
 * The integration global setup starts the plane with the host of `TENANTPLANE_KUBERNETES_VERSION`
 * (the npm script picks 1.33 unless it is set) and the tenant of the pinned release; beside the
 * smoke of test/versions, the integration files that cover what an older host may change.
 */
import base from './jest.config.js';

const integration = base.projects.find((p) => p.displayName === 'integration');

export default {
  projects: [
    {
      ...integration,
      displayName: 'versions',
      testMatch: [
        '<rootDir>/test/versions/**/*.test.ts',
        // The host's /version, and the basics of its apiserver.
        '<rootDir>/test/integration/foundation/control-plane.test.ts',
        // A CustomResource and a Service round trip.
        '<rootDir>/test/integration/engine/kinds.test.ts',
        // Cluster IPs aligned through the host's ServiceCIDRs (v1 from 1.33).
        '<rootDir>/test/integration/engine/names-cluster-ip.test.ts',
        // Pods: references, an in-place resize (pods/resize, 1.33 on), priority, Pod Security.
        '<rootDir>/test/integration/engine/workloads-pod.test.ts',
        // Status back from Pods running on kwok nodes, claims and Services.
        '<rootDir>/test/integration/engine/workloads-status.test.ts',
        // The kubelet gateway: logs, exec, attach, port-forward.
        '<rootDir>/test/integration/gateway/gateway.test.ts',
        // The tenant DNS.
        '<rootDir>/test/integration/dns/tenant-dns.test.ts',
        // Gateway API routes to host Gateways (the CRDs of their Go module, on any host).
        '<rootDir>/test/integration/engine/gateway-routes.test.ts',
        // kubectl top and the HPA from the host's metrics-server.
        '<rootDir>/test/integration/gateway/metrics.test.ts',
        // Every Pod field on purpose: on an older host, a Pod that sets a field the host does
        // not serve is a Skip naming it (the host's OpenAPI), with nothing written.
        '<rootDir>/test/integration/engine/pod-fields.test.ts',
        // Pod fields the host's types list but its feature gates keep off (image volumes and
        // pod-level resources on 1.33): asked by a dry-run create once, a Skip naming them.
        '<rootDir>/test/integration/engine/pod-fields-gated.test.ts',
      ],
    },
  ],
  testTimeout: base.testTimeout,
};
