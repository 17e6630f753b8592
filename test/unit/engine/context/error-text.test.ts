/** No data in error text: what is recorded for an error about an object of a (sensitive) kind. */
import { describe, expect, it } from '@jest/globals';
import { errorText, type Sensitivity } from '../../../../lib/engine/context/error-text.js';
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

/** Secrets are sensitive, as the kinds' registry says (the Secret room's module). */
const sensitive: Sensitivity = (kind) => kind.kind === 'Secret';

describe('errorText', () => {
  it('reduces a server answer about a sensitive object to reason, code and fields', () => {
    expect(errorText(SECRET, echoed, sensitive)).toBe(
      'the server refused it: Invalid (HTTP 422); fields: data.password; its message is withheld because Secret objects are sensitive',
    );
    expect(errorText(SECRET, echoed, sensitive)).not.toContain('hunter2');
  });

  it('keeps the message of other kinds, and of failures that got no answer', () => {
    expect(errorText(CONFIGMAP, echoed, sensitive)).toContain('hunter2');
    const transport = new ClusterError('Transport', 'cannot reach https://h: ECONNRESET');
    expect(errorText(SECRET, transport, sensitive)).toBe('cannot reach https://h: ECONNRESET');
    expect(
      errorText(SECRET, new Error('a tenant object without a name was ignored'), sensitive),
    ).toBe('a tenant object without a name was ignored');
  });
});
