// Operator CLI: `npm run -s cli -- <command>` (-s: without npm's banner, stdout carries only
// the command's output, e.g. TOKEN=$(npm run -s cli -- token create ...); log lines go to
// stderr). Works against the distributed database (DATABASE_URL) or, in embedded mode,
// against DATA_DIR — refusing, with the lock file's explanation, to open the data directory
// of a running server.
import type { Bundle } from '@app/contracts';
import type { ServiceConfig } from '@app/infra';
import { exitUnlessSupportedNode } from '../../../libs/infra/src/runtime/supported-node.js';

// The runtime check runs before anything else is loaded (docs/operations.md, "Runtime").
exitUnlessSupportedNode();
const { BACKEND_APPS, BUNDLES } = await import('@app/contracts');
const { acquireDataDirLock, closeDatabases, configureLogging, DataDirLockedError, loadConfig, migrateAppDatabases } = await import('@app/infra');
const { issueTokenForMember } = await import('../../identity/src/index.js');
const { BACKEND_MODULES } = await import('../../standalone/src/app-modules.js');
const backup = await import('./backup-commands.js');

const USAGE = `Usage: npm run -s cli -- <command>

Commands:
  migrate                               Run every app's pending migrations (DATABASE_URL, or DATA_DIR when unset).
  token create --customer <domain> --email <email> [--bundle read-only|uploader|full|admin] [--name <name>] [--days <1-365>]
                                        Print a new API token for a member of a customer.
${backup.BACKUP_USAGE}
  help                                  This text.
`;

class UsageError extends Error {}

// stdout carries only the command's result (a token, migration reports): log lines go to stderr.
configureLogging({ sink: (line) => process.stderr.write(line + '\n') });

function flags(args: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument ${arg}`);
    const value = args[i + 1];
    if (value === undefined || value.startsWith('--')) throw new UsageError(`${arg} needs a value`);
    out[arg.slice(2)] = value;
    i++;
  }
  return out;
}

/** Embedded mode: take DATA_DIR's lock so a running server's database is never opened twice. */
function lockEmbedded(config: ServiceConfig): () => void {
  return config.databaseUrl ? () => undefined : acquireDataDirLock(config.dataDir);
}

async function migrate(config: ServiceConfig): Promise<void> {
  const release = lockEmbedded(config);
  try {
    const reports = await migrateAppDatabases(
      config,
      BACKEND_APPS.map((app) => BACKEND_MODULES[app].database),
    );
    for (const report of reports) console.log(JSON.stringify(report));
  } finally {
    await closeDatabases();
    release();
  }
}

async function createToken(config: ServiceConfig, publicUrlSet: boolean, args: string[]): Promise<void> {
  const options = flags(args);
  const customer = options.customer;
  const email = options.email;
  if (!customer || !email) throw new UsageError('token create needs --customer and --email');
  const bundle = (options.bundle ?? 'full') as Bundle;
  if (!BUNDLES.includes(bundle)) throw new UsageError(`--bundle must be one of ${BUNDLES.join(', ')}`);
  const days = options.days === undefined ? undefined : Number(options.days);
  if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > 365)) throw new UsageError('--days must be an integer from 1 to 365');
  if (!publicUrlSet) {
    // The token names its issuer; a server reached at another address rejects the token.
    console.error(
      `warning: PUBLIC_URL is not set, so the token is issued for ${config.publicUrl} (the default); a server with another PUBLIC_URL or port rejects it: set PUBLIC_URL to the server's public URL`,
    );
  }
  const release = lockEmbedded(config);
  try {
    // The audit entry waits in the identity outbox: the identity app relays it to the admin app (now, or when it next runs).
    const created = await issueTokenForMember(config, { customerDomain: customer, email, name: options.name ?? 'cli', bundle, expiresInDays: days });
    console.error(`token ${created.id} for ${email} in ${customer}, bundle ${created.bundle}, expires ${created.expires_at}`);
    console.log(created.token);
  } finally {
    await closeDatabases();
    release();
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  const config = loadConfig();
  switch (command) {
    case 'migrate':
      await migrate(config);
      return 0;
    case 'token':
      if (sub !== 'create') throw new UsageError('unknown token command (try: token create)');
      await createToken(config, Boolean(process.env.PUBLIC_URL), rest);
      return 0;
    case 'backup':
      if (sub === 'keygen') {
        await backup.keygen();
        return 0;
      }
      if (sub === 'verify') return backup.verify(rest, flags);
      throw new UsageError('unknown backup command (try: backup keygen, backup verify)');
    case undefined:
    case 'help':
    case '--help':
      console.log(USAGE);
      return 0;
    default:
      throw new UsageError(`unknown command ${command}`);
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  if (err instanceof UsageError || err instanceof backup.BackupUsageError) {
    console.error(`error: ${err.message}\n\n${USAGE}`);
    process.exitCode = 2;
  } else if (err instanceof DataDirLockedError) {
    console.error(`error: ${err.message}`);
    process.exitCode = 3;
  } else {
    console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
}
