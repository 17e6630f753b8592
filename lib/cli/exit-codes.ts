/**
 * Exit statuses of the `tenantplane` command. Scripts (and the schedule's operators) branch on
 * them, so they are part of the interface: documented in `--help` and never renumbered.
 */
import type { PassResult } from '../ports/index.js';

export const ExitCode = {
  /** The command did what it was asked; for sync and plan: a complete pass without errors. */
  Ok: 0,
  /** A pass-level failure: unreachable cluster, missing TenantCluster, bad kubeconfig, a missing object. */
  Failed: 1,
  /** Bad usage: unknown flag, bad argument, missing argument. Nothing was attempted. */
  Usage: 2,
  /** The pass ran but left work for the next one: a bound stopped it or some objects failed. */
  Incomplete: 3,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The `--help` paragraph documenting {@link ExitCode}. */
export const EXIT_CODES_HELP = `Exit status:
  ${ExitCode.Ok}  complete pass (every object converged); any other command: it succeeded
  ${ExitCode.Failed}  failed: unreachable cluster, missing TenantCluster, bad kubeconfig or policy
  ${ExitCode.Usage}  bad usage: unknown flag, bad or missing argument (nothing was attempted)
  ${ExitCode.Incomplete}  incomplete pass: a bound (--deadline, --max-writes) stopped it, a listing
     failed, or some objects failed; the next pass continues where this one stopped`;

/** The exit status of a finished pass. */
export function exitCodeForPass(result: Pick<PassResult, 'complete' | 'errors'>): ExitCode {
  return result.complete && result.errors.length === 0 ? ExitCode.Ok : ExitCode.Incomplete;
}
