import { readFile } from 'node:fs/promises';
import { ADDRESS_BLOCKED_MESSAGE } from '@app/contracts';
import { type OptionSpec, UsageError } from './args.js';

/** Where the admin token comes from when no --token-file is given. */
export const ADMIN_TOKEN_VARIABLE = 'FDS_ADMIN_TOKEN';
/** The service's address when no --url is given (else PUBLIC_URL, else http://localhost:<PORT or 8080>). */
export const SERVICE_URL_VARIABLE = 'FDS_URL';
const REQUEST_TIMEOUT_MS = 10_000;

/** The options of the commands that use the admin API, or the database without it. */
export const ACCESS_OPTIONS: readonly OptionSpec[] = [
  { name: 'url', value: 'url', help: `The service's address (default: ${SERVICE_URL_VARIABLE}, else PUBLIC_URL,\nelse http://localhost:<PORT or 8080>).` },
  { name: 'token-file', value: 'path', help: `A file holding an admin token (default: the ${ADMIN_TOKEN_VARIABLE} variable).` },
  { name: 'direct', help: 'Work on the database (DATABASE_URL, or DATA_DIR) without asking the service.' },
];

export interface AdminAccess {
  readonly baseUrl: string;
  readonly token: string;
}

/** The service cannot be used from here (down, its admin app down, or this machine's address blocked): the database can. */
export class ServiceUnreachable extends Error {}

/** The service answered with a refusal (bad token, not an administrator, nothing to remove...). */
export class AdminApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The admin token: the content of `--token-file <path>` (surrounding whitespace dropped), else
 * FDS_ADMIN_TOKEN; undefined when neither is given. Never an argument: the command line shows in `ps`.
 */
export async function adminToken(tokenFile: string | undefined, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (tokenFile !== undefined) {
    let text: string;
    try {
      text = await readFile(tokenFile, 'utf8');
    } catch (err) {
      throw new UsageError(`--token-file ${tokenFile}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
    const token = text.trim();
    if (!token) throw new UsageError(`--token-file ${tokenFile} is empty`);
    return token;
  }
  return env[ADMIN_TOKEN_VARIABLE]?.trim() || undefined;
}

/** The service's base address: --url, FDS_URL, PUBLIC_URL, else http://localhost:<PORT or 8080>. */
export function serviceUrl(url: string | undefined, env: NodeJS.ProcessEnv): string {
  const text = url ?? (env[SERVICE_URL_VARIABLE] || env.PUBLIC_URL || `http://localhost:${env.PORT || 8080}`);
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw new UsageError(`the service's address ${JSON.stringify(text)} is no URL (--url, ${SERVICE_URL_VARIABLE}, PUBLIC_URL)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`the service's address ${text} is not http(s)`);
  return parsed.href.replace(/\/+$/, '');
}

/**
 * One admin request. Unreachable service, a 502/503/504 (the gateway without its admin app)
 * and a 403 `address blocked` (this machine's own address) throw ServiceUnreachable; any other
 * refusal AdminApiError with the problem's detail.
 */
export async function callAdmin(
  access: AdminAccess,
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
  path: string,
  request: { query?: Record<string, string>; json?: unknown } = {},
): Promise<unknown> {
  const url = new URL(access.baseUrl + path);
  for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, value);
  let reply: Response;
  try {
    reply = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${access.token}`,
        accept: 'application/json',
        ...(request.json === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: request.json === undefined ? undefined : JSON.stringify(request.json),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      redirect: 'error',
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new ServiceUnreachable(`${access.baseUrl} cannot be reached (${cause?.code ?? cause?.message ?? (err as Error).message})`);
  }
  const text = await reply.text();
  if (reply.ok) return text ? (JSON.parse(text) as unknown) : null;
  const detail = problemDetail(text) ?? `${reply.status} ${reply.statusText}`;
  if (reply.status === 502 || reply.status === 503 || reply.status === 504)
    throw new ServiceUnreachable(`${access.baseUrl} answered ${reply.status}: ${detail}`);
  if (reply.status === 403 && detail === ADDRESS_BLOCKED_MESSAGE) throw new ServiceUnreachable(`${access.baseUrl} refuses this machine's address (${detail})`);
  throw new AdminApiError(reply.status, `${method} ${path} was refused: ${reply.status} ${detail}`);
}

function problemDetail(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { detail?: unknown };
    return typeof body.detail === 'string' ? body.detail : undefined;
  } catch {
    return text.trim().split('\n')[0] || undefined;
  }
}
