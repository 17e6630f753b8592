import { describe, expect, it } from '@jest/globals';
import { load } from 'js-yaml';
import {
  apiserverAuditFlags,
  auditResourcesOf,
  guessResource,
  renderAuditPolicy,
  renderWebhookKubeconfig,
  tenantWakeUrl,
} from '../../../lib/wake/index.js';

describe('guessResource', () => {
  it.each([
    ['ConfigMap', 'configmaps'],
    ['Secret', 'secrets'],
    ['Ingress', 'ingresses'],
    ['NetworkPolicy', 'networkpolicies'],
    ['PersistentVolumeClaim', 'persistentvolumeclaims'],
    ['EndpointSlice', 'endpointslices'],
    ['PodDisruptionBudget', 'poddisruptionbudgets'],
  ])('%s -> %s', (kind, resource) => {
    expect(guessResource(kind)).toBe(resource);
  });
});

describe('renderAuditPolicy', () => {
  const resources = auditResourcesOf([
    { apiVersion: 'v1', kind: 'ConfigMap' },
    { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' },
    { apiVersion: 'v1', kind: 'Pod' },
    { apiVersion: 'v1', kind: 'ConfigMap' },
  ]);

  it('groups the synced resources by API group, once each', () => {
    expect(resources).toEqual([
      { group: '', resources: ['configmaps', 'pods'] },
      { group: 'networking.k8s.io', resources: ['ingresses'] },
    ]);
  });

  it('is an audit.k8s.io/v1 Policy: exclusions first, then the writes at Metadata, then None', () => {
    expect(load(renderAuditPolicy(resources))).toEqual({
      apiVersion: 'audit.k8s.io/v1',
      kind: 'Policy',
      omitStages: ['RequestReceived'],
      rules: [
        { level: 'None', users: ['tenantplane-sync'] },
        { level: 'None', namespaces: ['kube-system', 'kube-public', 'kube-node-lease'] },
        {
          level: 'Metadata',
          verbs: ['create', 'update', 'patch', 'delete', 'deletecollection'],
          resources: [
            { group: '', resources: ['configmaps', 'pods'] },
            { group: 'networking.k8s.io', resources: ['ingresses'] },
          ],
        },
        { level: 'None' },
      ],
    });
  });

  it('without synced kinds nothing is sent', () => {
    const policy = load(renderAuditPolicy([], { ignoreUsers: [] })) as { rules: unknown[] };
    expect(policy.rules).toEqual([
      { level: 'None', namespaces: ['kube-system', 'kube-public', 'kube-node-lease'] },
      { level: 'None' },
    ]);
  });
});

describe('renderWebhookKubeconfig', () => {
  it("points at the tenant's wake path with the tenant's token", () => {
    const text = renderWebhookKubeconfig({
      tenant: 'dev',
      wakeUrl: 'https://abc.lambda-url.eu-west-1.on.aws/',
      token: 'tok"en: #x',
      certificateAuthorityPem: 'PEM',
    });
    expect(load(text)).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'tenantplane-wake-dev',
          cluster: {
            server: 'https://abc.lambda-url.eu-west-1.on.aws/tenants/dev',
            'certificate-authority-data': Buffer.from('PEM').toString('base64'),
          },
        },
      ],
      users: [{ name: 'tenantplane-wake-dev', user: { token: 'tok"en: #x' } }],
      contexts: [
        {
          name: 'tenantplane-wake-dev',
          context: { cluster: 'tenantplane-wake-dev', user: 'tenantplane-wake-dev' },
        },
      ],
      'current-context': 'tenantplane-wake-dev',
    });
  });

  it('joins URL and path with one slash', () => {
    expect(tenantWakeUrl('http://127.0.0.1:8080', 'dev')).toBe('http://127.0.0.1:8080/tenants/dev');
    expect(tenantWakeUrl('http://127.0.0.1:8080//', 'dev')).toBe(
      'http://127.0.0.1:8080/tenants/dev',
    );
  });
});

describe('apiserverAuditFlags', () => {
  it('batch mode with a short wait, on the two files', () => {
    expect(apiserverAuditFlags('/p.yaml', '/k.yaml')).toEqual([
      '--audit-policy-file=/p.yaml',
      '--audit-webhook-config-file=/k.yaml',
      '--audit-webhook-mode=batch',
      '--audit-webhook-batch-max-wait=250ms',
      '--audit-webhook-initial-backoff=1s',
    ]);
  });
});
