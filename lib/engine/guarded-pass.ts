/**
 * The pass as callers run it: the story of `pass.ts` inside its guards. Every cluster request of
 * the pass ends by the pass deadline plus the reporting reserve (`deadlines.ts`; the work itself
 * ends by the deadline, see `syncKind`).
 */
import { type PassResult, withRequestDeadline } from '../ports/index.js';
import { passEndDeadline } from './deadlines.js';
import { type PassOptions, runPass as runPassStory } from './pass.js';

/**
 * Runs one bounded convergence pass for `options.tenant` (see `pass.ts` for what a pass does and
 * throws), with every request bounded by the deadline and the reserve after it.
 */
export function runPass(options: PassOptions): Promise<PassResult> {
  return withRequestDeadline(passEndDeadline(options.budget ?? {}), () => runPassStory(options));
}
