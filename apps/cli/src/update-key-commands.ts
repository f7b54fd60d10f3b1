import { UPDATE_KEY_MAX_START_SECONDS, type UpdateSigningKeys } from '@app/contracts';
import { ADMIN_TOKEN_VARIABLE, adminToken, callAdmin, serviceUrl } from './admin-api.js';
import { type CommandInput, UsageError } from './args.js';
import type { CliContext } from './cli-context.js';

/**
 * `rotate-update-key` (docs/api.md "Signed answers"): POST /admin/update-signing-keys/rotate
 * through the admin API only. The firmware app holds the signing keys and reloads them on the
 * rotation's event, so there is no way around a running service (no --direct).
 */
export async function rotateUpdateKey(input: CommandInput, cli: CliContext): Promise<number> {
  const startsText = typeof input.options['starts-in'] === 'string' ? input.options['starts-in'] : undefined;
  const startsIn = startsText === undefined ? undefined : Number(startsText);
  if (startsIn !== undefined && (!/^\d+$/.test(startsText!) || startsIn > UPDATE_KEY_MAX_START_SECONDS))
    throw new UsageError(`--starts-in must be an integer from 0 to ${UPDATE_KEY_MAX_START_SECONDS} (seconds)`);
  const token = await adminToken(typeof input.options['token-file'] === 'string' ? input.options['token-file'] : undefined, cli.env);
  if (token === undefined) throw new UsageError(`rotate-update-key needs an admin token: --token-file <path> or ${ADMIN_TOKEN_VARIABLE}`);
  const baseUrl = serviceUrl(typeof input.options.url === 'string' ? input.options.url : undefined, cli.env);
  const keys = (await callAdmin({ baseUrl, token }, 'POST', '/admin/update-signing-keys/rotate', {
    json: startsIn === undefined ? {} : { starts_in_seconds: startsIn },
  })) as UpdateSigningKeys;
  if (input.options.json) {
    cli.out(JSON.stringify(keys));
    return 0;
  }
  for (const key of keys.keys) {
    cli.out([key.kid, `signs from ${key.signs_from}`, `published until ${key.published_until ?? 'further notice'}`].join('  '));
  }
  cli.err(`the first key signs from ${keys.keys[0]?.signs_from}; devices must have it in their key set by then (GET /.well-known/jwks.json lists it now)`);
  return 0;
}
