/**
 * No data in error text. A server's message about an object may quote the object: CRD validation
 * ("Invalid value: ..."), an admission webhook or a ValidatingAdmissionPolicy whose message echoes
 * fields. For a Secret (and any kind the policy marks `sensitive`) that could put secret data in
 * an Event every tenant's identity can read, in `status.lastPass` and in logs. So an error about
 * such an object is reduced, before it is recorded anywhere, to what the server answered in
 * structure: its reason, the HTTP code and the field paths it named. Failures that got no answer
 * (transport, timeouts) carry only our own words and stay as they are.
 */
import { errorMessage } from '../../common/index.js';
import { isClusterError, type KindRef } from '../../ports/index.js';

/**
 * Whether errors about objects of `kind` must not carry the server's message: what the kind's
 * module says (a Secret) or the policy's `sensitive` mark. The kinds' registry answers
 * (`kinds/registry.ts`, `isSensitiveKind`); the pass hands its answer to the ledger.
 */
export type Sensitivity = (kind: KindRef & { sensitive?: boolean }) => boolean;

/** The text recorded for an error about an object of `kind` (see the module doc). */
export function errorText(
  kind: KindRef & { sensitive?: boolean },
  error: unknown,
  sensitive: Sensitivity,
): string {
  if (!sensitive(kind) || !isClusterError(error) || error.status === undefined) {
    return errorMessage(error);
  }
  const fields =
    error.fields.length > 0 ? `; fields: ${[...new Set(error.fields)].join(', ')}` : '';
  return `the server refused it: ${error.reason} (HTTP ${error.status})${fields}; its message is withheld because ${kind.kind} objects are sensitive`;
}
