/**
 * The OpenAPI v3 reads of the kube adapter (`openapi.ts`): the schemas asked for, the document
 * kept per its hashed URL (fetched again only when the hash changes), its bytes bounded, the
 * server's full version from `/version`.
 */
import { describe, expect, it } from '@jest/globals';
import type { RequestSpec } from '../../../../lib/adapters/kube/http.js';
import {
  documentUrl,
  OPENAPI_MAX_BYTES,
  OpenApiCache,
  schemaProperties,
} from '../../../../lib/adapters/kube/openapi.js';

const DOC = {
  info: { title: 'Kubernetes', version: '1.33' },
  components: {
    schemas: {
      'io.k8s.api.core.v1.PodSpec': { properties: { containers: {}, volumes: {} } },
      'io.k8s.api.core.v1.Volume': { type: 'object' },
    },
  },
};

describe('schemaProperties', () => {
  it('keeps the properties of the schemas asked for, and the document’s version', () => {
    expect(
      schemaProperties(DOC, ['io.k8s.api.core.v1.PodSpec', 'io.k8s.api.core.v1.Volume', 'x']),
    ).toEqual({
      version: '1.33',
      properties: { 'io.k8s.api.core.v1.PodSpec': ['containers', 'volumes'] },
    });
    expect(schemaProperties('not json', ['a'])).toEqual({ properties: {} });
  });
});

describe('documentUrl', () => {
  it.each([
    [
      { paths: { 'api/v1': { serverRelativeURL: '/openapi/v3/api/v1?hash=AB' } } },
      '/openapi/v3/api/v1?hash=AB',
    ],
    [{ paths: { 'apis/apps/v1': { serverRelativeURL: '/x' } } }, undefined],
    [{ paths: { 'api/v1': { serverRelativeURL: 'https://elsewhere/x' } } }, undefined],
    [undefined, undefined],
  ])('%j -> %s', (index, expected) => {
    expect(documentUrl(index, 'api/v1')).toBe(expected);
  });
});

describe('OpenApiCache', () => {
  it('reads the document once per hash, bounded, and the version from /version', async () => {
    let hash = 'AB';
    const sent: RequestSpec[] = [];
    const http = {
      async request(spec: RequestSpec): Promise<unknown> {
        sent.push(spec);
        if (spec.path === '/openapi/v3') {
          return { paths: { 'api/v1': { serverRelativeURL: `/openapi/v3/api/v1?hash=${hash}` } } };
        }
        if (spec.path === '/version') return { gitVersion: 'v1.33.13' };
        return DOC;
      },
    };
    const cache = new OpenApiCache('https://host', http);
    const names = ['io.k8s.api.core.v1.PodSpec'];
    const first = await cache.schemas('api/v1', names);
    expect(first).toEqual({
      version: 'v1.33.13',
      properties: { 'io.k8s.api.core.v1.PodSpec': ['containers', 'volumes'] },
    });
    const documents = () => sent.filter((s) => s.path === '/openapi/v3/api/v1');
    expect(documents()).toEqual([
      expect.objectContaining({ query: { hash: 'AB' }, maxBytes: OPENAPI_MAX_BYTES }),
    ]);
    expect(await cache.schemas('api/v1', names)).toEqual(first);
    expect(documents()).toHaveLength(1); // same hash: only the index was read again
    hash = 'CD'; // an upgrade
    await cache.schemas('api/v1', names);
    expect(documents()).toHaveLength(2);
    await expect(cache.schemas('apis/apps/v1', names)).rejects.toThrow(/no OpenAPI v3/);
  });
});
