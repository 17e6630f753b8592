import { describe, expect, it } from '@jest/globals';
import { ApiException } from '@kubernetes/client-node';
import {
  clusterErrorFromResponse,
  clusterErrorFromTransport,
  parseStatus,
  retryAfterSeconds,
  toClusterError,
} from '../../../lib/adapters/kube/errors.js';
import { ClusterError, ClusterErrorReason } from '../../../lib/ports/index.js';

const request = { server: 'https://10.0.0.1:6443', method: 'POST', path: '/api/v1/x' };

function status(code: number, reason: string, message: string, details: object = {}): string {
  return JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    details,
    code,
  });
}

function apiException(code: number, body: string, headers: Record<string, string> = {}) {
  return new ApiException<string>(code, 'Unsuccessful HTTP Request', body, headers);
}

describe('clusterErrorFromResponse', () => {
  it.each([
    [404, 'NotFound', ClusterErrorReason.NotFound],
    [409, 'AlreadyExists', ClusterErrorReason.AlreadyExists],
    [409, 'Conflict', ClusterErrorReason.Conflict],
    [403, 'Forbidden', ClusterErrorReason.Forbidden],
    [401, 'Unauthorized', ClusterErrorReason.Unauthorized],
    [422, 'Invalid', ClusterErrorReason.Invalid],
    [400, 'BadRequest', ClusterErrorReason.Invalid],
    [429, 'TooManyRequests', ClusterErrorReason.TooManyRequests],
    [500, 'InternalError', ClusterErrorReason.Unknown],
    [410, 'Expired', ClusterErrorReason.Expired],
  ])('HTTP %i %s -> %s, with the Status message', (code, reason, expected) => {
    const error = toClusterError(
      apiException(code, status(code, reason, `msg ${reason}`)),
      request,
    );
    expect(error).toBeInstanceOf(ClusterError);
    expect(error.reason).toBe(expected);
    expect(error.status).toBe(code);
    expect(error.message).toBe(`msg ${reason}`);
  });

  it('keeps the server message that names the invalid field', () => {
    const message =
      'ConfigMap "Bad" is invalid: metadata.name: Invalid value: "Bad": a lowercase RFC 1123 subdomain must consist of ...';
    const error = clusterErrorFromResponse(
      { code: 422, body: status(422, 'Invalid', message) },
      request,
    );
    expect(error.reason).toBe(ClusterErrorReason.Invalid);
    expect(error.message).toBe(message);
  });

  it('tells a uid precondition failure (Conflict) from an existing object (AlreadyExists)', () => {
    const pre = clusterErrorFromResponse(
      {
        code: 409,
        body: status(
          409,
          'Conflict',
          'Operation cannot be fulfilled on configmaps "a": Precondition failed: UID in precondition: x, UID in object meta: y',
        ),
      },
      request,
    );
    expect(pre.reason).toBe(ClusterErrorReason.Conflict);
    const exists = clusterErrorFromResponse(
      { code: 409, body: status(409, 'AlreadyExists', 'configmaps "a" already exists') },
      request,
    );
    expect(exists.reason).toBe(ClusterErrorReason.AlreadyExists);
  });

  it('falls back on the HTTP status when the body is not a Status', () => {
    const error = clusterErrorFromResponse(
      { code: 403, body: '<html>proxy says no</html>' },
      request,
    );
    expect(error.reason).toBe(ClusterErrorReason.Forbidden);
    expect(error.message).toBe(
      'POST /api/v1/x to https://10.0.0.1:6443 failed with HTTP 403: <html>proxy says no</html>',
    );
    const long = clusterErrorFromResponse({ code: 502, body: 'x'.repeat(5000) }, request);
    expect(long.message.length).toBeLessThan(300);
    const empty = clusterErrorFromResponse({ code: 503, body: '' }, request);
    expect(empty.message).toBe('POST /api/v1/x to https://10.0.0.1:6443 failed with HTTP 503');
  });

  it('accepts an already parsed body', () => {
    const error = clusterErrorFromResponse(
      { code: 404, body: { kind: 'Status', reason: 'NotFound', message: 'gone' } },
      request,
    );
    expect(error.reason).toBe(ClusterErrorReason.NotFound);
    expect(error.message).toBe('gone');
  });

  it('reads Retry-After (seconds, HTTP date, or Status details) on TooManyRequests', () => {
    const fromHeader = toClusterError(
      apiException(429, status(429, 'TooManyRequests', 'slow down'), { 'Retry-After': '7' }),
      request,
    );
    expect(fromHeader.reason).toBe(ClusterErrorReason.TooManyRequests);
    expect(fromHeader.retryAfterSeconds).toBe(7);
    const fromDetails = toClusterError(
      apiException(429, status(429, 'TooManyRequests', 'slow down', { retryAfterSeconds: 3 })),
      request,
    );
    expect(fromDetails.retryAfterSeconds).toBe(3);
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(
      retryAfterSeconds({ 'retry-after': 'Tue, 01 Jan 2030 00:00:10 GMT' }, undefined, now),
    ).toBe(10);
    expect(retryAfterSeconds({}, undefined)).toBeUndefined();
  });
});

describe('clusterErrorFromTransport', () => {
  function fetchFailed(cause: unknown): Error {
    return new TypeError('fetch failed', { cause });
  }

  it('names the server and the socket error code', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), {
      code: 'ECONNREFUSED',
    });
    const error = toClusterError(fetchFailed(refused), request);
    expect(error.reason).toBe(ClusterErrorReason.Transport);
    expect(error.message).toBe('cannot reach https://10.0.0.1:6443: ECONNREFUSED');
    expect(error.cause).toBeDefined();
  });

  it('finds the code inside an AggregateError (several addresses tried)', () => {
    const agg = new AggregateError([
      Object.assign(new Error('connect ECONNREFUSED ::1:6443'), { code: 'ECONNREFUSED' }),
    ]);
    expect(clusterErrorFromTransport(fetchFailed(agg), request).message).toBe(
      'cannot reach https://10.0.0.1:6443: ECONNREFUSED',
    );
  });

  it('explains TLS failures and DNS failures', () => {
    const tls = Object.assign(new Error('self-signed certificate'), {
      code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
    });
    expect(clusterErrorFromTransport(fetchFailed(tls), request).message).toBe(
      'cannot reach https://10.0.0.1:6443: DEPTH_ZERO_SELF_SIGNED_CERT (self-signed certificate)',
    );
    const dns = Object.assign(new Error('getaddrinfo ENOTFOUND api.example'), {
      code: 'ENOTFOUND',
    });
    expect(clusterErrorFromTransport(fetchFailed(dns), request).message).toBe(
      'cannot reach https://10.0.0.1:6443: ENOTFOUND',
    );
  });

  it('reports timeouts with the bound', () => {
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    expect(clusterErrorFromTransport(timeout, request, 30000).message).toBe(
      'cannot reach https://10.0.0.1:6443: timed out after 30000 ms (ETIMEDOUT)',
    );
  });

  it('uses the innermost message when there is no code', () => {
    expect(clusterErrorFromTransport(fetchFailed(new Error('bad port')), request).message).toBe(
      'cannot reach https://10.0.0.1:6443: bad port',
    );
  });

  it('passes ClusterErrors through unchanged', () => {
    const original = new ClusterError(ClusterErrorReason.Conflict, 'x');
    expect(toClusterError(original, request)).toBe(original);
  });
});

describe('parseStatus', () => {
  it('reads Status JSON and ignores anything else', () => {
    expect(parseStatus(status(404, 'NotFound', 'nope'))).toEqual({
      message: 'nope',
      reason: 'NotFound',
      code: 404,
      details: {},
    });
    expect(parseStatus('not json')).toBeUndefined();
    expect(parseStatus('[1,2]')).toBeUndefined();
    expect(parseStatus({ kind: 'ConfigMap' })).toBeUndefined();
    expect(parseStatus(Buffer.from(status(403, 'Forbidden', 'no')))?.reason).toBe('Forbidden');
  });
});
