/**
 * Projected sources that name cluster-scoped host objects: a ClusterTrustBundle by name or by
 * signer, a certificate from a signer. Each is a Skip naming the field unless the policy lists
 * it; a listed selector by signer is kept off every bundle marked as a tenant's.
 */
import { describe, expect, it } from '@jest/globals';
import {
  scopeTrustBundles,
  trustRefusal,
} from '../../../../../../lib/engine/kinds/pod/translate/trust.js';
import { NO_POD_LIMITS, type PodLimits } from '../../../../../../lib/engine/policy/pod-limits.js';
import type { WorkloadPolicy } from '../../../../../../lib/engine/policy/workloads.js';
import { hostOf, tenantObject } from '../../support.js';

type Json = Record<string, unknown>;
const spec = (...sources: Json[]): Json => ({
  containers: [{ name: 'web', image: 'i' }],
  volumes: [{ name: 'trust', projected: { sources } }],
});
const pods = (limits: Partial<PodLimits>): WorkloadPolicy => ({
  pods: { ...NO_POD_LIMITS, ...limits },
});
const AT = 'spec.volumes[trust].projected.sources[0]';
const byName = { clusterTrustBundle: { name: 'corp-ca', path: 'ca.pem' } };
const bySigner = {
  clusterTrustBundle: { signerName: 'example.com/corp', labelSelector: {}, path: 'ca.pem' },
};
const certificate = {
  podCertificate: { signerName: 'example.com/pods', keyType: 'ED25519', credentialBundlePath: 'c' },
};

describe('trustRefusal', () => {
  const cases: Array<{ name: string; source: Json; policy?: WorkloadPolicy; says?: string }> = [
    {
      name: 'a bundle by name, none listed: refused',
      source: byName,
      says: `the Pod reads the host ClusterTrustBundle "corp-ca" (${AT}.clusterTrustBundle.name), a cluster-scoped host object the policy does not hand out (spec.workloads.pods.trustBundleNames: none)`,
    },
    {
      name: 'a bundle by name, listed: kept',
      source: byName,
      policy: pods({ trustBundleNames: ['corp-ca'] }),
    },
    {
      name: 'a bundle by name, only its signer listed: refused',
      source: byName,
      policy: pods({ trustBundleSigners: ['example.com/corp'] }),
      says: `${AT}.clusterTrustBundle.name`,
    },
    {
      name: 'bundles by signer, another signer listed: refused',
      source: bySigner,
      policy: pods({ trustBundleSigners: ['example.com/other'] }),
      says: `"example.com/corp" (${AT}.clusterTrustBundle.signerName), cluster-scoped host objects the policy does not hand out (spec.workloads.pods.trustBundleSigners: example.com/other)`,
    },
    {
      name: 'bundles by signer, listed: kept',
      source: bySigner,
      policy: pods({ trustBundleSigners: ['example.com/corp'] }),
    },
    {
      name: 'a certificate, no signer listed: refused',
      source: certificate,
      says: `the Pod asks the host signer "example.com/pods" for a certificate of its host Pod (${AT}.podCertificate.signerName), which the policy does not allow (spec.workloads.pods.podCertificateSigners: none)`,
    },
    {
      name: 'a certificate, its signer listed as a bundle signer only: refused',
      source: certificate,
      policy: pods({ trustBundleSigners: ['example.com/pods'] }),
      says: `${AT}.podCertificate.signerName`,
    },
    {
      name: 'a certificate, its signer listed: kept',
      source: certificate,
      policy: pods({ podCertificateSigners: ['example.com/pods'] }),
    },
    {
      name: 'host access does not widen it',
      source: certificate,
      policy: { allowHostAccess: true },
      says: 'podCertificate.signerName',
    },
    { name: 'other sources: nothing to refuse', source: { configMap: { name: 'cfg' } } },
  ];
  it.each(cases)('$name', ({ source, policy, says }) => {
    const reason = trustRefusal(spec(source), policy);
    if (says === undefined) expect(reason).toBeUndefined();
    else expect(reason).toContain(says);
  });
});

describe('scopeTrustBundles', () => {
  const UNMARKED = { key: 'tenantplane.io/tenant', operator: 'DoesNotExist' };
  const cases: Array<{ name: string; bundle: Json; selector: unknown }> = [
    {
      name: 'an empty selector (every bundle): every unmarked one',
      bundle: { signerName: 's/a', labelSelector: {} },
      selector: { matchExpressions: [UNMARKED] },
    },
    {
      name: 'a selector: its terms and the requirement',
      bundle: {
        signerName: 's/a',
        labelSelector: {
          matchLabels: { team: 'a' },
          matchExpressions: [{ key: 'x', operator: 'Exists' }],
        },
      },
      selector: {
        matchLabels: { team: 'a' },
        matchExpressions: [{ key: 'x', operator: 'Exists' }, UNMARKED],
      },
    },
    {
      name: 'no selector (selects nothing): stays absent',
      bundle: { signerName: 's/a' },
      selector: undefined,
    },
    {
      name: 'already required: not repeated',
      bundle: { signerName: 's/a', labelSelector: { matchExpressions: [UNMARKED] } },
      selector: { matchExpressions: [UNMARKED] },
    },
    {
      name: 'a tenant marking a bundle its own: selects nothing',
      bundle: {
        signerName: 's/a',
        labelSelector: { matchLabels: { 'tenantplane.io/tenant': 'other' } },
      },
      selector: { matchLabels: { 'tenantplane.io/tenant': 'other' }, matchExpressions: [UNMARKED] },
    },
  ];
  it.each(cases)('$name', ({ bundle, selector }) => {
    const scoped = spec({ clusterTrustBundle: bundle });
    scopeTrustBundles(scoped);
    const volume = (scoped.volumes as Array<{ projected: { sources: Json[] } }>)[0];
    const scopedBundle = volume?.projected.sources[0]?.clusterTrustBundle as Json | undefined;
    expect(scopedBundle?.labelSelector).toEqual(selector);
  });

  it('through the translator, the tenant Pod untouched', () => {
    const pod = tenantObject('v1', 'Pod', {
      spec: { ...spec(bySigner), automountServiceAccountToken: false },
    });
    const before = JSON.stringify(pod);
    const host = hostOf(pod, pods({ trustBundleSigners: ['example.com/corp'] }));
    expect(JSON.stringify(host.spec)).toContain('"operator":"DoesNotExist"');
    expect(JSON.stringify(pod)).toBe(before);
  });
});
