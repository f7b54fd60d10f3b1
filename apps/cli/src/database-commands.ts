import { BACKEND_APPS, type IssueTokenRequest } from '@app/contracts';
import { migrateAppDatabases } from '@app/infra';
import { issueTokenForMember } from '../../identity/src/index.js';
import { BACKEND_MODULES } from '../../standalone/src/app-modules.js';
import type { CliContext } from './cli-context.js';

/** `migrate`: every app's pending migrations, one advisory lock per schema (safe next to running apps). */
export async function migrate(cli: CliContext, json: boolean): Promise<number> {
  const reports = await cli.onDatabase((config) =>
    migrateAppDatabases(
      config,
      BACKEND_APPS.map((app) => BACKEND_MODULES[app].database),
    ),
  );
  if (json) cli.out(JSON.stringify(reports));
  else for (const report of reports) cli.out(JSON.stringify(report));
  return 0;
}

/** `token create`: a token for a member, straight from the identity schema (no running service needed). */
export async function createToken(cli: CliContext, request: IssueTokenRequest, json: boolean): Promise<number> {
  const config = cli.config();
  if (!cli.env.PUBLIC_URL) {
    // The token names its issuer; a server reached at another address rejects the token.
    cli.err(
      `warning: PUBLIC_URL is not set, so the token is issued for ${config.publicUrl} (the default); a server with another PUBLIC_URL or port rejects it: set PUBLIC_URL to the server's public URL`,
    );
  }
  // The audit entry waits in the identity outbox: the identity app relays it to the admin app (now, or when it next runs).
  const created = await cli.onDatabase((c) => issueTokenForMember(c, request));
  if (json) {
    cli.out(JSON.stringify(created));
  } else {
    cli.err(`token ${created.id} for ${request.email} in ${request.customerDomain}, bundle ${created.bundle}, expires ${created.expires_at}`);
    cli.out(created.token);
  }
  return 0;
}
