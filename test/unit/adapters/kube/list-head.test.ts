/**
 * The continue token read from the head of a LIST page's JSON text, before the page is parsed:
 * read only from the list's own metadata, and only when the head tells for sure.
 */
import { describe, expect, it } from '@jest/globals';
import { continueTokenInHead, hearContinue } from '../../../../lib/adapters/kube/list-head.js';

const page = (
  metadata: Record<string, unknown>,
  items: unknown[] = [{ metadata: { name: 'a' } }],
) => JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata, items });

describe('continueTokenInHead', () => {
  const cases: Array<{
    name: string;
    text: string;
    expected: { token: string | undefined } | undefined;
  }> = [
    {
      name: 'a page with more to come gives its token',
      text: page({ resourceVersion: '42', continue: 'eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ' }),
      expected: { token: 'eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ' },
    },
    {
      name: 'the last page (no continue) gives none',
      text: page({ resourceVersion: '42' }),
      expected: { token: undefined },
    },
    {
      name: 'an empty continue is the last page',
      text: page({ resourceVersion: '42', continue: '' }),
      expected: { token: undefined },
    },
    {
      name: 'a continue inside an item is not the list’s',
      text: page({ resourceVersion: '42' }, [{ metadata: { name: 'a' }, data: { continue: 'x' } }]),
      expected: { token: undefined },
    },
    {
      name: 'a token with an escape is left to the parse',
      text: page({ resourceVersion: '42', continue: 'a"b' }),
      expected: undefined,
    },
    {
      name: 'a head without the items member does not tell',
      text: `{"kind":"List","metadata":{"annotations":"${'x'.repeat(9000)}"},"items":[]}`,
      expected: undefined,
    },
    {
      name: 'a body that is no list does not tell',
      text: '{"kind":"Status"}',
      expected: undefined,
    },
  ];
  it.each(cases)('$name', ({ text, expected }) => {
    expect(continueTokenInHead(text)).toEqual(expected);
  });
});

describe('hearContinue', () => {
  it('tells the listener the token and the text length; no listener, no option', () => {
    const heard: Array<[string | undefined, number]> = [];
    const text = page({ continue: 'abc' });
    hearContinue((token, bytes) => heard.push([token, bytes])).onText?.(text);
    hearContinue((token, bytes) => heard.push([token, bytes])).onText?.('{"kind":"Status"}');
    expect(heard).toEqual([['abc', text.length]]);
    expect(hearContinue(undefined)).toEqual({});
  });
});
