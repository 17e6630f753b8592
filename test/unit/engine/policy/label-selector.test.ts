import { describe, expect, it } from '@jest/globals';
import {
  LabelSelectorError,
  matchesLabelSelector,
  parseLabelSelector,
} from '../../../../lib/engine/policy/label-selector.js';

const LABELS = { app: 'web', tier: 'front', 'example.com/sync': 'off' };

describe('label selector', () => {
  it.each([
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app=db', false],
    ['app!=db', true],
    ['missing!=x', true],
    ['app in (web, db)', true],
    ['app in (db)', false],
    ['app notin (db,cache)', true],
    ['missing notin (a)', true],
    ['app', true],
    ['missing', false],
    ['!missing', true],
    ['!app', false],
    ['example.com/sync=off', true],
    ['app=web,tier=front', true],
    ['app=web, tier in (back)', false],
    ['tier in (front,back),!missing,app', true],
    ['empty=', false],
  ])('%j matches: %s', (selector, expected) => {
    expect(matchesLabelSelector(parseLabelSelector(selector), LABELS)).toBe(expected);
  });

  it('matches an empty value against an empty label', () => {
    expect(matchesLabelSelector(parseLabelSelector('empty='), { empty: '' })).toBe(true);
  });

  it.each(['app=(x', 'app in (a', 'a b', 'app=web,', 'bad key=1', 'app=in valid', '-x=1', 'a=b=c'])(
    'rejects %j',
    (selector) => {
      expect(() => parseLabelSelector(selector)).toThrow(LabelSelectorError);
    },
  );
});
