/** A dry run of the whole pass: the decisions of a real pass, and no write at all. */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../lib/engine/index.js';
import {
  CONFIGMAP,
  clusters,
  cm,
  decisionLines,
  HOST_NS,
  hostCopyOf,
  RecordingSink,
  TENANT,
} from '../support.js';

describe('dry run', () => {
  it('computes the same decisions as a real pass and writes nothing', async () => {
    const tenantState = [
      cm('default', 'new'),
      cm('default', 'changed', { k: 'new' }),
      cm('default', 'taken'),
    ];
    const hostState = [
      hostCopyOf(cm('default', 'changed')),
      hostCopyOf(cm('default', 'orphan')),
      { ...CONFIGMAP, metadata: { namespace: HOST_NS, name: 'taken-x-default-x-dev' }, data: {} },
    ];
    const dry = clusters(tenantState, hostState, { toHost: [CONFIGMAP] });
    const sink = new RecordingSink();
    const dryResult = await runPass({ tenant: TENANT, ...dry, dryRun: true, sinks: [sink] });
    const real = clusters(tenantState, hostState, { toHost: [CONFIGMAP] });
    const realResult = await runPass({ tenant: TENANT, ...real });

    expect(decisionLines(dryResult.decisions)).toEqual(decisionLines(realResult.decisions));
    expect(decisionLines(dryResult.decisions)).toEqual([
      'Create ConfigMap default/new -> new-x-default-x-dev',
      'Delete ConfigMap default/orphan -> orphan-x-default-x-dev',
      'Skip ConfigMap default/taken -> taken-x-default-x-dev',
      'Update ConfigMap default/changed -> changed-x-default-x-dev',
    ]);
    expect(dryResult.dryRun).toBe(true);
    expect(dryResult.decisions.every((d) => d.dryRun)).toBe(true);
    expect(sink.decisions.every((d) => d.dryRun)).toBe(true);
    expect(sink.results).toHaveLength(1);
    expect(dry.hostApi.requestCount().writes).toBe(0);
    expect(dry.hostApi.callsOf('patchStatus')).toEqual([]);
    expect(dry.hostApi.objects()).toEqual(
      clusters(tenantState, hostState, { toHost: [CONFIGMAP] }).hostApi.objects(),
    );
  });
});
