/**
 * `spec.workloads.pods`: what a tenant's Pods may have beyond the fields the engine knows and the
 * cluster-scoped host objects they may name. Each list widens a default that reaches nothing:
 * no field the engine does not know, no trust bundle, no certificate signer (docs/workloads.md).
 */
import { isRecord } from '../../common/index.js';

/** What a tenant Pod may have beyond the engine's field tables and defaults. */
export interface PodLimits {
  /**
   * Paths of fields the engine does not know (a later Kubernetes added them) copied verbatim:
   * `spec.newField`, `spec.containers[].newField`, `spec.volumes[].newSource`. Default none: a
   * Pod with such a field is a Skip naming it.
   */
  allowFields: readonly string[];
  /** Host ClusterTrustBundles a projected `clusterTrustBundle` source may name; default none. */
  trustBundleNames: readonly string[];
  /** Signers whose host ClusterTrustBundles a projected source may select; default none. */
  trustBundleSigners: readonly string[];
  /** Signers a projected `podCertificate` source may ask for a certificate; default none. */
  podCertificateSigners: readonly string[];
}

/** Nothing beyond the tables: what a policy that says nothing gets. */
export const NO_POD_LIMITS: PodLimits = Object.freeze({
  allowFields: [],
  trustBundleNames: [],
  trustBundleSigners: [],
  podCertificateSigners: [],
});

const PATH = 'spec.workloads.pods';

/** A field path: `spec.` then names, each optionally followed by `[]`. */
const FIELD_PATH = /^spec(\.[A-Za-z][A-Za-z0-9]*(\[\])?)+$/;

/** A signer name: `<domain>/<path>`, as the certificates API spells it. */
const SIGNER = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/[^\s]+$/;

function strings(
  value: unknown,
  path: string,
  problems: string[],
  valid: (text: string) => boolean,
  what: string,
): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && valid(v))) {
    problems.push(`${path} must be a list of ${what}`);
    return [];
  }
  return [...value];
}

/** Parses `spec.workloads.pods` (absent: {@link NO_POD_LIMITS}); problems go to `problems`. */
export function parsePodLimits(value: unknown, problems: string[]): PodLimits {
  if (value === undefined) return NO_POD_LIMITS;
  if (!isRecord(value)) {
    problems.push(`${PATH} must be an object`);
    return NO_POD_LIMITS;
  }
  const signer = (text: string) => SIGNER.test(text);
  return {
    allowFields: strings(
      value.allowFields,
      `${PATH}.allowFields`,
      problems,
      (text) => FIELD_PATH.test(text),
      'field paths such as spec.newField or spec.containers[].newField',
    ),
    trustBundleNames: strings(
      value.trustBundleNames,
      `${PATH}.trustBundleNames`,
      problems,
      (text) => text !== '',
      'ClusterTrustBundle names',
    ),
    trustBundleSigners: strings(
      value.trustBundleSigners,
      `${PATH}.trustBundleSigners`,
      problems,
      signer,
      'signer names such as example.com/ca',
    ),
    podCertificateSigners: strings(
      value.podCertificateSigners,
      `${PATH}.podCertificateSigners`,
      problems,
      signer,
      'signer names such as example.com/ca',
    ),
  };
}
