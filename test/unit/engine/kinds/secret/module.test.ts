/**
 * The Secret room: its sensitivity, a setting of its module the generic error text reads, keeps
 * the server's message out of every error about a Secret. (Its fixed fields, a type and an
 * immutable one's content: `../config-map/module.test.ts`.)
 */
import { describe, expect, it } from '@jest/globals';
import { errorText } from '../../../../../lib/engine/context/error-text.js';
import { isSensitiveKind } from '../../../../../lib/engine/kinds/registry.js';
import { ClusterError } from '../../../../../lib/ports/index.js';

describe('sensitivity', () => {
  const SECRET = { apiVersion: 'v1', kind: 'Secret' };
  const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };

  it('Secrets (their module) and kinds the policy marks are sensitive', () => {
    expect(isSensitiveKind(SECRET)).toBe(true);
    expect(isSensitiveKind(CONFIGMAP)).toBe(false);
    expect(isSensitiveKind({ ...CONFIGMAP, sensitive: true })).toBe(true);
    expect(isSensitiveKind({ apiVersion: 'example.com/v1', kind: 'Secret' })).toBe(false);
  });

  it('an error about a Secret withholds what the server quoted', () => {
    const echoed = new ClusterError('Invalid', 'Secret "x" is invalid: data.password: "hunter2"', {
      status: 422,
      fields: ['data.password'],
    });
    expect(errorText(SECRET, echoed, isSensitiveKind)).not.toContain('hunter2');
    expect(errorText(CONFIGMAP, echoed, isSensitiveKind)).toContain('hunter2');
  });
});
