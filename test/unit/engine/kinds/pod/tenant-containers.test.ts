/** The tenant Pod's containers, recorded on its host copy for the kubelet gateway. */
import { describe, expect, it } from '@jest/globals';
import {
  recordedTenantContainers,
  tenantContainerNames,
  tenantContainersAnnotation,
} from '../../../../../lib/engine/kinds/pod/tenant-containers.js';
import type { KubeObject } from '../../../../../lib/ports/index.js';

const pod = (annotations: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', annotations },
});

describe('tenant containers', () => {
  it.each([
    ['no spec', undefined, []],
    ['regular only', { containers: [{ name: 'app' }] }, ['app']],
    [
      'init, regular and ephemeral, in that order',
      {
        ephemeralContainers: [{ name: 'debugger' }],
        containers: [{ name: 'app' }, { name: 'log' }],
        initContainers: [{ name: 'migrate' }],
      },
      ['migrate', 'app', 'log', 'debugger'],
    ],
    ['entries without a name are skipped', { containers: [{}, 'x', { name: 'app' }] }, ['app']],
  ])('%s', (_, spec, names) => {
    expect(tenantContainerNames(spec)).toEqual(names);
    expect(recordedTenantContainers(pod(tenantContainersAnnotation(names)))).toEqual(
      new Set(names),
    );
  });

  it.each([
    ['no record', {}],
    ['not JSON', { 'tenantplane.io/tenant-containers': 'app' }],
    ['not a list of names', { 'tenantplane.io/tenant-containers': '[1]' }],
  ])('%s reads as no record', (_, annotations) => {
    expect(recordedTenantContainers(pod(annotations))).toBeUndefined();
  });
});
