/**
 * Dynamic resource allocation (`spec.resourceClaims`): a Pod names a ResourceClaim
 * (`resourceClaimName`) or a ResourceClaimTemplate (`resourceClaimTemplateName`) of its namespace.
 * ResourceClaims are not a kind the engine syncs, so on the host such a name would be taken raw:
 * whatever host ResourceClaim has it (another tenant's, an operator's), and never the tenant's own.
 * Until they are a kind of the policy, with their names through the naming rule, a Pod that names
 * one is refused, naming the field.
 */
import { isRecord } from '../../../../common/index.js';

/** The reference fields of a Pod's resource claim (and of its `source`, the pre-1.31 form). */
const CLAIM_FIELDS = ['resourceClaimName', 'resourceClaimTemplateName'] as const;

/** Where the first resource claim reference of a Pod spec is (`spec.resourceClaims[gpu]...`). */
function firstClaimReference(spec: unknown): string | undefined {
  if (!isRecord(spec) || !Array.isArray(spec.resourceClaims)) return undefined;
  for (const claim of spec.resourceClaims) {
    if (!isRecord(claim)) continue;
    const at = `spec.resourceClaims[${String(claim.name)}]`;
    for (const [holder, path] of [
      [claim, at],
      [claim.source, `${at}.source`],
    ] as const) {
      if (!isRecord(holder)) continue;
      for (const field of CLAIM_FIELDS) {
        if (typeof holder[field] === 'string' && holder[field] !== '') return `${path}.${field}`;
      }
    }
    // A claim the API would not have taken without one: still nothing for the host to have.
    return at;
  }
  return undefined;
}

/** The Skip reason of a Pod that names a resource claim, or `undefined`. */
export function resourceClaimRefusal(spec: unknown): string | undefined {
  const at = firstClaimReference(spec);
  if (at === undefined) return undefined;
  return `the Pod names a resource claim (${at}), and ResourceClaims are not synced to the host, where the name would reach another tenant's or the operator's claim; remove spec.resourceClaims`;
}
