import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Bundle, BUNDLES } from '@app/contracts';
import { ACCESS_OPTIONS, ADMIN_TOKEN_VARIABLE, adminToken, serviceUrl } from './admin-api.js';
import { type CommandInput, type CommandSpec, type OptionSpec, parseCommandLine, renderHelp, UsageError, usageLine } from './args.js';
import { type CliContext, DatabaseInUseError } from './cli-context.js';

/** How the help names the CLI. */
export const PROGRAM = 'npm run -s cli --';

const JSON_OPTION = { name: 'json', help: 'Print the result as JSON.' } as const;

function text(input: CommandInput, name: string): string | undefined {
  const value = input.options[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Every command. The implementations are loaded when they run, so that help, --version and
 * a wrong command line answer without loading the apps.
 */
export function commands(cli: CliContext): CommandSpec {
  return {
    name: '',
    summary: 'The operator CLI of the firmware distribution service (docs/operations.md, "Operator CLI").',
    details: [
      "Commands that need the service's configuration read it from the environment, like the service:",
      'DATABASE_URL (else the embedded database in DATA_DIR), PUBLIC_URL, ... Standard output carries',
      'only the result (with --json: one JSON document); notes and errors go to standard error.',
      'Exit codes: 0 done, 1 failed, 2 wrong command line, 3 DATA_DIR in use by a running server.',
    ].join('\n'),
    subcommands: [
      {
        name: 'migrate',
        summary: "Run every app's pending migrations (DATABASE_URL, or DATA_DIR when unset).",
        details: 'Prints one JSON report per schema and line (with --json: all of them as one JSON array).',
        options: [JSON_OPTION],
        run: async (input) => (await import('./database-commands.js')).migrate(cli, input.options.json === true),
      },
      {
        name: 'token',
        summary: 'API tokens.',
        subcommands: [
          {
            name: 'create',
            summary: 'Print a new API token for a member of a customer (straight from the database).',
            options: [
              { name: 'customer', value: 'domain', help: "The customer's domain (required)." },
              { name: 'email', value: 'email', help: "The member's address (required)." },
              { name: 'bundle', value: 'bundle', help: `${BUNDLES.join(' | ')} (default full).` },
              { name: 'name', value: 'name', help: 'The token\'s name (default "cli").' },
              { name: 'days', value: '1-365', help: 'Days until it expires (default 90).' },
              { name: 'json', help: 'Print the created token with its id, bundle and expiry as JSON.' },
            ],
            run: async (input) => {
              const customer = text(input, 'customer');
              const email = text(input, 'email');
              if (!customer || !email) throw new UsageError('token create needs --customer and --email');
              const bundle = (text(input, 'bundle') ?? 'full') as Bundle;
              if (!BUNDLES.includes(bundle)) throw new UsageError(`--bundle must be one of ${BUNDLES.join(', ')}`);
              const daysText = text(input, 'days');
              const days = daysText === undefined ? undefined : Number(daysText);
              if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > 365)) throw new UsageError('--days must be an integer from 1 to 365');
              const request = { customerDomain: customer, email, name: text(input, 'name') ?? 'cli', bundle, expiresInDays: days };
              return (await import('./database-commands.js')).createToken(cli, request, input.options.json === true);
            },
          },
        ],
      },
      {
        name: 'backup',
        summary: 'Backup keys and archives.',
        subcommands: [
          {
            name: 'keygen',
            summary: 'Print a new backup key pair: an age key file (stdout) whose public key goes into BACKUP_PUBLIC_KEY.',
            details: 'The secret key stays off the service: verify and restore take it. Without it no archive can be read.',
            options: [{ name: 'json', help: 'Print {created_at, public_key, secret_key} as JSON instead of the key file.' }],
            run: async (input) => (await import('./backup-commands.js')).keygen(cli, input.options.json === true),
          },
          {
            name: 'verify',
            summary: 'Decrypt an archive and check it against its manifest, offline (exit code 1: it did not verify).',
            details: `With --report, record the result on the service (POST /admin/backups/verify-report) with the admin token\nof --token-file or ${ADMIN_TOKEN_VARIABLE}.`,
            args: [{ name: 'archive', help: 'The archive file.' }],
            options: [
              { name: 'key', value: 'key file | env:VARIABLE', help: 'The secret backup key (required).' },
              { name: 'report', value: 'base url', help: 'The service to record the result on.' },
              { name: 'token-file', value: 'path', help: `A file holding an admin token, for --report (default: ${ADMIN_TOKEN_VARIABLE}).` },
              { name: 'json', help: 'Print {archive_name, ok, detail, report_id} as JSON.' },
            ],
            run: async (input) => {
              const key = text(input, 'key');
              if (!key) throw new UsageError('backup verify needs --key <key file | env:VARIABLE>');
              const report = text(input, 'report');
              const token = await adminToken(text(input, 'token-file'), cli.env);
              if (report === undefined && text(input, 'token-file') !== undefined) throw new UsageError('--token-file goes with --report');
              if (report !== undefined && token === undefined)
                throw new UsageError(`--report needs an admin token: --token-file <path> or ${ADMIN_TOKEN_VARIABLE}`);
              const access = report === undefined || token === undefined ? undefined : { baseUrl: serviceUrl(report, cli.env), token };
              const backup = await import('./backup-commands.js');
              return backup.verify(input.args.archive, { key, report: access, json: input.options.json === true }, cli);
            },
          },
        ],
      },
      {
        name: 'maintenance',
        summary: 'Maintenance mode (writes answered 503).',
        details: protectionDetails,
        subcommands: [
          {
            name: 'status',
            summary: 'Print whether maintenance mode is on, and its message.',
            details: protectionDetails,
            options: protectionOptions(),
            run: async (input) => (await import('./protection-commands.js')).maintenanceStatus(input, cli),
          },
          {
            name: 'on',
            summary: 'Turn maintenance mode on.',
            details: protectionDetails,
            options: [{ name: 'message', value: 'text', help: 'What refused writes are told (default: the standard message).' }, ...protectionOptions()],
            run: async (input) => (await import('./protection-commands.js')).maintenanceSwitch(true, input, cli),
          },
          {
            name: 'off',
            summary: 'Turn maintenance mode off.',
            details: protectionDetails,
            options: protectionOptions(),
            run: async (input) => (await import('./protection-commands.js')).maintenanceSwitch(false, input, cli),
          },
        ],
      },
      {
        name: 'ip-blocks',
        summary: 'IP blocks (every request from a blocked network answered 403).',
        details: protectionDetails,
        subcommands: [
          {
            name: 'list',
            summary: 'List the IP blocks in force, newest first.',
            details: protectionDetails,
            options: [{ name: 'all', help: 'Expired blocks too.' }, ...protectionOptions()],
            run: async (input) => (await import('./protection-commands.js')).listBlocks(input, cli),
          },
          {
            name: 'lift',
            summary: 'Remove the block of an address or network (exit code 1: it has none).',
            details: protectionDetails,
            args: [{ name: 'cidr', help: 'The blocked address or network, e.g. 203.0.113.7 or 203.0.113.0/24.' }],
            options: protectionOptions(),
            run: async (input) => (await import('./protection-commands.js')).liftBlock(input, cli),
          },
        ],
      },
      {
        name: 'rotate-update-key',
        summary: 'Publish a new key for signing update-check answers (POST /admin/update-signing-keys/rotate).',
        details: [
          'The new key is in /.well-known/jwks.json at once and signs after --starts-in seconds (default 86400: devices',
          'that refresh their key set daily have it first; 0 for an emergency switch); the keys it replaces stay',
          `published 86400 s longer. Through the service's admin API only (--token-file, or ${ADMIN_TOKEN_VARIABLE}).`,
        ].join('\n'),
        options: [
          { name: 'starts-in', value: 'seconds', help: 'Seconds until the new key signs (0 to 2592000; default 86400).' },
          ACCESS_OPTIONS[0],
          ACCESS_OPTIONS[1],
          { name: 'json', help: 'Print the published keys {keys: [{kid, created_at, signs_from, published_until}]} as JSON.' },
        ],
        run: async (input) => (await import('./update-key-commands.js')).rotateUpdateKey(input, cli),
      },
      {
        name: 'version',
        summary: 'Print the version.',
        run: async () => {
          cli.out(version());
          return 0;
        },
      },
      {
        name: 'help',
        summary: 'Print the help of the CLI, or of a command (help <command>).',
        run: async () => 0,
      },
    ],
  };
}

const protectionDetails = [
  `Goes through the service's admin API when an admin token is at hand (--token-file, or ${ADMIN_TOKEN_VARIABLE}) and`,
  'the service answers; otherwise, or with --direct, works on the database as the admin app would (audited, actor',
  'operator:cli:<user>). Running gateways apply a change made on the database within about 2 s. The embedded',
  'database (DATA_DIR) cannot be opened while the service runs: then use the admin API.',
].join('\n');

function protectionOptions(): readonly OptionSpec[] {
  return [...ACCESS_OPTIONS, JSON_OPTION];
}

/** package.json's version: the nearest package.json above this module (the same from dist/ and from the sources). */
export function version(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return 'unknown';
    dir = parent;
  }
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
}

/** Runs one command line; returns the exit code (0 done, 1 failed, 2 wrong command line, 3 DATA_DIR in use). */
export async function runCli(argv: readonly string[], cli: CliContext): Promise<number> {
  const root = commands(cli);
  let running: readonly CommandSpec[] = [root];
  try {
    const parsed = parseCommandLine(root, argv);
    switch (parsed.kind) {
      case 'help':
        cli.out(renderHelp(parsed.path, PROGRAM).trimEnd());
        return 0;
      case 'version':
        cli.out(version());
        return 0;
      case 'run':
        running = parsed.path;
        return await parsed.path[parsed.path.length - 1].run!(parsed.input);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      const path = err.path.length > 0 ? err.path : running;
      cli.err(`error: ${err.message}\nusage: ${usageLine(path, PROGRAM)}\n(${[PROGRAM, ...path.slice(1).map((c) => c.name), '--help'].join(' ')} says more)`);
      return 2;
    }
    if (err instanceof DatabaseInUseError) {
      cli.err(`error: ${err.message}`);
      return 3;
    }
    // The service's refusals, unreachable services, ServiceErrors of the use cases, a bad configuration.
    cli.err(`error: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}
