/**
 * How the command turns failures into an exit status and one plain sentence on stderr.
 */
import { CommanderError } from 'commander';
import { isClusterError } from '../ports/index.js';
import { ExitCode } from './exit-codes.js';

/** A bad argument or a bad combination of flags, found after commander's own parsing. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A failure the command reports as such (exit 1), with a message already fit for an operator. */
export class CommandError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CommandError';
  }
}

/**
 * The error for a failed read of `what` on the host cluster. An unreachable host is named as
 * such: the operator then fixes the connection, not the object.
 */
export function hostReadError(error: unknown, what: string): CommandError {
  const message = isClusterError(error, 'Transport')
    ? `the host cluster is unreachable: ${messageOf(error)}`
    : `could not read ${what}: ${messageOf(error)}`;
  return new CommandError(message, { cause: error });
}

/** The exit status for an error that ended a command. */
export function exitCodeForError(error: unknown): ExitCode {
  if (error instanceof UsageError) return ExitCode.Usage;
  if (error instanceof CommanderError) {
    // --help and --version "fail" with exit code 0; every parse error is bad usage.
    return error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
  }
  return ExitCode.Failed;
}

/**
 * The message printed for an error: its own message, as one line, never a stack. Messages come
 * from our own errors and the adapters', which name where a kubeconfig came from, never its
 * content. A multi-line message keeps its lines only when asked (local control plane start-up
 * failures carry a log tail worth reading).
 */
export function messageOf(error: unknown, keepLines = false): string {
  const raw = error instanceof Error ? error.message : String(error);
  const text = keepLines ? raw.trim() : raw.replace(/\s*\n\s*/g, ' ').trim();
  return text === '' ? 'unknown error' : text;
}

/**
 * The `error: ...` line for an error that ended a command. A local control plane that failed to
 * start keeps its lines: they carry the log tail that says why.
 */
export function errorLine(error: unknown): string {
  const keepLines = error instanceof Error && error.name === 'LocalClusterError';
  return `error: ${messageOf(error, keepLines)}\n`;
}
