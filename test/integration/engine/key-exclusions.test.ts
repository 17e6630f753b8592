/**
 * Policy exclusions for label and annotation keys, on the real clusters: a tenant ConfigMap's
 * annotation that a host controller would act on (here `replicator.example.com/replicate-to`) and a
 * label under an excluded prefix never reach the host copy; the other keys do; excluding a key
 * after it was copied removes it from the copy at the next pass, while keys a host controller
 * added stay.
 */
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { KubeObject } from '../../../lib/ports/index.js';
import {
  CONFIGMAP,
  createTenant,
  LABEL,
  pass,
  TENANT_CLUSTER,
  tenantConfigMap,
  useApis,
} from './support.js';

const apis = useApis();

describe('label and annotation key exclusions', () => {
  it('keep chosen tenant keys off the host copy, and remove them once excluded', async () => {
    const t = await createTenant(apis(), 'keys');
    await t.tenantApi.create(
      tenantConfigMap(
        t,
        t.vns.a,
        'app',
        { k: 'v' },
        {
          labels: { team: 'blue', 'replicator.example.com/group': 'all' },
          annotations: { 'replicator.example.com/replicate-to': '*', note: 'kept' },
        },
      ),
    );
    const copyName = hostName('app', t.vns.a, t.name);
    expect((await pass(t)).result.counts.Create).toBe(1);
    const first = (await t.hostApi.get(CONFIGMAP, t.hostNamespace, copyName)) as KubeObject;
    expect(first.metadata.annotations).toHaveProperty(['replicator.example.com/replicate-to'], '*');
    // A host controller adds its own annotation to the copy.
    await t.hostApi.update({
      ...first,
      metadata: {
        ...first.metadata,
        annotations: { ...first.metadata.annotations, 'controller.example.org/seen': 'yes' },
      },
    });

    const tc = (await t.hostApi.get(TENANT_CLUSTER, undefined, t.name)) as KubeObject;
    await t.hostApi.update({
      ...tc,
      spec: {
        ...(tc.spec as object),
        toHost: [
          {
            ...CONFIGMAP,
            exclude: {
              labelSelector: `${LABEL}!=${t.name}`,
              labelKeys: ['replicator.example.com/*'],
              annotationKeys: ['replicator.example.com/*'],
            },
          },
        ],
      },
    });
    const second = await pass(t);
    expect(second.result.errors).toEqual([]);
    expect(second.result.counts.Update).toBe(1);
    const copy = (await t.hostApi.get(CONFIGMAP, t.hostNamespace, copyName)) as KubeObject;
    expect(copy.metadata.labels).toHaveProperty('team', 'blue');
    expect(copy.metadata.labels).not.toHaveProperty(['replicator.example.com/group']);
    expect(copy.metadata.annotations).toHaveProperty('note', 'kept');
    expect(copy.metadata.annotations).toHaveProperty(['controller.example.org/seen'], 'yes');
    expect(copy.metadata.annotations).not.toHaveProperty(['replicator.example.com/replicate-to']);
    expect((await pass(t)).result.requests.host.writes).toBe(0);
  });
});
