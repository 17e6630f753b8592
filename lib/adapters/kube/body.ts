/**
 * Reading a response body as it streams in, so a body can be cut off before it is held whole: a
 * LIST page asked for by count can be far larger than the page the engine meant to read.
 */
import { setImmediate } from 'node:timers/promises';

/** A response body as `@kubernetes/client-node`'s HTTP library hands it over. */
export interface StreamedBody {
  text(): Promise<string>;
  binary(): Promise<Uint8Array>;
  stream?: () => unknown;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<Uint8Array | string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

/** The body's chunks: its stream when the library gives one, else the whole body as one chunk. */
export async function bodyChunks(
  body: StreamedBody,
): Promise<AsyncIterable<Uint8Array | string> | (Uint8Array | string)[]> {
  const stream = typeof body.stream === 'function' ? body.stream() : undefined;
  return isAsyncIterable(stream) ? stream : [await body.binary()];
}

/**
 * The body's text, or `undefined` as soon as more than `maxBytes` of it arrived (the caller then
 * aborts the request, so the rest is never read). Without `maxBytes`, the whole text.
 */
export async function readText(
  body: StreamedBody,
  maxBytes: number | undefined,
): Promise<string | undefined> {
  if (maxBytes === undefined) return body.text();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for await (const chunk of await bodyChunks(body)) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    received += bytes.byteLength;
    if (received > maxBytes) return undefined;
    chunks.push(bytes);
  }
  // Decoded once, natively: a page is hundreds of chunks.
  return Buffer.concat(chunks, received).toString('utf8');
}

/**
 * Tells `onText` a body's text (a LIST page's, whose continue token the caller reads early), then
 * lets what it started go out before the caller parses the text and holds the thread.
 */
export async function heard(text: string, onText?: (text: string) => void): Promise<void> {
  if (!onText) return;
  onText(text);
  await setImmediate();
}
