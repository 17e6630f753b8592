/**
 * docs/workloads.md, "Every Pod field on purpose", has one row per row of the engine's Pod field
 * tables, with the same handling, and no row the tables lack: the doc is the tables' reading.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import {
  CONTAINER_FIELDS,
  POD_SECURITY_CONTEXT_FIELDS,
  SECURITY_CONTEXT_FIELDS,
} from '../../../lib/engine/kinds/pod/fields/container-fields.js';
import type { FieldTable } from '../../../lib/engine/kinds/pod/fields/field-table.js';
import { POD_SPEC_FIELDS } from '../../../lib/engine/kinds/pod/fields/pod-spec-fields.js';
import {
  VOLUME_FIELDS,
  VOLUME_PROJECTION_FIELDS,
} from '../../../lib/engine/kinds/pod/fields/volume-fields.js';

const DOC = readFileSync(new URL('../../../docs/workloads.md', import.meta.url), 'utf8');
const SECTION = DOC.split('\n## Every Pod field on purpose\n')[1]?.split('\n## ')[0] ?? '';

const TABLES: Array<[string, FieldTable]> = [
  ['PodSpec', POD_SPEC_FIELDS],
  ['Container', CONTAINER_FIELDS],
  ['SecurityContext', SECURITY_CONTEXT_FIELDS],
  ['PodSecurityContext', POD_SECURITY_CONTEXT_FIELDS],
  ['Volume', VOLUME_FIELDS],
  ['VolumeProjection', VOLUME_PROJECTION_FIELDS],
];

/** The rows of the doc's table under `### <struct>`: field -> handling. */
function docRows(struct: string): Record<string, string> {
  const part = SECTION.split(`\n### ${struct}\n`)[1]?.split('\n### ')[0] ?? '';
  const rows: Record<string, string> = {};
  for (const match of part.matchAll(/^\| `([A-Za-z]+)` \| ([a-z]+) \|/gm)) {
    rows[match[1] as string] = match[2] as string;
  }
  return rows;
}

describe('docs/workloads.md lists every Pod field', () => {
  it.each(TABLES)('%s', (struct, table) => {
    const want = Object.fromEntries(Object.entries(table).map(([f, row]) => [f, row.handling]));
    expect(docRows(struct)).toEqual(want);
  });
});
