/** `tenantplane completion bash|zsh`: prints the shell completion script (lib/cli/completion.ts). */
import { Argument, type Command } from 'commander';
import { ExitCode } from '../exit-codes.js';
import type { CliIo } from '../io.js';

const SHELLS = ['bash', 'zsh'] as const;

/** Adds `completion` to `program`; add it last, its script covers the commands added before. */
export function addCompletionCommand(
  program: Command,
  io: CliIo,
  setExit: (code: ExitCode) => void,
): void {
  program
    .command('completion')
    .summary('print the shell completion script (bash or zsh)')
    .description(
      'Print the completion script for bash or zsh: commands, flags, -o formats and file names complete on Tab.',
    )
    .addArgument(new Argument('<shell>', 'bash or zsh').choices(SHELLS))
    .addHelpText(
      'after',
      `
Examples:
  $ source <(tenantplane completion bash)        # this shell; add the line to ~/.bashrc to keep it
  $ tenantplane completion bash > ~/.local/share/bash-completion/completions/tenantplane
  $ source <(tenantplane completion zsh)         # zsh, after compinit (e.g. in ~/.zshrc)
  $ tenantplane completion zsh > "\${fpath[1]}/_tenantplane"

The command must be on PATH as "tenantplane" (npm link, or an alias of bin/tenantplane.js).`,
    )
    .action(async (shell: (typeof SHELLS)[number]) => {
      const { completionScript } = await import('../completion.js');
      io.out(completionScript(program, shell));
      setExit(ExitCode.Ok);
    });
}
