/**
 * A test per row of the Pod field tables that is not a plain copy (`rows.ts`): each translated,
 * checked or refused field, set on a tenant Pod, is translated as its row says or refused with a
 * Skip naming it. The table and the cases cannot drift apart: a row without a case fails here.
 */
import { describe, expect, it } from '@jest/globals';
import {
  CONTAINER_FIELDS,
  EPHEMERAL_CONTAINER_FIELDS,
  POD_SECURITY_CONTEXT_FIELDS,
  SECURITY_CONTEXT_FIELDS,
} from '../../../../../../lib/engine/kinds/pod/fields/container-fields.js';
import {
  FieldHandling,
  type FieldTable,
} from '../../../../../../lib/engine/kinds/pod/fields/field-table.js';
import { POD_SPEC_FIELDS } from '../../../../../../lib/engine/kinds/pod/fields/pod-spec-fields.js';
import {
  VOLUME_FIELDS,
  VOLUME_PROJECTION_FIELDS,
} from '../../../../../../lib/engine/kinds/pod/fields/volume-fields.js';
import { tenantObject, translated } from '../../support.js';
import { ROW_CASES } from './rows.js';

const TABLES: Record<string, FieldTable> = {
  PodSpec: POD_SPEC_FIELDS,
  Container: CONTAINER_FIELDS,
  SecurityContext: SECURITY_CONTEXT_FIELDS,
  PodSecurityContext: POD_SECURITY_CONTEXT_FIELDS,
  Volume: VOLUME_FIELDS,
  VolumeProjection: VOLUME_PROJECTION_FIELDS,
};

const BASE = {
  automountServiceAccountToken: false,
  containers: [{ name: 'web', image: 'nginx:1' }],
};

describe('the Pod field tables', () => {
  it('every row that is not a plain copy has its case, and every case a row', () => {
    const rows = Object.entries(TABLES).flatMap(([struct, table]) =>
      Object.entries(table)
        .filter(([, row]) => row.handling !== FieldHandling.Copied)
        .map(([field]) => `${struct}.${field}`),
    );
    const cases = new Set(ROW_CASES.map((c) => c.row));
    expect(rows.filter((row) => !cases.has(row))).toEqual([]);
    expect([...cases].filter((row) => !rows.includes(row))).toEqual([]);
  });

  it('an ephemeral container’s every field goes with the list, which its own case covers', () => {
    const rows = Object.values(EPHEMERAL_CONTAINER_FIELDS);
    expect(new Set(rows.map((row) => `${row.handling}: ${row.how}`))).toEqual(
      new Set(['translated: left off with the list']),
    );
    expect(ROW_CASES.some((c) => c.row === 'PodSpec.ephemeralContainers')).toBe(true);
  });

  it('every row says how, but for plain copies', () => {
    for (const table of Object.values(TABLES)) {
      for (const row of Object.values(table)) {
        if (row.handling !== FieldHandling.Copied) expect(row.how).not.toBe('');
      }
    }
  });
});

describe('each row that is not a plain copy', () => {
  it.each(ROW_CASES)('$row', ({ spec, policy, expect: want }) => {
    const pod = tenantObject('v1', 'Pod', { spec: { ...BASE, ...spec } });
    const result = translated(pod, policy);
    if ('refused' in want) {
      expect(result).toHaveProperty('refused');
      expect('refused' in result ? result.refused : '').toContain(want.refused);
      return;
    }
    if (!('host' in result)) throw new Error(`refused: ${result.refused}`);
    expect(want.host(result.host.spec as Record<string, unknown>)).toEqual(want.equals);
  });
});
