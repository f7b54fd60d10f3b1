/**
 * The operator CLI's command line: a tree of commands, each with its arguments and options,
 * parsed the way command-line tools usually are (docs/operations.md "Operator CLI"):
 * `-h`/`--help` anywhere prints the help of the command named so far (even next to a wrong
 * option), `--version` at the top, `--name value` and `--name=value` alike, `--` ends the
 * options. Anything else that is not declared is a UsageError (exit code 2).
 */

/** An option: `value` names its value (`--url <url>`); without it the option is a switch (`--json`). */
export interface OptionSpec {
  readonly name: string;
  readonly value?: string;
  readonly help: string;
}

export interface ArgumentSpec {
  readonly name: string;
  readonly help: string;
}

export interface CommandInput {
  readonly args: Readonly<Record<string, string>>;
  readonly options: Readonly<Record<string, string | true>>;
}

export interface CommandSpec {
  readonly name: string;
  /** One line, shown in the lists of commands. */
  readonly summary: string;
  /** More lines for the command's own help. */
  readonly details?: string;
  readonly args?: readonly ArgumentSpec[];
  readonly options?: readonly OptionSpec[];
  readonly subcommands?: readonly CommandSpec[];
  readonly run?: (input: CommandInput) => Promise<number>;
}

export type ParsedCommandLine =
  | { readonly kind: 'help'; readonly path: readonly CommandSpec[] }
  | { readonly kind: 'version' }
  | { readonly kind: 'run'; readonly path: readonly CommandSpec[]; readonly input: CommandInput };

export class UsageError extends Error {
  constructor(
    message: string,
    /** The command it concerns (its usage line is shown with the error). */
    readonly path: readonly CommandSpec[] = [],
  ) {
    super(message);
  }
}

/** What the CLI says to `--token <value>`: an admin token on the command line shows in `ps` and the shell's history. */
export const TOKEN_ON_COMMAND_LINE =
  'the admin token is never given on the command line (ps and the shell history would show it): use --token-file <path> or the FDS_ADMIN_TOKEN variable';

const HELP_FLAGS = new Set(['-h', '--help']);

export function parseCommandLine(root: CommandSpec, argv: readonly string[]): ParsedCommandLine {
  const end = argv.indexOf('--');
  const before = end === -1 ? argv : argv.slice(0, end);
  const after = end === -1 ? [] : argv.slice(end + 1);

  if (before.some((arg) => HELP_FLAGS.has(arg)))
    return {
      kind: 'help',
      path: commandPath(
        root,
        before.filter((arg) => !arg.startsWith('-')),
        false,
      ),
    };
  if (before[0] === '--version') {
    if (argv.length > 1) throw new UsageError('--version takes nothing else', [root]);
    return { kind: 'version' };
  }
  if (before[0] === 'help') return { kind: 'help', path: commandPath(root, [...before.slice(1), ...after], true) };

  const path: CommandSpec[] = [root];
  let i = 0;
  let command = root;
  while (command.subcommands && i < before.length && !before[i].startsWith('-')) {
    const word = before[i];
    const next = command.subcommands.find((c) => c.name === word);
    if (!next) throw new UsageError(`unknown command ${quoted([...path.slice(1).map((c) => c.name), word].join(' '))}`, path);
    path.push(next);
    command = next;
    i++;
  }
  if (!command.run) {
    const names = (command.subcommands ?? []).map((c) => c.name).join(', ');
    if (i < before.length) optionError(before[i], path);
    throw new UsageError(path.length === 1 ? `a command is needed: ${names}` : `${quoted(commandName(path))} needs a command: ${names}`, path);
  }

  const options: Record<string, string | true> = {};
  const positional: string[] = [];
  for (; i < before.length; i++) {
    const arg = before[i];
    if (!arg.startsWith('-') || arg === '-') {
      positional.push(arg);
      continue;
    }
    if (!arg.startsWith('--')) optionError(arg, path);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    const spec = command.options?.find((o) => o.name === name);
    if (!spec) optionError(`--${name}`, path);
    if (name in options) throw new UsageError(`--${name} is given twice`, path);
    if (spec.value === undefined) {
      if (inline !== undefined) throw new UsageError(`--${name} takes no value`, path);
      options[name] = true;
      continue;
    }
    let value = inline;
    if (value === undefined) {
      const next = before[i + 1];
      // A following option is not taken as the value: `--url --json` is a forgotten value.
      if (next !== undefined && !next.startsWith('--')) {
        value = next;
        i++;
      }
    }
    if (value === undefined || value === '') throw new UsageError(`--${name} needs a value (--${name} <${spec.value}> or --${name}=<${spec.value}>)`, path);
    options[name] = value;
  }
  positional.push(...after);

  const declared = command.args ?? [];
  if (positional.length > declared.length) throw new UsageError(`unexpected argument ${quoted(positional[declared.length])}`, path);
  if (positional.length < declared.length) throw new UsageError(`${quoted(commandName(path))} needs <${declared[positional.length].name}>`, path);
  const args: Record<string, string> = {};
  declared.forEach((a, n) => (args[a.name] = positional[n]));
  return { kind: 'run', path, input: { args, options } };
}

function optionError(arg: string, path: readonly CommandSpec[]): never {
  if (arg === '--token' || arg.startsWith('--token=')) throw new UsageError(TOKEN_ON_COMMAND_LINE, path);
  const where = path.length > 1 ? ` for ${quoted(commandName(path))}` : '';
  throw new UsageError(`unknown option ${arg}${where}`, path);
}

/** The commands `words` name; `strict`: an unknown word is an error (`help <command>`), else help stops at the last known one. */
function commandPath(root: CommandSpec, words: readonly string[], strict: boolean): CommandSpec[] {
  const path = [root];
  for (const word of words) {
    const next = path[path.length - 1].subcommands?.find((c) => c.name === word);
    if (!next) {
      if (strict) throw new UsageError(`unknown command ${quoted([...path.slice(1).map((c) => c.name), word].join(' '))}`, path);
      break;
    }
    path.push(next);
  }
  return path;
}

/** `ip-blocks lift`: the words that run a command (the root has none). */
export function commandName(path: readonly CommandSpec[]): string {
  return path
    .slice(1)
    .map((c) => c.name)
    .join(' ');
}

function quoted(text: string): string {
  return `"${text}"`;
}

const WIDTH = 28;

/** The help of the last command of `path`: its usage, what it does, its commands or its arguments and options. */
export function renderHelp(path: readonly CommandSpec[], program: string): string {
  const command = path[path.length - 1];
  const lines = [`Usage: ${usageLine(path, program)}`, '', command.summary];
  if (command.details) lines.push('', command.details);
  if (command.subcommands) {
    lines.push('', 'Commands:');
    for (const leaf of leaves(command, path)) lines.push(row(commandName(leaf) + argumentNames(leaf[leaf.length - 1]), leaf[leaf.length - 1].summary));
  }
  if (command.args?.length) {
    lines.push('', 'Arguments:');
    for (const a of command.args) lines.push(row(`<${a.name}>`, a.help));
  }
  lines.push('', 'Options:');
  for (const o of command.options ?? []) lines.push(row(`--${o.name}${o.value ? ` <${o.value}>` : ''}`, o.help));
  lines.push(row('-h, --help', 'Print this help.'));
  if (path.length === 1) lines.push(row('--version', 'Print the version.'));
  if (command.subcommands) lines.push('', `Each command has its own help: ${program} <command> --help.`);
  return lines.join('\n') + '\n';
}

export function usageLine(path: readonly CommandSpec[], program: string): string {
  const command = path[path.length - 1];
  const words = [program, commandName(path)].filter(Boolean).join(' ');
  if (command.subcommands) return `${words} <command> [options]`;
  return `${words}${argumentNames(command)}${command.options?.length ? ' [options]' : ''}`;
}

function argumentNames(command: CommandSpec): string {
  return (command.args ?? []).map((a) => ` <${a.name}>`).join('');
}

/** Every runnable command under `command`, as paths from the root. */
function leaves(command: CommandSpec, path: readonly CommandSpec[]): CommandSpec[][] {
  return (command.subcommands ?? []).flatMap((sub) => {
    const subPath = [...path, sub];
    return sub.subcommands ? leaves(sub, subPath) : [subPath];
  });
}

function row(left: string, right: string): string {
  const [first, ...more] = right.split('\n');
  const pad = ' '.repeat(WIDTH);
  const head = left.length + 2 < WIDTH ? `  ${left.padEnd(WIDTH - 2)}${first}` : `  ${left}\n${pad}${first}`;
  return [head, ...more.map((line) => pad + line)].join('\n');
}
