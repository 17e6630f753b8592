/**
 * The `-o` formats. Kept apart from `format.ts` (which renders them) so that parsing the command
 * line loads no renderer: `tenantplane name` stays fast.
 */

/** Output format of `-o`: a table for people, JSON or YAML records for scripts. */
export const OutputFormats = ['table', 'json', 'yaml'] as const;
/** One of {@link OutputFormats}. */
export type OutputFormat = (typeof OutputFormats)[number];

/** The formats that print records rather than a table. */
export type RecordFormat = Exclude<OutputFormat, 'table'>;
