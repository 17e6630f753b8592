import { describe, expect, it } from '@jest/globals';
import { heard, readText, type StreamedBody } from '../../../../lib/adapters/kube/body.js';

/** A body streamed in `chunks`; records how many were pulled. */
function streamed(chunks: readonly string[]) {
  const pulled = { count: 0 };
  const encoder = new TextEncoder();
  const body: StreamedBody = {
    text: async () => chunks.join(''),
    binary: async () => encoder.encode(chunks.join('')),
    stream: () =>
      (async function* () {
        for (const chunk of chunks) {
          pulled.count += 1;
          yield encoder.encode(chunk);
        }
      })(),
  };
  return { body, pulled };
}

describe('readText', () => {
  it.each([
    { name: 'no limit', chunks: ['{"a":', '1}'], maxBytes: undefined, text: '{"a":1}', pulled: 0 },
    { name: 'under the limit', chunks: ['{"a":', '1}'], maxBytes: 7, text: '{"a":1}', pulled: 2 },
    {
      name: 'over the limit',
      chunks: ['abcd', 'efgh', 'ijkl'],
      maxBytes: 6,
      text: undefined,
      pulled: 2,
    },
    {
      name: 'multi-byte text split in chunks',
      chunks: ['"é', 'ü"'],
      maxBytes: 10,
      text: '"éü"',
      pulled: 2,
    },
  ])('$name', async ({ chunks, maxBytes, text, pulled }) => {
    const { body, pulled: seen } = streamed(chunks);
    expect(await readText(body, maxBytes)).toBe(text);
    // Cut off at the first chunk past the limit: the rest is never pulled.
    expect(seen.count).toBe(pulled);
  });

  it('reads a body without a stream whole', async () => {
    const body: StreamedBody = {
      text: async () => 'x',
      binary: async () => new TextEncoder().encode('0123456789'),
    };
    expect(await readText(body, 20)).toBe('0123456789');
    expect(await readText(body, 5)).toBeUndefined();
  });
});

describe('heard', () => {
  it('tells the text, then lets what the listener started run before the caller goes on to parse', async () => {
    const events: string[] = [];
    await heard('{"items":[]}', (text) => {
      events.push(`heard ${text.length}`);
      // What a listing starts here (its next request) needs a turn of the event loop to go out.
      setImmediate(() => events.push('next request out'));
    });
    events.push('parse');
    expect(events).toEqual(['heard 12', 'next request out', 'parse']);
  });

  it('without a listener, returns at once', async () => {
    await expect(heard('{}')).resolves.toBeUndefined();
  });
});
