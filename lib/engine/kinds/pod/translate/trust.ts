/**
 * Projected sources that name cluster-scoped host objects. A `clusterTrustBundle` source reads a
 * host ClusterTrustBundle (by `name`, or every one of a `signerName` its `labelSelector` picks);
 * a `podCertificate` source has the host node's kubelet ask a host signer (`signerName`) for a
 * certificate of the host Pod, with a key the kubelet makes. Neither is a tenant object: a name
 * or signer is the host's, and one the operator set aside for another tenant would hand that
 * tenant's trust or identity to this one. So each is refused, a Skip naming the field, unless the
 * policy lists it (`spec.workloads.pods`: `trustBundleNames`, `trustBundleSigners`,
 * `podCertificateSigners`, none by default); and a bundle selector by signer is kept off every
 * bundle marked as a tenant's (the label `tenantplane.io/tenant`, the operator's mark of a bundle
 * kept for one tenant), so a signer shared by all never reaches another tenant's bundle by labels:
 * a tenant's own marked bundle is reached by name.
 */
import { isRecord } from '../../../../common/index.js';
import { Labels } from '../../../names/metadata.js';
import { podLimitsOf, type WorkloadPolicy } from '../../../policy/workloads.js';

type Json = Record<string, unknown>;

function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** Every projected source of a Pod spec with its path (`spec.volumes[v].projected.sources[0]`). */
function projectedSources(spec: unknown): Array<{ source: Json; at: string }> {
  if (!isRecord(spec)) return [];
  const found: Array<{ source: Json; at: string }> = [];
  for (const volume of records(spec.volumes)) {
    if (!isRecord(volume.projected)) continue;
    for (const [i, source] of records(volume.projected.sources).entries()) {
      found.push({ source, at: `spec.volumes[${String(volume.name)}].projected.sources[${i}]` });
    }
  }
  return found;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const listed = (values: readonly string[]): string =>
  values.length === 0 ? 'none' : values.join(', ');

function bundleRefusal(bundle: Json, at: string, policy: WorkloadPolicy | undefined) {
  const limits = podLimitsOf(policy);
  const name = text(bundle.name);
  if (name !== '' && !limits.trustBundleNames.includes(name)) {
    return `the Pod reads the host ClusterTrustBundle "${name}" (${at}.clusterTrustBundle.name), a cluster-scoped host object the policy does not hand out (spec.workloads.pods.trustBundleNames: ${listed(limits.trustBundleNames)})`;
  }
  const signer = text(bundle.signerName);
  if (name === '' && !limits.trustBundleSigners.includes(signer)) {
    return `the Pod reads the host ClusterTrustBundles of signer "${signer}" (${at}.clusterTrustBundle.signerName), cluster-scoped host objects the policy does not hand out (spec.workloads.pods.trustBundleSigners: ${listed(limits.trustBundleSigners)})`;
  }
  return undefined;
}

/**
 * The Skip reason of a Pod with a `clusterTrustBundle` or `podCertificate` projected source the
 * policy does not list; `undefined` otherwise.
 */
export function trustRefusal(
  spec: unknown,
  policy: WorkloadPolicy | undefined,
): string | undefined {
  const signers = podLimitsOf(policy).podCertificateSigners;
  for (const { source, at } of projectedSources(spec)) {
    if (isRecord(source.clusterTrustBundle)) {
      const refused = bundleRefusal(source.clusterTrustBundle, at, policy);
      if (refused !== undefined) return refused;
    }
    if (isRecord(source.podCertificate)) {
      const signer = text(source.podCertificate.signerName);
      if (!signers.includes(signer)) {
        return `the Pod asks the host signer "${signer}" for a certificate of its host Pod (${at}.podCertificate.signerName), which the policy does not allow (spec.workloads.pods.podCertificateSigners: ${listed(signers)})`;
      }
    }
  }
  return undefined;
}

/** The requirement that keeps a selector off every bundle marked as a tenant's. */
const UNMARKED = { key: Labels.Tenant, operator: 'DoesNotExist' } as const;

/**
 * Keeps every `clusterTrustBundle` selector by signer (in place) off bundles marked as a
 * tenant's. An absent selector selects nothing and stays absent.
 */
export function scopeTrustBundles(spec: Json): void {
  for (const { source } of projectedSources(spec)) {
    const bundle = source.clusterTrustBundle;
    if (!isRecord(bundle) || !isRecord(bundle.labelSelector)) continue;
    const selector = bundle.labelSelector;
    const expressions = records(selector.matchExpressions);
    if (expressions.some((e) => e.key === UNMARKED.key && e.operator === UNMARKED.operator)) {
      continue;
    }
    bundle.labelSelector = { ...selector, matchExpressions: [...expressions, { ...UNMARKED }] };
  }
}
