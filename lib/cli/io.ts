/** The command's view of its terminal, injectable so commands are testable in-process. */
export interface CliIo {
  /** Writes to stdout (results). */
  out(text: string): void;
  /** Writes to stderr (progress, diagnostics, errors). */
  err(text: string): void;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  env: Readonly<Record<string, string | undefined>>;
}

/** The real terminal: the process's stdout, stderr and environment. */
export function processIo(): CliIo {
  return {
    out: (text) => {
      process.stdout.write(text);
    },
    err: (text) => {
      process.stderr.write(text);
    },
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    env: process.env,
  };
}

/**
 * Makes a reader that went away (`tenantplane sync --help | head -1`) end the output quietly:
 * without it the first write after the reader closed raised EPIPE as an uncaught exception with a
 * stack. Later writes are dropped, and the command still runs to its end with its own exit
 * status: a pass is never cut off halfway because nobody reads its report.
 */
export function quietOnClosedPipes(streams: readonly NodeJS.WriteStream[]): void {
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return;
      throw error;
    });
  }
}

/** Colors only on a terminal, and never with `NO_COLOR` set or `TERM=dumb`. */
export function colorsEnabled(io: CliIo): boolean {
  return io.stdoutIsTTY && !io.env.NO_COLOR && io.env.TERM !== 'dumb';
}

/** `[local] ...` lines on stderr while the local control plane starts. */
export function localLog(io: Pick<CliIo, 'err'>): (line: string) => void {
  return (line) => io.err(`[local] ${line}\n`);
}
