/** The CRD wait asks again when kubectl reads the CRD before it has any condition. */
import { describe, expect, it } from '@jest/globals';
import { waitEstablished } from '../../../lib/localcluster/crd.js';

describe('waitEstablished', () => {
  it('asks again after the early "accessor error", then succeeds', async () => {
    const calls: string[][] = [];
    const answers = [
      new Error(
        'kubectl wait failed (exit 1):\nerror: .status.conditions accessor error: <nil> is of the type <nil>, expected []interface{}',
      ),
      'condition met',
    ];
    await waitEstablished(async (...args) => {
      calls.push(args);
      const answer = answers.shift();
      if (answer instanceof Error) throw answer;
      return answer ?? '';
    });
    expect(calls).toHaveLength(2);
    expect(calls[0]).toContain('--for=condition=Established');
  });

  it('any other failure is thrown at once', async () => {
    let calls = 0;
    await expect(
      waitEstablished(async () => {
        calls += 1;
        throw new Error(
          'kubectl wait failed (exit 1):\nerror: timed out waiting for the condition',
        );
      }),
    ).rejects.toThrow('timed out waiting for the condition');
    expect(calls).toBe(1);
  });
});
