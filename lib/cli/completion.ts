/**
 * Shell completion scripts for bash and zsh, generated from the command tree itself, so a new
 * command or flag completes without anyone editing a script.
 */
import type { Command, Option } from 'commander';

/** The shells `tenantplane completion` writes a script for. */
export type Shell = 'bash' | 'zsh';

interface FlagSpec {
  flags: string[];
  description: string;
  /** The values it takes, when it has a fixed set. */
  choices?: readonly string[];
  /** It takes a file name. */
  file: boolean;
  /** It takes a value at all. */
  value: boolean;
}

interface CommandSpec {
  name: string;
  summary: string;
  flags: FlagSpec[];
  /** The values of its first argument, when they are a fixed set (`completion bash|zsh`). */
  argChoices?: readonly string[];
  /** Its subcommands (`secrets put`). */
  subcommands?: CommandSpec[];
  /** What its first argument is called (`shell`, `subcommand`). */
  argName?: string;
}

function flagSpec(option: Option): FlagSpec {
  const flags = [option.short, option.long].filter((f): f is string => f !== undefined);
  return {
    flags,
    description: option.description,
    ...(option.argChoices ? { choices: option.argChoices } : {}),
    file: /<(file|path)>/.test(option.flags),
    value: option.required || option.optional,
  };
}

const HELP_FLAG: FlagSpec = {
  flags: ['-h', '--help'],
  description: 'show help',
  file: false,
  value: false,
};

function specOf(command: Command): CommandSpec {
  const first = command.registeredArguments[0];
  const subcommands = command.commands.map(specOf);
  // A group (`secrets`) completes its subcommands where another command takes its argument.
  const argChoices = subcommands.length > 0 ? subcommands.map((c) => c.name) : first?.argChoices;
  return {
    name: command.name(),
    summary: command.summary() || command.description(),
    flags: [...command.options.map(flagSpec), HELP_FLAG],
    ...(argChoices ? { argChoices } : {}),
    ...(subcommands.length > 0 ? { subcommands } : {}),
    argName: subcommands.length > 0 ? 'subcommand' : (first?.name() ?? 'argument'),
  };
}

/** The commands of `program` with their flags, in the order `--help` lists them. */
export function commandSpecs(program: Command): CommandSpec[] {
  const specs: CommandSpec[] = program.commands.map(specOf);
  specs.push({ name: 'help', summary: 'show help for a command', flags: [] });
  return specs;
}

function rootFlags(program: Command): FlagSpec[] {
  return [...program.options.map(flagSpec), HELP_FLAG];
}

const words = (list: readonly string[]) => list.join(' ');

function bashCase(pattern: string, spec: CommandSpec, all: readonly CommandSpec[]): string {
  // `help` completes the command names; a command with fixed first arguments those; every
  // command its flags.
  const first = spec.name === 'help' ? all.map((s) => s.name) : (spec.argChoices ?? []);
  const list = [...first, ...spec.flags.flatMap((f) => f.flags)];
  return `    ${pattern}) COMPREPLY=($(compgen -W "${words(list)}" -- "$cur")) ;;`;
}

function bashScript(program: Command): string {
  const specs = commandSpecs(program);
  const nested = specs.flatMap((s) => (s.subcommands ?? []).map((sub) => ({ group: s, sub })));
  const allFlags = [
    ...specs.flatMap((s) => s.flags),
    ...nested.flatMap((n) => n.sub.flags),
    ...rootFlags(program),
  ];
  const fileFlags = [...new Set(allFlags.filter((f) => f.file).flatMap((f) => f.flags))];
  const choiceCases = new Map<string, string[]>();
  for (const flag of allFlags) {
    if (flag.choices) choiceCases.set(words(flag.choices), [...flag.flags]);
  }
  const valueCases = [...choiceCases].map(
    ([choices, flags]) =>
      `    ${[...new Set(flags)].join('|')}) COMPREPLY=($(compgen -W "${choices}" -- "$cur")); return ;;`,
  );
  const groups = specs.filter((s) => s.subcommands).map((s) => s.name);
  const commandCases = [
    ...nested.map((n) => bashCase(`"${n.group.name} ${n.sub.name}"`, n.sub, specs)),
    ...specs.map((spec) => bashCase(spec.name, spec, specs)),
  ];
  return `# tenantplane completion for bash. Load it with: source <(tenantplane completion bash)
# or install it: tenantplane completion bash > ~/.local/share/bash-completion/completions/tenantplane
_tenantplane() {
  local cur prev cmd i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  cmd=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
      -*) ;;
      *)
        if [[ -z "$cmd" ]]; then
          cmd="\${COMP_WORDS[i]}"
          [[ " ${words(groups)} " == *" $cmd "* ]] || break
        else
          cmd="$cmd \${COMP_WORDS[i]}"
          break
        fi
        ;;
    esac
  done
  case "$prev" in
${valueCases.join('\n')}
    ${fileFlags.join('|')}) COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  case "$cmd" in
    "") COMPREPLY=($(compgen -W "${words([...specs.map((s) => s.name), ...rootFlags(program).flatMap((f) => f.flags)])}" -- "$cur")) ;;
${commandCases.join('\n')}
  esac
}
complete -o default -F _tenantplane tenantplane
`;
}

/** Text safe inside a zsh single-quoted `_arguments` or `_describe` item. */
function zshText(text: string): string {
  return text.replace(/[[\]:'\\]/g, '').replace(/\s+/g, ' ');
}

function zshFlag(flag: FlagSpec): string[] {
  const action = flag.choices
    ? `:value:(${words(flag.choices)})`
    : flag.file
      ? ':file:_files'
      : flag.value
        ? ':value: '
        : '';
  return flag.flags.map((f) => `'${f}[${zshText(flag.description)}]${action}'`);
}

function zshArguments(spec: CommandSpec, all: readonly CommandSpec[]): string {
  const args = spec.flags.flatMap(zshFlag);
  const positional = spec.argChoices
    ? `'1:${spec.argName ?? 'argument'}:(${words(spec.argChoices)})'`
    : spec.name === 'help'
      ? `'1:command:(${words(all.map((s) => s.name))})'`
      : `'*:argument: '`;
  return `_arguments ${[...args, positional].join(' \\\n        ')}`;
}

function zshCase(spec: CommandSpec, all: readonly CommandSpec[]): string {
  if (!spec.subcommands) return `    ${spec.name})\n      ${zshArguments(spec, all)} ;;`;
  const inner = spec.subcommands.map(
    (sub) => `          ${sub.name})\n            ${zshArguments(sub, all)} ;;`,
  );
  return `    ${spec.name})
      if (( CURRENT == 2 )); then
        ${zshArguments(spec, all)}
      else
        local sub="$words[2]"
        shift words
        (( CURRENT-- ))
        case "$sub" in
${inner.join('\n')}
        esac
      fi ;;`;
}

function zshScript(program: Command): string {
  const specs = commandSpecs(program);
  const commands = specs.map((s) => `    '${s.name}:${zshText(s.summary)}'`);
  const cases = specs.map((spec) => zshCase(spec, specs));
  return `#compdef tenantplane
# tenantplane completion for zsh. Load it with: source <(tenantplane completion zsh)
# or install it as _tenantplane in a directory of $fpath.
_tenantplane() {
  local -a commands
  commands=(
${commands.join('\n')}
  )
  if (( CURRENT == 2 )); then
    _describe -t commands 'tenantplane command' commands
    _arguments ${rootFlags(program).flatMap(zshFlag).join(' ')}
    return
  fi
  local command="$words[2]"
  shift words
  (( CURRENT-- ))
  case "$command" in
${cases.join('\n')}
  esac
}
if [[ "$funcstack[1]" = _tenantplane ]]; then
  _tenantplane "$@"
else
  compdef _tenantplane tenantplane
fi
`;
}

/** The completion script of `shell` for `program`. */
export function completionScript(program: Command, shell: Shell): string {
  return shell === 'bash' ? bashScript(program) : zshScript(program);
}
