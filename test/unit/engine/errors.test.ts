/** Pass-level errors: typed, named, and each carrying the underlying cause. */
import { describe, expect, it } from '@jest/globals';
import { ClusterUnreachableError, PassError } from '../../../lib/engine/errors.js';
import { InvalidPolicyError, TenantClusterNotFoundError } from '../../../lib/engine/index.js';
import { ClusterError } from '../../../lib/ports/index.js';

const cause = new ClusterError('Transport', 'connect ECONNREFUSED 10.0.0.1:6443');

describe('pass errors', () => {
  const cases: Array<{
    name: string;
    error: PassError;
    type: new (...args: never[]) => PassError;
    expectedName: string;
    expectedMessage: string;
    expectedFields: Record<string, unknown>;
  }> = [
    {
      name: 'PassError',
      error: new PassError('could not read it', { cause }),
      type: PassError,
      expectedName: 'PassError',
      expectedMessage: 'could not read it',
      expectedFields: {},
    },
    {
      name: 'TenantClusterNotFoundError',
      error: new TenantClusterNotFoundError('dev', { cause }),
      type: TenantClusterNotFoundError,
      expectedName: 'TenantClusterNotFoundError',
      expectedMessage: 'TenantCluster "dev" does not exist on the host cluster',
      expectedFields: { tenant: 'dev' },
    },
    {
      name: 'InvalidPolicyError',
      error: new InvalidPolicyError('dev', ['first problem', 'second problem'], { cause }),
      type: InvalidPolicyError,
      expectedName: 'InvalidPolicyError',
      expectedMessage:
        'TenantCluster "dev" has an invalid sync policy: first problem; second problem',
      expectedFields: { tenant: 'dev', problems: ['first problem', 'second problem'] },
    },
    {
      name: 'ClusterUnreachableError (host)',
      error: new ClusterUnreachableError('host', { cause }),
      type: ClusterUnreachableError,
      expectedName: 'ClusterUnreachableError',
      expectedMessage: 'the host cluster is unreachable: connect ECONNREFUSED 10.0.0.1:6443',
      expectedFields: { role: 'host' },
    },
    {
      name: 'ClusterUnreachableError (tenant)',
      error: new ClusterUnreachableError('tenant', { cause }),
      type: ClusterUnreachableError,
      expectedName: 'ClusterUnreachableError',
      expectedMessage: 'the tenant cluster is unreachable: connect ECONNREFUSED 10.0.0.1:6443',
      expectedFields: { role: 'tenant' },
    },
  ];
  it.each(cases)('$name', ({ error, type, expectedName, expectedMessage, expectedFields }) => {
    expect(error).toBeInstanceOf(type);
    expect(error).toBeInstanceOf(PassError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(expectedName);
    expect(error.message).toBe(expectedMessage);
    expect(error.cause).toBe(cause);
    expect(error).toMatchObject(expectedFields);
    expect(String(error)).toBe(`${expectedName}: ${expectedMessage}`);
  });

  it('without a cause there is no cause property at all', () => {
    expect('cause' in new PassError('x')).toBe(false);
    expect('cause' in new TenantClusterNotFoundError('dev')).toBe(false);
    expect('cause' in new PassError('x', {})).toBe(false);
  });

  it('an unreachable cluster only quotes a cause that is an Error', () => {
    expect(new ClusterUnreachableError('host').message).toBe('the host cluster is unreachable');
    const odd = new ClusterUnreachableError('host', { cause: 'socket hang up' });
    expect(odd.message).toBe('the host cluster is unreachable');
    expect(odd.cause).toBe('socket hang up');
  });

  it('the subclasses are distinct', () => {
    const notFound = new TenantClusterNotFoundError('dev');
    expect(notFound).not.toBeInstanceOf(InvalidPolicyError);
    expect(notFound).not.toBeInstanceOf(ClusterUnreachableError);
    expect(new PassError('x')).not.toBeInstanceOf(TenantClusterNotFoundError);
  });
});
