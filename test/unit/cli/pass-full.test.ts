/**
 * `tenantplane sync --full` and `plan --full`: the flag, parsed by the real command tree, reaches
 * the engine as `full: true`. The clusters and the pass are stubbed (no cluster is opened); the
 * pass itself, with `full`, is tested in test/unit/engine.
 */
import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { Clusters } from '../../../lib/cli/clusters.js';
import type { PassOptions } from '../../../lib/engine/index.js';
import type { ClusterApi, PassResult } from '../../../lib/ports/index.js';
import { captureIo } from '../../fixtures/capture-io.js';
import { passResult } from '../adapters/support.js';

const passes: PassOptions[] = [];
const runPass = jest.fn(async (options: PassOptions): Promise<PassResult> => {
  passes.push(options);
  return passResult([], { tenant: options.tenant, dryRun: options.dryRun === true });
});

// The engine's modules are loaded only after the mocks are registered (static imports would load
// the real pass first): the test support and the command come in by dynamic import.
let stubClusters: Clusters | undefined;
const actualClusters = await import('../../../lib/cli/clusters.js');
jest.unstable_mockModule('../../../lib/cli/clusters.js', () => ({
  ...actualClusters,
  withClusters: <T>(_flags: unknown, _io: unknown, use: (c: Clusters) => Promise<T>) =>
    use(stubClusters!),
}));
const actualPass = await import('../../../lib/engine/pass/pass.js');
jest.unstable_mockModule('../../../lib/engine/pass/pass.js', () => ({
  ...actualPass,
  runPass,
}));
const { clusters } = await import('../engine/support.js');
const { run } = await import('../../../lib/cli/program.js');
const { tenantApi, hostApi } = clusters([], []);
stubClusters = {
  tenant: async () => tenantApi,
  host: async () => hostApi,
  close: async () => undefined,
} as unknown as Clusters;

beforeEach(() => {
  passes.length = 0;
  runPass.mockClear();
});

describe('tenantplane sync/plan --full', () => {
  it.each([
    ['sync', false],
    ['plan', true],
  ] as const)('%s --full runs the pass with full: true', async (command, dryRun) => {
    const io = captureIo();
    expect(await run([command, 'dev', '--full'], io)).toBe(0);
    expect(passes).toHaveLength(1);
    expect(passes[0]).toMatchObject({ tenant: 'dev', path: 'full', dryRun });
    expect(passes[0]!.tenantApi).toBe(tenantApi as unknown as ClusterApi);
  });

  it.each(['sync', 'plan'])(
    '%s without --full resumes where it can (full: false)',
    async (command) => {
      expect(await run([command, 'dev', '-o', 'json'], captureIo())).toBe(0);
      expect(passes).toHaveLength(1);
      expect(passes[0]!.path).toBe('auto');
    },
  );

  it('takes --full with the other pass flags, in any order', async () => {
    const io = captureIo();
    expect(await run(['sync', '--full', 'dev', '--max-writes', '5', '-o', 'json'], io)).toBe(0);
    expect(passes[0]).toMatchObject({ path: 'full', budget: { maxWrites: 5 } });
  });

  it('refuses a value after --full (it is a switch)', async () => {
    const io = captureIo();
    expect(await run(['sync', 'dev', '--full=yes'], io)).toBe(2);
    expect(io.stderr()).toMatch(/--full/);
    expect(passes).toHaveLength(0);
  });
});
