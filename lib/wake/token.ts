/**
 * The wake endpoint's bearer tokens: reading `Authorization: Bearer <token>` and comparing it with
 * the tenant's token in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** Longest token accepted in a header; a longer one is malformed (never hashed, never stored). */
export const MAX_TOKEN_LENGTH = 512;

/**
 * The token of an `Authorization` header value, or undefined when the header is absent or not a
 * well-formed bearer credential (scheme `Bearer`, case-insensitive, one token of visible ASCII).
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer +([\x21-\x7e]+) *$/i.exec(header);
  const token = match?.[1];
  if (token === undefined || token.length > MAX_TOKEN_LENGTH) return undefined;
  return token;
}

/**
 * Whether `presented` equals `expected`, in time that does not depend on where they differ nor on
 * their lengths: both are reduced to SHA-256 digests first (`timingSafeEqual` needs equal lengths,
 * and comparing lengths first would tell an attacker the token's length).
 */
export function tokensEqual(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  // An empty expected token is no token at all: nothing matches it.
  return timingSafeEqual(a, b) && expected.length > 0;
}
