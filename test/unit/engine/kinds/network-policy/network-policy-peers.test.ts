/** Which namespace names a peer's namespaceSelector names, for mapping them to host namespaces. */
import { describe, expect, it } from '@jest/globals';
import { selectedNamespaceNames } from '../../../../../lib/engine/kinds/network-policy/network-policy-peers.js';

const NAME = 'kubernetes.io/metadata.name';
const expr = (operator: string, values?: string[]) => ({
  key: NAME,
  operator,
  ...(values ? { values } : {}),
});

describe('selectedNamespaceNames', () => {
  const cases = [
    { name: 'by matchLabels', selector: { matchLabels: { [NAME]: 'a' } }, names: ['a'] },
    {
      name: 'by In',
      selector: { matchExpressions: [expr('In', ['a', 'b', 'a'])] },
      names: ['a', 'b'],
    },
    {
      name: 'In narrowed by NotIn',
      selector: { matchExpressions: [expr('In', ['a', 'b']), expr('NotIn', ['b'])] },
      names: ['a'],
    },
    {
      name: 'matchLabels and In that disagree: none',
      selector: { matchLabels: { [NAME]: 'a' }, matchExpressions: [expr('In', ['b'])] },
      names: [],
    },
    {
      name: 'In with DoesNotExist: none',
      selector: { matchExpressions: [expr('In', ['a']), expr('DoesNotExist')] },
      names: [],
    },
    { name: 'every namespace ({}) is open', selector: {}, names: undefined },
    {
      name: 'NotIn alone is open',
      selector: { matchExpressions: [expr('NotIn', ['a'])] },
      names: undefined,
    },
    {
      name: 'another label is not by name',
      selector: { matchLabels: { [NAME]: 'a', team: 'x' } },
      names: undefined,
    },
    {
      name: 'an unknown operator is not by name',
      selector: { matchExpressions: [expr('Gt', ['1'])] },
      names: undefined,
    },
  ];
  it.each(cases)('$name', ({ selector, names }) => {
    expect(selectedNamespaceNames(selector)).toEqual(names);
  });
});
