import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { DOWNLOAD_RATE_PER_MINUTE, OPERATOR_ADMIN_EMAIL, OPERATOR_DOMAIN, runtimeSettingsEnv, SANDBOX_DOMAIN } from './constants.js';
import { letters, randomDomain, sleep } from './factories.js';
import { HttpClient, type HttpReply, type IdentityBody, Session } from './http.js';
import { Mailbox } from './mailbox.js';
import { freePort } from './stack.js';

export type RuntimeKind = 'standalone' | 'distributed';

export interface CreatedTokenBody {
  id: string;
  name: string;
  bundle: string;
  scopes: string[];
  created_by: string;
  created_at: string;
  expires_at: string;
  token: string;
}

export type Bundle = 'read-only' | 'uploader' | 'full' | 'admin';

/** A customer opened through the admin API, its owner logged in, and one token per bundle. */
export interface CustomerFixture {
  readonly domain: string;
  readonly name: string;
  readonly ownerEmail: string;
  readonly owner: Session;
  readonly tokens: Record<'read-only' | 'uploader' | 'full', CreatedTokenBody>;
  /** The token strings, for `auth:`. */
  readonly readOnly: string;
  readonly uploader: string;
  readonly full: string;
}

export interface Runtime {
  readonly runtime: RuntimeKind;
  readonly baseUrl: string;
  readonly http: HttpClient;
  readonly mailbox: Mailbox;
  /** The key of /dl links (DownloadLinkSigner). */
  readonly downloadSecret: string;
  readonly metricsToken: string;
  readonly operatorDomain: string;
  readonly adminEmail: string;
  readonly sandboxDomain: string;
  readonly downloadRatePerMinute: number;
  /** Environment under which the operator CLI reaches this runtime's data. */
  readonly cliEnv: NodeJS.ProcessEnv;
  /** The BACKUP_* variables (and DATA_DIR) the service runs with: loadConfig(backupEnv).backup reaches its archives. */
  readonly backupEnv: NodeJS.ProcessEnv;
  /** The secret half (AGE-SECRET-KEY-1...) of the key pair made for this runtime; the service holds only BACKUP_PUBLIC_KEY. */
  readonly backupSecretKey: string;
  /** SQL on the service's database (white-box checks only). */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** POST /auth/login, the code from the mailbox, POST /auth/verify: a session. */
  loginAs(email: string): Promise<Session>;
  /** A session of the operator's administrator (one login per runtime). */
  adminSession(): Promise<Session>;
  /** An API token with bundle `admin` of the operator's administrator (one per runtime). */
  adminToken(): Promise<string>;
  /** POST /tokens with a session (CSRF in the header). */
  createToken(session: Session, bundle: Bundle, options?: { name?: string; expiresInDays?: number }): Promise<CreatedTokenBody>;
  newCustomer(options?: { tokens?: boolean }): Promise<CustomerFixture>;
  stop(): Promise<void>;
}

export function runtimeKind(): RuntimeKind {
  const kind = process.env.E2E_RUNTIME;
  if (kind !== 'standalone' && kind !== 'distributed') {
    throw new Error(`E2E_RUNTIME must be standalone or distributed (set by the jest project's setupFiles), got ${kind}`);
  }
  return kind;
}

/** Starts (standalone) or attaches to (distributed) the service for one test file. */
export async function startRuntime(): Promise<Runtime> {
  return runtimeKind() === 'standalone' ? startStandaloneRuntime() : attachDistributedRuntime();
}

interface RuntimeBase {
  runtime: RuntimeKind;
  baseUrl: string;
  mailDir: string;
  downloadSecret: string;
  metricsToken: string;
  cliEnv: NodeJS.ProcessEnv;
  backupEnv: NodeJS.ProcessEnv;
  backupSecretKey: string;
  query: Runtime['query'];
  /** Persisted admin credentials (distributed: shared by the files of one run). */
  adminCache: { load(): { session: SerializedSession; token: string | null } | null; save(value: { session: SerializedSession; token: string | null }): void };
  close(): Promise<void>;
}

interface SerializedSession {
  email: string;
  csrfToken: string;
  identity: IdentityBody;
  cookies: [string, string][];
}

async function startStandaloneRuntime(): Promise<Runtime> {
  const { startStandalone } = await import('../../../apps/standalone/src/standalone.js');
  const infra = await import('@app/infra');
  const dataDir = await mkdtemp(join(tmpdir(), 'fds-e2e-standalone-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const metricsToken = `metrics-${letters(24)}`;
  const backupKeys = await infra.generateBackupKeyPair();
  const env: NodeJS.ProcessEnv = {
    DATA_DIR: dataDir,
    ...runtimeSettingsEnv({ port, baseUrl, metricsToken }),
    BACKUP_PUBLIC_KEY: backupKeys.publicKey,
  };
  let service: Awaited<ReturnType<typeof startStandalone>>;
  try {
    service = await startStandalone(env, { port });
  } catch (err) {
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  const secretFile = join(dataDir, 'download-link.key');
  const downloadSecret = service.config.downloadLinkSecret ?? (existsSync(secretFile) ? (await readFile(secretFile, 'utf8')).trim() : '');
  let database: Promise<import('typeorm').DataSource> | null = null;
  let admin: { session: SerializedSession; token: string | null } | null = null;
  const base: RuntimeBase = {
    runtime: 'standalone',
    baseUrl,
    cliEnv: env,
    backupEnv: { DATA_DIR: dataDir, BACKUP_PUBLIC_KEY: backupKeys.publicKey },
    backupSecretKey: backupKeys.secretKey,
    mailDir: dataDir,
    downloadSecret,
    metricsToken,
    async query<T>(sql: string, params: unknown[] = []) {
      // The embedded database belongs to this process: a DataSource of our own shares it.
      database ??= infra.openAppDatabase(service.config, { schema: 'identity', entities: [], migrations: [], migrate: false });
      return (await (await database).query(sql, params)) as T[];
    },
    adminCache: { load: () => admin, save: (value) => void (admin = value) },
    async close() {
      await service.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return buildRuntime(base);
}

async function attachDistributedRuntime(): Promise<Runtime> {
  const need = (name: string): string => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is not set: the e2e-distributed project's globalSetup did not run`);
    return value;
  };
  const baseUrl = need('E2E_BASE_URL');
  const stateDir = need('E2E_STATE_DIR');
  const pool = new pg.Pool({ connectionString: need('E2E_DATABASE_URL'), max: 2 });
  // A previous file may have stopped and restarted an app: start from a healthy stack.
  await waitForStatus(baseUrl, 'ok', 60_000);
  const adminFile = join(stateDir, 'admin-credentials.json');
  const base: RuntimeBase = {
    runtime: 'distributed',
    baseUrl,
    cliEnv: { DATABASE_URL: need('E2E_DATABASE_URL'), PUBLIC_URL: baseUrl, OPERATOR_DOMAIN, LOG_LEVEL: 'warn' },
    backupEnv: JSON.parse(need('E2E_BACKUP_ENV')) as NodeJS.ProcessEnv,
    backupSecretKey: need('E2E_BACKUP_SECRET_KEY'),
    mailDir: need('E2E_MAIL_DIR'),
    downloadSecret: need('E2E_DOWNLOAD_SECRET'),
    metricsToken: need('E2E_METRICS_TOKEN'),
    async query<T>(sql: string, params: unknown[] = []) {
      return (await pool.query(sql, params)).rows as T[];
    },
    // Login codes are limited to 5 per address per hour: the files of one run share one admin login.
    adminCache: {
      load: () => (existsSync(adminFile) ? JSON.parse(readFileSync(adminFile, 'utf8')) : null),
      save: (value) => writeFileSync(adminFile, JSON.stringify(value)),
    },
    close: () => pool.end(),
  };
  return buildRuntime(base);
}

/** Polls GET /status until its `status` is `want`. */
export async function waitForStatus(baseUrl: string, want: 'ok' | 'degraded', timeoutMs: number): Promise<void> {
  const http = new HttpClient(baseUrl);
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const reply = await http.get('/status', { timeoutMs: 5_000 });
      last = reply.describe();
      if (reply.status < 500 && reply.json<{ status: string }>().status === want) return;
    } catch (err) {
      last = String(err);
    }
    if (Date.now() > deadline) throw new Error(`/status did not become ${want} within ${timeoutMs} ms; last: ${last}`);
    await sleep(250);
  }
}

function expectStatus(reply: HttpReply, status: number, what: string): void {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.describe()}`);
}

function buildRuntime(base: RuntimeBase): Runtime {
  const http = new HttpClient(base.baseUrl);
  const mailbox = new Mailbox(base.mailDir);

  const loginAs = async (email: string): Promise<Session> => {
    const since = Date.now();
    const login = await http.post('/auth/login', { json: { email } });
    expectStatus(login, 202, `login of ${email}`);
    const code = await mailbox.waitForCode(email, { since });
    const verify = await http.post('/auth/verify', { json: { email, code } });
    expectStatus(verify, 200, `verify of ${email}`);
    const identity = verify.json<IdentityBody>();
    const session = new Session(email, identity.csrf_token, identity);
    session.absorb(verify.setCookies);
    return session;
  };

  const createToken: Runtime['createToken'] = async (session, bundle, options = {}) => {
    const reply = await http.post('/tokens', {
      auth: session,
      json: { name: options.name ?? `${bundle} ${letters(6)}`, bundle, ...(options.expiresInDays ? { expires_in_days: options.expiresInDays } : {}) },
    });
    expectStatus(reply, 201, `POST /tokens bundle ${bundle} for ${session.email}`);
    return reply.json<CreatedTokenBody>();
  };

  let adminSession: Promise<Session> | null = null;
  const getAdminSession = (): Promise<Session> => {
    adminSession ??= (async () => {
      const cached = base.adminCache.load();
      if (cached) {
        const session = new Session(cached.session.email, cached.session.csrfToken, cached.session.identity);
        for (const [k, v] of cached.session.cookies) session.cookies.set(k, v);
        return session;
      }
      const session = await loginAs(OPERATOR_ADMIN_EMAIL);
      base.adminCache.save({ session: serialize(session), token: null });
      return session;
    })();
    return adminSession;
  };

  let adminToken: Promise<string> | null = null;
  const getAdminToken = (): Promise<string> => {
    adminToken ??= (async () => {
      const cached = base.adminCache.load();
      if (cached?.token) return cached.token;
      const session = await getAdminSession();
      const created = await createToken(session, 'admin', { name: `e2e admin ${letters(6)}` });
      base.adminCache.save({ session: serialize(session), token: created.token });
      return created.token;
    })();
    return adminToken;
  };

  const newCustomer: Runtime['newCustomer'] = async (options = {}) => {
    const domain = randomDomain();
    const name = `Customer ${letters(8)}`;
    const ownerEmail = `owner-${letters(8)}@${domain}`;
    const created = await http.post('/admin/customers', { auth: await getAdminToken(), json: { domain, name, owner_email: ownerEmail } });
    expectStatus(created, 201, `POST /admin/customers ${domain}`);
    const owner = await loginAs(ownerEmail);
    const tokens = {} as CustomerFixture['tokens'];
    if (options.tokens !== false) {
      for (const bundle of ['read-only', 'uploader', 'full'] as const) tokens[bundle] = await createToken(owner, bundle);
    }
    return {
      domain,
      name,
      ownerEmail,
      owner,
      tokens,
      readOnly: tokens['read-only']?.token,
      uploader: tokens.uploader?.token,
      full: tokens.full?.token,
    };
  };

  return {
    runtime: base.runtime,
    baseUrl: base.baseUrl,
    http,
    mailbox,
    downloadSecret: base.downloadSecret,
    metricsToken: base.metricsToken,
    operatorDomain: OPERATOR_DOMAIN,
    adminEmail: OPERATOR_ADMIN_EMAIL,
    sandboxDomain: SANDBOX_DOMAIN,
    downloadRatePerMinute: DOWNLOAD_RATE_PER_MINUTE,
    cliEnv: base.cliEnv,
    backupEnv: base.backupEnv,
    backupSecretKey: base.backupSecretKey,
    query: base.query,
    loginAs,
    adminSession: getAdminSession,
    adminToken: getAdminToken,
    createToken,
    newCustomer,
    stop: () => base.close(),
  };
}

function serialize(session: Session): SerializedSession {
  return { email: session.email, csrfToken: session.csrfToken, identity: session.identity, cookies: [...session.cookies] };
}
