import { describe, expect, it } from '@jest/globals';
import { type CommandSpec, parseCommandLine, renderHelp, TOKEN_ON_COMMAND_LINE, UsageError, usageLine } from './args.js';

const run = async () => 0;
const lift: CommandSpec = {
  name: 'lift',
  summary: 'Remove a block.',
  args: [{ name: 'cidr', help: 'The network.' }],
  options: [
    { name: 'url', value: 'url', help: 'Where.' },
    { name: 'json', help: 'As JSON.' },
  ],
  run,
};
const root: CommandSpec = {
  name: '',
  summary: 'The tool.',
  subcommands: [
    { name: 'ip-blocks', summary: 'Blocks.', subcommands: [{ name: 'list', summary: 'List them.', options: [{ name: 'all', help: 'All.' }], run }, lift] },
    { name: 'migrate', summary: 'Migrate.', run },
  ],
};

function usageError(argv: string[]): UsageError {
  try {
    parseCommandLine(root, argv);
  } catch (err) {
    if (err instanceof UsageError) return err;
    throw err;
  }
  throw new Error(`${argv.join(' ')} was accepted`);
}

describe('parseCommandLine', () => {
  it('reads --name value and --name=value alike, switches, and the arguments in any order', () => {
    for (const argv of [
      ['ip-blocks', 'lift', '10.0.0.1', '--url', 'http://x', '--json'],
      ['ip-blocks', 'lift', '--url=http://x', '10.0.0.1', '--json'],
      ['ip-blocks', 'lift', '--json', '--url=http://x', '--', '10.0.0.1'],
    ]) {
      expect(parseCommandLine(root, argv)).toEqual({
        kind: 'run',
        path: [root, root.subcommands![0], lift],
        input: { args: { cidr: '10.0.0.1' }, options: { url: 'http://x', json: true } },
      });
    }
  });

  it('keeps an = inside a value, and takes anything after -- as an argument', () => {
    expect(parseCommandLine(root, ['ip-blocks', 'lift', '--url=http://x/?a=b', '--', '--json'])).toMatchObject({
      input: { args: { cidr: '--json' }, options: { url: 'http://x/?a=b' } },
    });
  });

  it('answers -h and --help anywhere with the help of the command named so far, even next to a wrong option', () => {
    expect(parseCommandLine(root, ['--help'])).toEqual({ kind: 'help', path: [root] });
    expect(parseCommandLine(root, ['ip-blocks', '-h'])).toEqual({ kind: 'help', path: [root, root.subcommands![0]] });
    expect(parseCommandLine(root, ['ip-blocks', 'lift', '--bogus', '--help'])).toEqual({ kind: 'help', path: [root, root.subcommands![0], lift] });
    expect(parseCommandLine(root, ['ip-blocks', 'nope', '-h'])).toEqual({ kind: 'help', path: [root, root.subcommands![0]] });
    expect(parseCommandLine(root, ['help', 'ip-blocks', 'lift'])).toEqual({ kind: 'help', path: [root, root.subcommands![0], lift] });
    expect(parseCommandLine(root, ['help'])).toEqual({ kind: 'help', path: [root] });
    // After --, -h is an argument.
    expect(parseCommandLine(root, ['ip-blocks', 'lift', '--', '-h'])).toMatchObject({ kind: 'run', input: { args: { cidr: '-h' } } });
  });

  it('answers --version', () => {
    expect(parseCommandLine(root, ['--version'])).toEqual({ kind: 'version' });
  });

  it.each([
    [['nope'], 'unknown command "nope"'],
    [['ip-blocks', 'drop'], 'unknown command "ip-blocks drop"'],
    [['help', 'ip-blocks', 'drop'], 'unknown command "ip-blocks drop"'],
    [[], 'a command is needed: ip-blocks, migrate'],
    [['ip-blocks'], '"ip-blocks" needs a command: list, lift'],
    [['ip-blocks', '--all'], 'unknown option --all'],
    [['ip-blocks', 'list', '--bogus'], 'unknown option --bogus for "ip-blocks list"'],
    [['ip-blocks', 'list', '-x'], 'unknown option -x for "ip-blocks list"'],
    [['ip-blocks', 'list', '--all=yes'], '--all takes no value'],
    [['ip-blocks', 'list', '--all', '--all'], '--all is given twice'],
    [['ip-blocks', 'lift', '10.0.0.1', '--url'], '--url needs a value (--url <url> or --url=<url>)'],
    [['ip-blocks', 'lift', '10.0.0.1', '--url='], '--url needs a value'],
    [['ip-blocks', 'lift', '10.0.0.1', '--url', '--json'], '--url needs a value'],
    [['ip-blocks', 'lift'], '"ip-blocks lift" needs <cidr>'],
    [['ip-blocks', 'lift', 'a', 'b'], 'unexpected argument "b"'],
    [['migrate', 'now'], 'unexpected argument "now"'],
    [['--version', 'migrate'], '--version takes nothing else'],
  ])('refuses %j: %s', (argv, message) => {
    expect(usageError(argv).message).toContain(message);
  });

  it('refuses an admin token on the command line, in either form, without echoing it', () => {
    for (const argv of [
      ['ip-blocks', 'list', '--token', 'secret-value'],
      ['ip-blocks', 'list', '--token=secret-value'],
    ]) {
      const err = usageError(argv);
      expect(err.message).toBe(TOKEN_ON_COMMAND_LINE);
      expect(err.message).not.toContain('secret-value');
    }
  });

  it('names the command a usage error concerns', () => {
    expect(usageError(['ip-blocks', 'list', '--bogus']).path.map((c) => c.name)).toEqual(['', 'ip-blocks', 'list']);
  });
});

describe('renderHelp', () => {
  it('lists every command under a group with its arguments, and the options every command has', () => {
    const help = renderHelp([root], 'tool');
    expect(help).toContain('Usage: tool <command> [options]');
    expect(help).toMatch(/^ {2}ip-blocks list +List them\.$/m);
    expect(help).toMatch(/^ {2}ip-blocks lift <cidr> +Remove a block\.$/m);
    expect(help).toMatch(/^ {2}migrate +Migrate\.$/m);
    expect(help).toMatch(/^ {2}-h, --help +Print this help\.$/m);
    expect(help).toMatch(/^ {2}--version +Print the version\.$/m);
  });

  it("shows a command's usage, arguments and options", () => {
    const help = renderHelp([root, root.subcommands![0], lift], 'tool');
    expect(help.split('\n').slice(0, 3)).toEqual(['Usage: tool ip-blocks lift <cidr> [options]', '', 'Remove a block.']);
    expect(help).toMatch(/^ {2}<cidr> +The network\.$/m);
    expect(help).toMatch(/^ {2}--url <url> +Where\.$/m);
    expect(help).toMatch(/^ {2}--json +As JSON\.$/m);
    expect(help).toMatch(/^ {2}-h, --help +Print this help\.$/m);
    expect(help).not.toContain('--version');
  });

  it('writes the usage line of a group and of a command without options', () => {
    expect(usageLine([root, root.subcommands![0]], 'tool')).toBe('tool ip-blocks <command> [options]');
    expect(usageLine([root, root.subcommands![1]], 'tool')).toBe('tool migrate');
  });
});
