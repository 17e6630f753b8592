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

/** Colors only on a terminal, and never with `NO_COLOR` set or `TERM=dumb`. */
export function colorsEnabled(io: CliIo): boolean {
  return io.stdoutIsTTY && !io.env.NO_COLOR && io.env.TERM !== 'dumb';
}

/** `[local] ...` lines on stderr while the local control plane starts. */
export function localLog(io: Pick<CliIo, 'err'>): (line: string) => void {
  return (line) => io.err(`[local] ${line}\n`);
}
