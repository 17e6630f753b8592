import { describe, expect, it } from '@jest/globals';
import {
  DELETE_SAMPLE,
  demoHostName,
  EDIT_SAMPLE,
  LONG_SAMPLE_NAME,
  SYSTEM_SAMPLE,
  sampleObjects,
  shellQuote,
} from '../../../lib/cli/demo.js';

describe('the npm start samples', () => {
  const samples = sampleObjects();
  const keys = samples.map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`);

  it('span several virtual namespaces and include a Secret', () => {
    expect(new Set(samples.map((o) => o.metadata.namespace))).toEqual(
      new Set(['default', 'shop', 'billing', 'kube-system']),
    );
    expect(samples.filter((o) => o.kind === 'Secret')).toHaveLength(1);
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
