/**
 * The shape of the Pod field tables: for every field of a Pod's spec and of the structs inside it
 * where fields matter (containers, volumes, projected sources, security contexts), what the
 * engine does with it on purpose. The tables are the list of fields the engine knows: a field a
 * tenant Pod has that no table lists (one a later Kubernetes added) is refused
 * (`unknown-fields.ts`) unless the policy allows it by path. The integration test
 * `test/integration/engine/pod-fields.test.ts` compares them with the real apiserver's OpenAPI,
 * both ways, so a new Kubernetes version cannot add a field unnoticed.
 */

/** What the engine does with a field. */
export const FieldHandling = {
  /** Reaches the host Pod as the tenant wrote it. */
  Copied: 'copied',
  /** Reaches the host Pod changed (renamed, scoped, set or left off by the engine): `how`. */
  Translated: 'translated',
  /**
   * Copied (or translated) once a check passes, a Skip naming the field otherwise: host access,
   * Pod Security, the policy's allowlists (`how` names the check and the knob).
   */
  Checked: 'checked',
  /** A Pod that sets it is a Skip naming the field, whatever the policy. */
  Refused: 'refused',
} as const;
export type FieldHandling = (typeof FieldHandling)[keyof typeof FieldHandling];

/** One row: the handling and, for anything but a plain copy, how and why. */
export interface FieldRow {
  readonly handling: FieldHandling;
  readonly how: string;
}

/** A table: field name (as the API spells it) -> its row. */
export type FieldTable = Readonly<Record<string, FieldRow>>;

export const copied = (how = ''): FieldRow => ({ handling: FieldHandling.Copied, how });
export const translated = (how: string): FieldRow => ({ handling: FieldHandling.Translated, how });
export const checked = (how: string): FieldRow => ({ handling: FieldHandling.Checked, how });
export const refused = (how: string): FieldRow => ({ handling: FieldHandling.Refused, how });
