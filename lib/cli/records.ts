/**
 * Records for scripts, as `-o json` and `-o yaml` print them. JSON is one record per line (one
 * parse per line); YAML is one document per record, each starting with `---`, so a stream of
 * records (a pass's decisions) is a valid YAML stream that any YAML reader splits.
 */
import { stringify } from 'yaml';
import type { CliIo } from './io.js';
import type { RecordFormat } from './output-format.js';

/**
 * A record as YAML. The record goes through JSON first so both formats carry exactly the same
 * data (`undefined` dropped, `toJSON` applied); YAML 1.1 quoting keeps strings like `yes`, `on`
 * or timestamps strings for YAML 1.1 readers too (kubectl, PyYAML); no line folding.
 */
export function yamlText(record: unknown): string {
  const plain: unknown = JSON.parse(JSON.stringify(record) ?? 'null');
  return stringify(plain, { lineWidth: 0, version: '1.1' });
}

/** One record in `format`: a JSON line, or a YAML document starting with `---`. */
export function recordText(format: RecordFormat, record: unknown): string {
  return format === 'json' ? `${JSON.stringify(record)}\n` : `---\n${yamlText(record)}`;
}

/** Writes records to stdout in `format`, one {@link recordText} each. */
export function recordWriter(
  io: CliIo,
  format: RecordFormat,
): (record: Record<string, unknown>) => void {
  return (record) => io.out(recordText(format, record));
}
