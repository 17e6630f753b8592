/** Host refusals in the tenant's words: no host namespace, Pod name or user survives. */
import { describe, expect, it } from '@jest/globals';
import { rewriteHostError, tenantMessage } from '../../../lib/gateway/host-errors.js';
import { parseKubeletRequest } from '../../../lib/gateway/routes.js';

const exec = parseKubeletRequest('/exec/apps/web/nginx?command=sh', true)!;
const logs = parseKubeletRequest('/containerLogs/apps/web/nginx', false)!;
const forward = parseKubeletRequest('/portForward/apps/web?port=80', true)!;
const HOST = /tenant-dev|web-x-apps-x-dev|tenantplane-sync|system:serviceaccount/;

describe('tenantMessage', () => {
  it.each([
    [
      403,
      'pods "web-x-apps-x-dev" is forbidden: User "tenantplane-sync-dev" cannot create resource "pods/exec" in API group "" in the namespace "tenant-dev"',
      exec,
      403,
      'forbidden: the host cluster does not let the kubelet gateway exec into container "nginx" of pod apps/web',
    ],
    [
      400,
      'container sidecar is not valid for pod web-x-apps-x-dev',
      exec,
      400,
      'not found: pod apps/web has no container "nginx"',
    ],
    [
      400,
      'container "nginx" in pod "web-x-apps-x-dev" is waiting to start: ImagePullBackOff',
      logs,
      400,
      'container "nginx" of pod apps/web is waiting to start: ImagePullBackOff',
    ],
    [
      400,
      'previous terminated container "nginx" in pod "web-x-apps-x-dev" not found',
      logs,
      400,
      'no previous terminated instance of container "nginx" of pod apps/web',
    ],
    [
      404,
      'pods "web-x-apps-x-dev" not found',
      logs,
      404,
      'not found: container "nginx" of pod apps/web',
    ],
    [
      401,
      'Unauthorized',
      forward,
      502,
      'the kubelet gateway could not forward a port of pod apps/web',
    ],
    [
      500,
      'error dialing backend: dial tcp 10.0.0.7:10250: connect: connection refused (tenant-dev)',
      exec,
      500,
      'the host cluster could not exec into container "nginx" of pod apps/web (500)',
    ],
  ])('%i %s', (status, hostText, request, wantStatus, message) => {
    expect(tenantMessage(status, hostText, request)).toEqual({ status: wantStatus, message });
  });
});

describe('rewriteHostError', () => {
  const body = JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    message: 'pods "web-x-apps-x-dev" is forbidden: User "system:serviceaccount:tenant-dev:sync"',
    reason: 'Forbidden',
    details: { name: 'web-x-apps-x-dev', kind: 'pods' },
    code: 403,
  });

  it('a Status stays a Status, with the tenant’s message and no details', () => {
    const answer = rewriteHostError(403, 'application/json', body, exec);
    expect(answer.contentType).toBe('application/json');
    expect(JSON.parse(answer.body)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'forbidden: the host cluster does not let the kubelet gateway exec into container "nginx" of pod apps/web',
      reason: 'Forbidden',
      code: 403,
    });
    expect(answer.body).not.toMatch(HOST);
  });

  it('as text for logs (a kubelet answers text), and for a body that is no Status', () => {
    for (const answer of [
      rewriteHostError(403, 'application/json', body, logs, true),
      rewriteHostError(403, 'text/plain', 'forbidden in tenant-dev', exec),
    ]) {
      expect(answer.contentType).toBe('text/plain; charset=utf-8');
      expect(answer.body).toMatch(/^forbidden: .* pod apps\/web\n$/);
      expect(answer.body).not.toMatch(HOST);
    }
  });
});
