import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CommandSpec } from './args.js';
import { commands, runCli } from './cli.js';
import { cliContext } from './cli-context.js';

/** An environment no command that needs the configuration accepts. */
const BAD_ENV = { PORT: 'abc', DATABASE_URL: 'not a url', BACKUP_PUBLIC_KEY: 'garbage' };

async function cli(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    argv,
    cliContext(
      env,
      (line) => out.push(line),
      (line) => err.push(line),
    ),
  );
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

/** Every command line that names a command or a group, e.g. ['ip-blocks', 'lift']. */
function commandPaths(spec: CommandSpec, prefix: string[] = []): string[][] {
  return (spec.subcommands ?? []).flatMap((sub) => [[...prefix, sub.name], ...commandPaths(sub, [...prefix, sub.name])]);
}

const ALL = commandPaths(
  commands(
    cliContext(
      {},
      () => undefined,
      () => undefined,
    ),
  ),
).filter((p) => p[0] !== 'help');

describe('operator CLI command line', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fds-cli-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('prints the help of everything with a configuration the service would refuse', async () => {
    const help = await cli(['--help'], BAD_ENV);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    for (const command of [
      'migrate',
      'token create',
      'backup keygen',
      'backup verify <archive>',
      'maintenance status',
      'maintenance on',
      'maintenance off',
      'ip-blocks list',
      'ip-blocks lift <cidr>',
      'rotate-update-key',
    ]) {
      expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    }
    expect((await cli(['help'], BAD_ENV)).stdout).toBe(help.stdout);
  });

  it.each(ALL.map((p) => [p.join(' ')]))('"%s" answers -h and --help with its own usage', async (command) => {
    const words = command.split(' ');
    for (const flag of ['-h', '--help']) {
      const help = await cli([...words, flag], BAD_ENV);
      expect(help).toMatchObject({ code: 0, stderr: '' });
      expect(help.stdout).toMatch(new RegExp(`^Usage: npm run -s cli -- ${command}( |$)`, 'm'));
      expect(help.stdout).toMatch(/^ {2}-h, --help +Print this help\.$/m);
    }
    expect((await cli(['help', ...words], BAD_ENV)).stdout).toBe((await cli([...words, '--help'], BAD_ENV)).stdout);
  });

  it("prints package.json's version", async () => {
    const { version } = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as { version: string };
    expect(await cli(['--version'], BAD_ENV)).toEqual({ code: 0, stdout: version, stderr: '' });
    expect(await cli(['version'], BAD_ENV)).toEqual({ code: 0, stdout: version, stderr: '' });
  });

  it('answers a wrong command line with the error, the usage line and exit code 2', async () => {
    const unknown = await cli(['ip-blocks', 'remove', '10.0.0.1'], BAD_ENV);
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr.split('\n')).toEqual([
      'error: unknown command "ip-blocks remove"',
      'usage: npm run -s cli -- ip-blocks <command> [options]',
      '(npm run -s cli -- ip-blocks --help says more)',
    ]);
    const option = await cli(['maintenance', 'off', '--force'], BAD_ENV);
    expect(option).toMatchObject({ code: 2, stdout: '' });
    expect(option.stderr).toContain('error: unknown option --force for "maintenance off"\nusage: npm run -s cli -- maintenance off [options]');
    expect(await cli([], BAD_ENV)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('error: a command is needed: migrate, token, backup, maintenance, ip-blocks'),
    });
  });

  it('checks arguments before it reads the configuration or opens anything', async () => {
    const cidr = await cli(['ip-blocks', 'lift', '10.0.0.300', '--direct'], BAD_ENV);
    expect(cidr).toMatchObject({ code: 2, stdout: '' });
    expect(cidr.stderr).toMatch(/^error: cidr .*10\.0\.0\.300/);
    expect(await cli(['token', 'create', '--customer', 'acme.example'], BAD_ENV)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('token create needs --customer and --email'),
    });
    expect(await cli(['token', 'create', '--customer=a.example', '--email=a@a.example', '--days=0'], BAD_ENV)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--days must be an integer from 1 to 365'),
    });
    expect(await cli(['maintenance', 'off', '--direct', '--url', 'http://localhost:1'], BAD_ENV)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--direct works on the database: it takes no --url or --token-file'),
    });
  });

  it('reads the configuration only for a command that needs it, and then names what is wrong', async () => {
    const direct = await cli(['maintenance', 'status', '--direct'], BAD_ENV);
    expect(direct).toMatchObject({ code: 1, stdout: '' });
    expect(direct.stderr).toMatch(/^error: .*PORT must be an integer/);
  });

  it('takes the admin token from --token-file or FDS_ADMIN_TOKEN, never from an argument', async () => {
    const refused = await cli(['ip-blocks', 'list', '--token', 'secret-value'], BAD_ENV);
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toContain('use --token-file <path> or the FDS_ADMIN_TOKEN variable');
    expect(refused.stderr).not.toContain('secret-value');

    const empty = join(dir, 'empty');
    await writeFile(empty, '\n');
    expect(await cli(['ip-blocks', 'list', '--token-file', empty], BAD_ENV)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(`--token-file ${empty} is empty`),
    });
    expect(await cli(['ip-blocks', 'list', '--token-file', join(dir, 'missing')], BAD_ENV)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('no such file'),
    });

    const report = await cli(['backup', 'verify', 'x.age', '--key', 'k', '--report', 'http://localhost:1'], BAD_ENV);
    expect(report).toMatchObject({ code: 2, stderr: expect.stringContaining('--report needs an admin token: --token-file <path> or FDS_ADMIN_TOKEN') });
  });

  it('refuses a service address that is no http(s) URL', async () => {
    expect(await cli(['ip-blocks', 'list', '--url', 'ftp://x'], { FDS_ADMIN_TOKEN: 't' })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('is not http(s)'),
    });
    expect(await cli(['ip-blocks', 'list'], { FDS_ADMIN_TOKEN: 't', FDS_URL: 'no url' })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('is no URL'),
    });
  });
});
