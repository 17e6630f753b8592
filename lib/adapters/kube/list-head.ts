/**
 * The continue token of a LIST page, read from the head of its JSON text before the page is
 * parsed. An apiserver writes a list as `{"kind":..,"apiVersion":..,"metadata":{..},"items":[..]}`:
 * the list's metadata, and its `continue`, come before the items, so a listing can ask for the next
 * page while this one is still being parsed (`ListOptions.onContinue`).
 */

/** How far into the text the list's metadata must end for the token to be read early. */
const HEAD_CHARS = 8192;

/** A continue token: base64url text, as the apiserver encodes it (no quote, no escape). */
const CONTINUE = /"continue":"([A-Za-z0-9_=+/.-]*)"/;

/**
 * What the head of a LIST page's text says of its continue token: `{ token }` (`undefined` when
 * the page is the last), or `undefined` when the head does not tell (no `items` member found
 * early, or a token that is not plain base64url): the caller then waits for the parsed page.
 */
export function continueTokenInHead(text: string): { token: string | undefined } | undefined {
  const head = text.slice(0, HEAD_CHARS);
  const items = head.indexOf('"items":');
  if (items < 0) return undefined;
  const metadata = head.slice(0, items);
  const match = CONTINUE.exec(metadata);
  if (match) return { token: match[1] === '' ? undefined : match[1] };
  // A `continue` the pattern does not read (escaped characters): let the parsed page say.
  if (metadata.includes('"continue"')) return undefined;
  return { token: undefined };
}

/**
 * The request option that tells `onContinue` (a LIST's `ListOptions.onContinue`) the token the
 * head of the page's text gives, with the text's length, when it tells one; none without it.
 */
export function hearContinue(
  onContinue: ((continueToken: string | undefined, bytes: number) => void) | undefined,
): { onText?: (text: string) => void } {
  if (!onContinue) return {};
  return {
    onText: (text) => {
      const head = continueTokenInHead(text);
      if (head) onContinue(head.token, text.length);
    },
  };
}
