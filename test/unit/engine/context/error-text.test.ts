/** No data in error text: what is recorded for an error about an object of a (sensitive) kind. */
import { describe, expect, it } from '@jest/globals';
import { errorText, isSensitiveKind } from '../../../../lib/engine/context/error-text.js';
import { ClusterError } from '../../../../lib/ports/index.js';

const SECRET = { apiVersion: 'v1', kind: 'Secret' };
const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const echoed = new ClusterError(
  'Invalid',
  'Secret "x" is invalid: data.password: Invalid value: "hunter2"',
  {
    status: 422,
    fields: ['data.password', 'data.password'],
  },
);

describe('errorText', () => {
  it('Secrets and kinds marked sensitive are sensitive', () => {
    expect(isSensitiveKind(SECRET)).toBe(true);
    expect(isSensitiveKind(CONFIGMAP)).toBe(false);
    expect(isSensitiveKind({ ...CONFIGMAP, sensitive: true })).toBe(true);
    expect(isSensitiveKind({ apiVersion: 'example.com/v1', kind: 'Secret' })).toBe(false);
  });

  it('reduces a server answer about a sensitive object to reason, code and fields', () => {
    expect(errorText(SECRET, echoed)).toBe(
      'the server refused it: Invalid (HTTP 422); fields: data.password; its message is withheld because Secret objects are sensitive',
    );
    expect(errorText(SECRET, echoed)).not.toContain('hunter2');
  });

  it('keeps the message of other kinds, and of failures that got no answer', () => {
    expect(errorText(CONFIGMAP, echoed)).toContain('hunter2');
    const transport = new ClusterError('Transport', 'cannot reach https://h: ECONNRESET');
    expect(errorText(SECRET, transport)).toBe('cannot reach https://h: ECONNRESET');
    expect(errorText(SECRET, new Error('a tenant object without a name was ignored'))).toBe(
      'a tenant object without a name was ignored',
    );
  });
});
