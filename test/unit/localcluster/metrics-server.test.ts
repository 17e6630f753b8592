/** The local plane's resource metrics pieces (docs/metrics.md): flags, kwok's usage config, the registration objects. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { parseAllDocuments } from 'yaml';
import { apiServerArgs } from '../../../lib/localcluster/daemons.js';
import {
  hostAggregationArgs,
  KWOK_METRICS,
  kwokResourceMetricsPath,
  metricsApiObjects,
  metricsServerArgs,
  RESOURCE_METRICS_PATH_ANNOTATION,
} from '../../../lib/localcluster/metrics-server.js';
import type { Pki } from '../../../lib/localcluster/pki.js';
import { kwokArgs } from '../../../lib/localcluster/workload-daemons.js';
import { hostWorkloadObjects } from '../../../lib/localcluster/workload-objects.js';

const pki = {
  caCert: '/s/pki/ca.crt',
  servingCert: '/s/pki/serving.crt',
  servingKey: '/s/pki/serving.key',
  serviceAccounts: {
    tenant: { key: '/s/pki/sa-tenant.key', pub: '/s/pki/sa-tenant.pub' },
    host: { key: '/s/pki/sa-host.key', pub: '/s/pki/sa-host.pub' },
  },
} as Pki;

describe('the local resource metrics', () => {
  it('kwok loads its own usage-from-annotation and kubelet /metrics/resource config', () => {
    expect(kwokArgs('/k')).toContain(`--config=${KWOK_METRICS}`);
    const docs = parseAllDocuments(readFileSync(KWOK_METRICS, 'utf8')).map((d) => d.toJSON());
    expect(docs.map((d) => d.kind)).toEqual(['ClusterResourceUsage', 'Metric']);
    expect(JSON.stringify(docs[0])).toContain('kwok.x-k8s.io/usage-cpu');
    expect(docs[1].spec.path).toBe('/metrics/nodes/{nodeName}/metrics/resource');
  });

  it('every host node says where metrics-server finds its resource metrics on kwok', () => {
    const nodes = hostWorkloadObjects().filter((o) => o.object.kind === 'Node');
    for (const { object } of nodes) {
      const { name, annotations } = object.metadata as {
        name: string;
        annotations: Record<string, string>;
      };
      expect(annotations[RESOURCE_METRICS_PATH_ANNOTATION]).toBe(kwokResourceMetricsPath(name));
    }
  });

  it('only the host apiserver has the aggregation layer’s request headers; the tenant proxies with its kubelet client certificate', () => {
    const base = { stateDir: '/s', pki, index: 0, port: 1, etcdPort: 2 };
    const host = apiServerArgs({ ...base, name: 'host' });
    const tenant = apiServerArgs({ ...base, name: 'tenant' });
    expect(host).toEqual(expect.arrayContaining(hostAggregationArgs('/s/pki', pki)));
    expect(host).toContain('--requestheader-allowed-names=tenantplane-front-proxy');
    expect(tenant.some((a) => a.startsWith('--requestheader-'))).toBe(false);
    expect(tenant).toContain('--proxy-client-cert-file=/s/pki/kubelet/tenant-kubelet-client.crt');
  });

  it('metrics-server checks kwok against the local CA, at a resolution it accepts', () => {
    const args = metricsServerArgs('/k', 4443, pki);
    expect(args).toContain('--kubelet-certificate-authority=/s/pki/ca.crt');
    expect(args).toContain('--metric-resolution=10s');
    expect(args).toContain('--kubelet-request-timeout=5s');
    expect(args.some((a) => a.includes('insecure'))).toBe(false);
  });

  it('registers one APIService per version through an ExternalName Service', () => {
    const objects = metricsApiObjects({
      namespace: 'kube-system',
      name: 'tenantplane-metrics',
      address: '127.0.0.1',
      port: 10250,
      versions: ['v1', 'v1beta1'],
      caBundle: 'PEM',
    });
    expect(objects.map((o) => o.path)).toEqual([
      '/api/v1/namespaces/kube-system/services',
      '/apis/apiregistration.k8s.io/v1/apiservices',
      '/apis/apiregistration.k8s.io/v1/apiservices',
    ]);
    expect(objects[0]?.object.spec).toEqual({ type: 'ExternalName', externalName: '127.0.0.1' });
    expect(objects[2]?.object).toMatchObject({
      metadata: { name: 'v1beta1.metrics.k8s.io' },
      spec: {
        service: { namespace: 'kube-system', name: 'tenantplane-metrics', port: 10250 },
        caBundle: Buffer.from('PEM').toString('base64'),
      },
    });
  });
});
