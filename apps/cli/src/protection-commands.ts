import { userInfo } from 'node:os';
import type { IpBlockView, MaintenanceSetting } from '@app/contracts';
import { parseIpNetwork } from '@app/infra';
import type { OperatorProtection } from '../../admin/src/index.js';
import { ADMIN_TOKEN_VARIABLE, type AdminAccess, adminToken, callAdmin, serviceUrl, ServiceUnreachable } from './admin-api.js';
import { type CommandInput, UsageError } from './args.js';
import { type CliContext, DatabaseInUseError } from './cli-context.js';

/**
 * `maintenance status|on|off` and `ip-blocks list|lift` (docs/operations.md "Operator CLI"):
 * through the service's admin API when an admin token is at hand and the service answers,
 * otherwise (or with --direct) on the database, as the admin app itself would: audited, with
 * `operator:cli:<user>` as the actor.
 */

type Via = 'http' | 'database';

interface Done<T> {
  readonly result: T;
  readonly via: Via;
}

export async function maintenanceStatus(input: CommandInput, cli: CliContext): Promise<number> {
  const { result, via } = await throughServiceOrDatabase(
    input,
    cli,
    async (access) => (await callAdmin(access, 'GET', '/admin/settings/maintenance')) as MaintenanceSetting,
    (p) => p.maintenance(),
  );
  printMaintenance(result, via, input, cli);
  return 0;
}

export async function maintenanceSwitch(enabled: boolean, input: CommandInput, cli: CliContext): Promise<number> {
  const message = typeof input.options.message === 'string' ? input.options.message.trim() || null : null;
  const { result, via } = await throughServiceOrDatabase(
    input,
    cli,
    async (access) =>
      (await callAdmin(access, 'PUT', '/admin/settings/maintenance', { json: message === null ? { enabled } : { enabled, message } })) as MaintenanceSetting,
    (p) => p.switchMaintenance(enabled, message),
  );
  printMaintenance(result, via, input, cli);
  if (via === 'database') cli.err(APPLIED_NOTE);
  return 0;
}

export async function listBlocks(input: CommandInput, cli: CliContext): Promise<number> {
  const all = input.options.all === true;
  const { result, via } = await throughServiceOrDatabase(
    input,
    cli,
    async (access) => ((await callAdmin(access, 'GET', '/admin/ip-blocks', { query: all ? { all: 'true' } : {} })) as { items: IpBlockView[] }).items,
    (p) => p.listBlocks(all),
  );
  if (input.options.json) {
    cli.out(JSON.stringify({ items: result, via }));
    return 0;
  }
  if (result.length === 0) cli.err(all ? 'no IP blocks' : 'no IP blocks in force');
  for (const b of result) {
    cli.out(
      [b.cidr, `expires ${b.expires_at ?? 'never'}`, `by ${b.created_by}`, `at ${b.created_at}`, ...(b.reason ? [`reason: ${b.reason}`] : [])].join('  '),
    );
  }
  return 0;
}

export async function liftBlock(input: CommandInput, cli: CliContext): Promise<number> {
  // Checked (and normalised) here, as the service would: a typo fails before anything is opened.
  const network = parseIpNetwork(input.args.cidr);
  if ('error' in network) throw new UsageError(network.error);
  const { via } = await throughServiceOrDatabase(
    input,
    cli,
    async (access) => callAdmin(access, 'DELETE', '/admin/ip-blocks', { query: { cidr: network.cidr } }),
    (p) => p.liftBlock(network.cidr),
  );
  if (input.options.json) cli.out(JSON.stringify({ cidr: network.cidr, lifted: true, via }));
  else cli.out(`lifted the block of ${network.cidr}`);
  if (via === 'database') cli.err(APPLIED_NOTE);
  return 0;
}

/** After a change on the database: the gateways learn it from the admin app, not from this process. */
const APPLIED_NOTE =
  'a running service applies it within about 2 s (its gateways re-read the state from the admin app every second); while the admin app is down, once it runs again';

function printMaintenance(setting: MaintenanceSetting, via: Via, input: CommandInput, cli: CliContext): void {
  if (input.options.json) cli.out(JSON.stringify({ ...setting, via }));
  else cli.out(setting.enabled ? `maintenance on: ${setting.message}` : 'maintenance off');
}

/**
 * The service's admin API when a token is at hand, else the database. A service that cannot
 * be used from here (down, its admin app down, this machine's address blocked) falls back to
 * the database, and says so; a refusal (bad token, no such block) is the answer.
 */
async function throughServiceOrDatabase<T>(
  input: CommandInput,
  cli: CliContext,
  http: (access: AdminAccess) => Promise<T>,
  database: (protection: OperatorProtection) => Promise<T>,
): Promise<Done<T>> {
  const tokenFile = typeof input.options['token-file'] === 'string' ? input.options['token-file'] : undefined;
  const url = typeof input.options.url === 'string' ? input.options.url : undefined;
  if (input.options.direct) {
    if (tokenFile !== undefined || url !== undefined) throw new UsageError('--direct works on the database: it takes no --url or --token-file');
  } else {
    const token = await adminToken(tokenFile, cli.env);
    const baseUrl = serviceUrl(url, cli.env);
    if (token === undefined) {
      cli.err(`no admin token (--token-file or ${ADMIN_TOKEN_VARIABLE}): working on the database`);
    } else {
      try {
        return { result: await http({ baseUrl, token }), via: 'http' };
      } catch (err) {
        if (!(err instanceof ServiceUnreachable)) throw err;
        cli.err(`${err.message}: working on the database instead`);
      }
    }
  }
  // The admin app's code is loaded only now: the way through the admin API needs none of it.
  const { withOperatorProtection } = await import('../../admin/src/index.js');
  try {
    const result = await cli.onDatabase((config) => withOperatorProtection(config, operatorActor(cli.env), database));
    return { result, via: 'database' };
  } catch (err) {
    if (!(err instanceof DatabaseInUseError)) throw err;
    throw new DatabaseInUseError(`${err.message} While the service runs, go through its admin API: --token-file <path> or ${ADMIN_TOKEN_VARIABLE}.`);
  }
}

/** The audit actor of a change made here: `operator:cli:<the operating-system user>`. */
export function operatorActor(env: NodeJS.ProcessEnv): string {
  let user: string | undefined;
  try {
    user = userInfo().username;
  } catch {
    // A container's user may have no passwd entry.
    user = env.USER || env.LOGNAME || (process.getuid ? `uid-${process.getuid()}` : undefined);
  }
  return `operator:cli:${user || 'unknown'}`;
}
