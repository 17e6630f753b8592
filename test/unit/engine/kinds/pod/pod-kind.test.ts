/** resourceVersions compared as the integers they are (KEP-5504), for the host Pods that changed. */
import { describe, expect, it } from '@jest/globals';
import {
  compareResourceVersions,
  highestResourceVersion,
} from '../../../../../lib/engine/kinds/pod/pod-kind.js';
import type { KubeObject } from '../../../../../lib/ports/index.js';

const pod = (resourceVersion?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', ...(resourceVersion === undefined ? {} : { resourceVersion }) },
});

describe('compareResourceVersions', () => {
  it.each([
    ['9', '10', -1],
    ['10', '9', 1],
    ['123', '123', 0],
    ['1000000000000000000000', '999999999999999999999', 1],
    ['124', '123', 1],
    ['0', '1', undefined],
    ['012', '12', undefined],
    ['abc', '1', undefined],
    ['', '1', undefined],
  ] as const)('%s vs %s', (a, b, expected) => {
    expect(compareResourceVersions(a, b)).toBe(expected);
  });
});

describe('highestResourceVersion', () => {
  it('is the highest of comparable ones, none without objects', () => {
    expect(highestResourceVersion([pod('9'), pod('11'), pod('10')])).toBe('11');
    expect(highestResourceVersion([])).toBeUndefined();
  });
  it('is none when one cannot be compared (the host’s changes then show at full passes)', () => {
    expect(highestResourceVersion([pod('9'), pod('x9')])).toBeUndefined();
    expect(highestResourceVersion([pod('9'), pod()])).toBeUndefined();
  });
});
