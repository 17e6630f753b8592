import { describe, expect, it } from '@jest/globals';
import {
  DELETE_SAMPLE,
  demoHostName,
  demoTenantCluster,
  EDIT_SAMPLE,
  LONG_SAMPLE_NAME,
  SYSTEM_SAMPLE,
  sampleObjects,
  shellQuote,
} from '../../../lib/cli/demo.js';

describe('the npm start samples', () => {
  const samples = sampleObjects();
  const keys = samples.map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`);

  it('span several virtual namespaces and include Secrets', () => {
    expect(new Set(samples.map((o) => o.metadata.namespace))).toEqual(
      new Set(['default', 'shop', 'billing', 'kube-system']),
    );
    expect(samples.filter((o) => o.kind === 'Secret')).toHaveLength(2);
  });

  it('include a Deployment of 3 replicas whose references, Service and Ingress come with it, all synced by the sample policy', () => {
    expect(keys).toEqual(
      expect.arrayContaining([
        'Deployment shop/web',
        'Service shop/web',
        'Ingress shop/web',
        'Secret shop/storefront-credentials',
        'ConfigMap shop/storefront',
      ]),
    );
    const deployment = samples.find((o) => o.kind === 'Deployment');
    expect(deployment?.spec).toMatchObject({ replicas: 3 });
    // What the Pods refer to exists among the samples, before the Deployment.
    const order = (key: string) => keys.indexOf(key);
    expect(order('Secret shop/storefront-credentials')).toBeLessThan(order('Deployment shop/web'));
    const synced = (demoTenantCluster().spec as { toHost: { kind: string }[] }).toHost.map(
      (r) => r.kind,
    );
    expect(synced).toEqual(['ConfigMap', 'Secret', 'Service', 'Ingress', 'Pod']);
  });

  it('include the objects the next steps name', () => {
    expect(keys).toContain(`ConfigMap ${EDIT_SAMPLE.namespace}/${EDIT_SAMPLE.name}`);
    expect(keys).toContain(`ConfigMap ${DELETE_SAMPLE.namespace}/${DELETE_SAMPLE.name}`);
    expect(keys).toContain(`ConfigMap ${SYSTEM_SAMPLE.namespace}/${SYSTEM_SAMPLE.name}`);
  });

  it('include one name that gets hashed on the host', () => {
    const host = demoHostName('shop', LONG_SAMPLE_NAME);
    expect(host).not.toBe(`${LONG_SAMPLE_NAME}-x-shop-x-dev`);
    expect(host).toMatch(/-[0-9a-f]{10}$/);
    expect(host.length).toBeLessThanOrEqual(63);
  });
});

describe('shellQuote', () => {
  it('quotes only what needs it', () => {
    expect(shellQuote('/a/b.kubeconfig')).toBe('/a/b.kubeconfig');
    expect(shellQuote('{"data":{"theme":"light"}}')).toBe(`'{"data":{"theme":"light"}}'`);
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
});
