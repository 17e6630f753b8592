/** A function's stdout/stderr, captured in-process (the sync handler logs there, as in Lambda). */
import { jest } from '@jest/globals';

/** Runs `fn` with stdout/stderr captured; returns what was written plus fn's outcome. */
export async function captured<T>(
  fn: () => Promise<T>,
): Promise<{ out: string; result?: T; error?: Error }> {
  const chunks: string[] = [];
  const capture = (chunk: unknown) => {
    chunks.push(String(chunk));
    return true;
  };
  const spies = [
    jest.spyOn(process.stdout, 'write').mockImplementation(capture),
    jest.spyOn(process.stderr, 'write').mockImplementation(capture),
  ];
  try {
    const result = await fn();
    return { out: chunks.join(''), result };
  } catch (error) {
    return { out: chunks.join(''), error: error as Error };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}
