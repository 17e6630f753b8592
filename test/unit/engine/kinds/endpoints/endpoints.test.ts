/** Core Endpoints never reach the host: each is a Skip that says to sync EndpointSlices. */
import { describe, expect, it } from '@jest/globals';
import { ENDPOINTS_REFUSAL } from '../../../../../lib/engine/kinds/endpoints/endpoints.js';
import { translate } from '../../../../../lib/engine/kinds/registry.js';
import { HOST_NAMESPACE, TENANT, tenantObject } from '../support.js';

describe('Endpoints translator', () => {
  it.each([
    ['of a Service without a selector', { subsets: [{ addresses: [{ ip: '10.0.0.1' }] }] }],
    ['made by the tenant’s endpoints controller', { subsets: [] }],
  ])('Endpoints %s are refused, saying what to sync instead', (_name, body) => {
    const result = translate(tenantObject('v1', 'Endpoints', body), {
      tenant: TENANT,
      hostNamespace: HOST_NAMESPACE,
    });
    expect(result).toEqual({ refused: ENDPOINTS_REFUSAL });
    expect(ENDPOINTS_REFUSAL).toContain('EndpointSlice');
  });
});
