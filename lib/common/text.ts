/** Small wording helpers for messages humans read (reasons, Events, CLI output). */

/** `1 write`, `3 writes`; `many` for irregular plurals. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** An error's message, for humans; never the object it was about. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : 'unknown error';
}
