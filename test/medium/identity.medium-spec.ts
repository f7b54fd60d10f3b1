import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  asCustomerId,
  type CreatedToken,
  ErrorCode,
  IdentityEvents,
  FirmwareMessages,
  LogdataMessages,
  RegistryMessages,
  READ_SCOPES,
  ROLE_SCOPES,
  ServiceError,
  type VerifiedLogin,
  WRITE_SCOPES,
} from '@app/contracts';
import { closeDatabases, configureLogging, MAIL_JOB, MAIL_QUEUE, type MailMessage, openAppDatabase, revertLastMigration } from '@app/infra';
import { calculateJwkThumbprint, createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { createHash, randomUUID } from 'node:crypto';
import { issueTokenForMember } from '../../apps/identity/src/cli/issue-token-for-member.js';
import { AdminCustomersController } from '../../apps/identity/src/controllers/admin-customers.controller.js';
import { AuthController } from '../../apps/identity/src/controllers/auth.controller.js';
import { GatewayController } from '../../apps/identity/src/controllers/gateway.controller.js';
import { KeysController } from '../../apps/identity/src/controllers/keys.controller.js';
import { OperatorController } from '../../apps/identity/src/controllers/operator.controller.js';
import { TokensController } from '../../apps/identity/src/controllers/tokens.controller.js';
import type { CustomerEntity } from '../../apps/identity/src/entities/customer.entity.js';
import { IDENTITY_DATABASE } from '../../apps/identity/src/identity.module.js';
import { FinishCustomerDeletionUseCase } from '../../apps/identity/src/use-cases/finish-customer-deletion/finish-customer-deletion.usecase.js';
import { TokenUsageRecorder } from '../../apps/identity/src/services/token-usage.recorder.js';
import { EndSessionUseCase } from '../../apps/identity/src/use-cases/end-session/end-session.usecase.js';
import { ProvisionOperatorUseCase } from '../../apps/identity/src/use-cases/provision-operator/provision-operator.usecase.js';
import { makeCall, makeContext, makeCustomer, makeDomain, makeEmail, makePrincipal, serviceErrorOf } from '@app/testing';
import { IDENTITY_CLIENT, makeStoredCustomer, makeStoredMember } from '../../apps/identity/test/factories.js';
import { createIdentityDatabase, type IdentityDatabase, type IdentityHarness, startIdentity } from './identity.support.js';

const logLines: Record<string, unknown>[] = [];
configureLogging({ level: 'debug', sink: (line) => logLines.push(JSON.parse(line) as Record<string, unknown>) });

const ADMIN_EMAIL = 'root@operator.example';
const SANDBOX = 'sandbox.example';
const BUNDLE_FULL = [...READ_SCOPES, ...WRITE_SCOPES];
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let db: IdentityDatabase;
let app: IdentityHarness;
let auth: AuthController;
let tokens: TokensController;
let customers: AdminCustomersController;
let gateway: GatewayController;

beforeAll(async () => {
  db = await createIdentityDatabase({ OPERATOR_ADMIN_EMAIL: ADMIN_EMAIL, SANDBOX_DOMAIN: SANDBOX });
  app = await startIdentity(db.config);
  auth = app.get(AuthController);
  tokens = app.get(TokensController);
  customers = app.get(AdminCustomersController);
  gateway = app.get(GatewayController);
});

afterAll(async () => {
  await app?.close();
  await closeDatabases();
  await db?.dispose();
});

// ---------------------------------------------------------------- helpers

function mails(to?: string): MailMessage[] {
  return app.jobs.jobs
    .filter((j) => j.queue === MAIL_QUEUE && j.name === MAIL_JOB)
    .map((j) => j.data as MailMessage)
    .filter((m) => !to || m.to === to);
}

function lastLoginMail(to: string): { code: string; link: string } {
  const mail = mails(to)
    .filter((m) => m.subject.startsWith('Your login code'))
    .at(-1);
  if (!mail) throw new Error(`no login mail for ${to}`);
  return { code: /\b(\d{6})\b/.exec(mail.subject)![1], link: /https:\/\/\S+\/auth\/magic\?\S+/.exec(mail.text)![0] };
}

const publicCtx = () => makeContext(null, { principal: null, ...IDENTITY_CLIENT });

async function requestLogin(email: string) {
  return auth.login(makeCall(publicCtx(), { body: { email } }));
}

async function verify(email: string, code: string): Promise<VerifiedLogin> {
  return auth.verify(makeCall(publicCtx(), { body: { email, code } }));
}

async function signIn(email: string): Promise<VerifiedLogin> {
  await requestLogin(email);
  return verify(email, lastLoginMail(email).code);
}

/** `at`: the time the token is checked at; the app's (fake) clock unless it was issued on another. */
async function verifyJwt(jwt: string, at: Date = app.clock.now()) {
  const jwks = createLocalJWKSet(await app.get(KeysController).jwks());
  return jwtVerify(jwt, jwks, { issuer: 'https://fw.example.test', audience: 'service', currentDate: at });
}

/** A member in a fresh customer, with a principal as the gateway would build it for their session. */
async function memberWithPrincipal(role: 'viewer' | 'editor' | 'owner', customer?: CustomerEntity) {
  const target = customer ?? (await makeStoredCustomer(app.store));
  const user = await makeStoredMember(app.store, target, role);
  const ref = makeCustomer(target);
  const principal = makePrincipal(ref, { userId: user.id, role });
  return { customer: target, ref, user, principal, ctx: makeContext(ref, { principal, ...IDENTITY_CLIENT }) };
}

async function operatorCustomer(): Promise<CustomerEntity> {
  return (await app.store.repos.customers.findByDomain('operator.example'))!;
}

// ---------------------------------------------------------------- schema

describe('schema', () => {
  it('puts every table in the identity schema', async () => {
    const rows: Array<{ table_name: string }> = await app.dataSource.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'identity' ORDER BY table_name`,
    );
    expect(rows.map((r) => r.table_name)).toEqual([
      'api_tokens',
      'customers',
      'login_attempts',
      'login_challenges',
      'memberships',
      'migrations',
      'outbox',
      'refresh_tokens',
      'sandbox_tokens',
      'secrets',
      'sessions',
      'signing_keys',
      'users',
    ]);
  });

  it('keeps domains and emails unique and lower-case', async () => {
    const domain = makeDomain();
    await makeStoredCustomer(app.store, { domain });
    expect(
      await app.store.repos.customers.insertIfAbsent({ id: asCustomerId(randomUUID()), domain, name: 'x', corsOrigins: [], isSandbox: false, at: new Date() }),
    ).toBe(false);
    await expect(app.dataSource.query(`INSERT INTO identity.users (email) VALUES ('Upper@Example.com')`)).rejects.toThrow();
    const { user, created } = await app.store.repos.users.ensure('MiXeD@Example.com', new Date());
    expect(created).toBe(true);
    expect(user.email).toBe('mixed@example.com');
    expect((await app.store.repos.users.ensure('mixed@example.com', new Date())).created).toBe(false);
  });
});

// ---------------------------------------------------------------- start-up

describe('start-up provisioning', () => {
  it('creates the operator and sandbox customers and invites the operator admin as owner', async () => {
    const operator = await operatorCustomer();
    expect(operator).toMatchObject({ status: 'active', isSandbox: false });
    expect(await app.store.repos.customers.findByDomain(SANDBOX)).toMatchObject({ isSandbox: true, status: 'active' });
    const members = await app.store.repos.memberships.listMembers(operator.id);
    expect(members).toEqual([expect.objectContaining({ email: ADMIN_EMAIL, role: 'owner', lastLoginAt: null })]);
    const [invitation] = mails(ADMIN_EMAIL);
    expect(invitation).toMatchObject({ subject: 'You have been invited to operator.example' });
    expect(invitation.text).toContain('https://fw.example.test/login');
    expect(
      app.bus
        .events(IdentityEvents.customerChanged)
        .map((e) => e.domain)
        .sort(),
    ).toEqual(['operator.example', SANDBOX]);
  });

  it('is idempotent: a second replica starting later changes and sends nothing', async () => {
    const replica = await startIdentity(db.config, { dataSource: app.dataSource });
    try {
      expect(replica.jobs.jobs).toEqual([]);
      expect(replica.bus.emitted).toEqual([]);
      expect(await app.store.repos.memberships.listMembers((await operatorCustomer()).id)).toHaveLength(1);
    } finally {
      await replica.close();
    }
  });

  it('does not invite again once the operator customer has an owner, whoever it is', async () => {
    const result = await app.get(ProvisionOperatorUseCase).execute();
    expect(result).toMatchObject({ createdDomains: [], invitedOwner: null });
  });
});

describe('replicas starting together on an empty database', () => {
  let fresh: IdentityDatabase;
  const replicas: IdentityHarness[] = [];

  beforeAll(async () => {
    fresh = await createIdentityDatabase({ OPERATOR_ADMIN_EMAIL: 'first@operator.example', SANDBOX_DOMAIN: 'play.example' });
    // four processes: own DataSources (own pools), own key caches, own fakes
    replicas.push(...(await Promise.all([1, 2, 3, 4].map(() => startIdentity(fresh.config)))));
  });

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await fresh?.dispose();
  });

  it('end up with one signing key, one operator, one sandbox, one owner and one invitation', async () => {
    const [first] = replicas;
    const [counts] = await first.dataSource.query(
      `SELECT (SELECT count(*)::int FROM identity.signing_keys) AS keys,
              (SELECT count(*)::int FROM identity.customers) AS customers,
              (SELECT count(*)::int FROM identity.memberships WHERE role = 'owner') AS owners`,
    );
    expect(counts).toEqual({ keys: 1, customers: 2, owners: 1 });
    expect(replicas.flatMap((r) => r.jobs.jobs)).toHaveLength(1);
    const published = await Promise.all(replicas.map((r) => r.get(KeysController).jwks()));
    expect(new Set(published.map((j) => JSON.stringify(j))).size).toBe(1);
  });
});

// ---------------------------------------------------------------- keys

describe('signing keys', () => {
  it('publish only public Ed25519 parts, with a thumbprint kid', async () => {
    const jwks = await app.get(KeysController).jwks();
    expect(jwks.keys).toHaveLength(1);
    const [key] = jwks.keys;
    expect(Object.keys(key).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
    expect(key).toMatchObject({ alg: 'EdDSA', crv: 'Ed25519', kty: 'OKP', use: 'sig' });
    expect(key.kid).toBe(await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: key.x }));
    expect(await app.get(KeysController).verificationKeys()).toEqual({ ...jwks, retired: [] });
  });

  it('keep the private key in the identity schema only', async () => {
    const [row] = await app.dataSource.query(`SELECT private_pkcs8 FROM identity.signing_keys`);
    expect(row.private_pkcs8).toContain('BEGIN PRIVATE KEY');
    expect(JSON.stringify(await app.get(KeysController).jwks())).not.toContain('PRIVATE');
  });
});

// ---------------------------------------------------------------- login

describe('login', () => {
  it('answers the same whether or not the address is invited, and mails only invited people', async () => {
    const { user } = await memberWithPrincipal('editor');
    const stranger = makeEmail('stranger');
    const before = app.jobs.jobs.length;
    const invited = await requestLogin(user.email.toUpperCase());
    const uninvited = await requestLogin(stranger);
    expect(invited).toEqual({ sent: true, detail: 'If the address is invited, a code has been sent.' });
    expect(uninvited).toEqual(invited);
    expect(app.jobs.jobs.slice(before).map((j) => (j.data as MailMessage).to)).toEqual([user.email]);
    // both did the same work: one stored challenge each
    const rows: Array<{ email: string; invited: boolean }> = await app.dataSource.query(
      `SELECT email, user_id IS NOT NULL AS invited FROM identity.login_challenges WHERE email = ANY($1) ORDER BY invited DESC`,
      [[user.email, stranger]],
    );
    expect(rows).toEqual([
      { email: user.email, invited: true },
      { email: stranger, invited: false },
    ]);
  });

  it('mails a 6-digit code and an absolute magic link; stores neither in clear', async () => {
    const { user } = await memberWithPrincipal('viewer');
    await requestLogin(user.email);
    const mail = mails(user.email).at(-1)!;
    const { code, link } = lastLoginMail(user.email);
    expect(mail.subject).toBe(`Your login code: ${code}`);
    expect(mail.idempotencyKey).toMatch(/^login:/);
    const url = new URL(link);
    expect(url.origin + url.pathname).toBe('https://fw.example.test/auth/magic');
    const challengeId = url.searchParams.get('c')!;
    const linkToken = url.searchParams.get('t')!;
    expect(Buffer.from(linkToken, 'base64url').length).toBeGreaterThanOrEqual(16);
    const [row] = await app.dataSource.query(`SELECT * FROM identity.login_challenges WHERE id = $1`, [challengeId]);
    expect(JSON.stringify(row)).not.toContain(code);
    expect(JSON.stringify(row)).not.toContain(linkToken);
    expect(row.link_hash).toBe(createHash('sha256').update(linkToken).digest('base64url'));
    expect(new Date(row.expires_at).getTime() - new Date(row.created_at).getTime()).toBe(15 * MINUTE);
  });

  it('sends nothing to disabled users or people whose only customer is suspended', async () => {
    const disabled = await makeStoredMember(app.store, await makeStoredCustomer(app.store), 'owner', { disabled: true });
    const suspended = await makeStoredMember(app.store, await makeStoredCustomer(app.store, { suspended: true }), 'owner');
    await requestLogin(disabled.email);
    await requestLogin(suspended.email);
    expect(mails(disabled.email).filter((m) => m.subject.startsWith('Your login'))).toEqual([]);
    expect(mails(suspended.email).filter((m) => m.subject.startsWith('Your login'))).toEqual([]);
  });

  it('allows 5 codes per address per hour, invited or not, then 429 with Retry-After', async () => {
    const { user } = await memberWithPrincipal('viewer');
    for (const email of [user.email, makeEmail('nobody')]) {
      for (let i = 0; i < 5; i++) await requestLogin(email);
      app.clock.advance(10 * MINUTE);
      const error = await serviceErrorOf(requestLogin(email));
      expect(error.code).toBe(ErrorCode.RateLimited);
      expect(error.headers).toEqual({ 'Retry-After': String(50 * 60) });
      app.clock.advance(50 * MINUTE + 1000);
      await expect(requestLogin(email)).resolves.toMatchObject({ sent: true });
    }
    expect(mails(user.email).filter((m) => m.subject.startsWith('Your login'))).toHaveLength(6);
  });

  it('cannot be pushed over the limit by concurrent requests', async () => {
    const email = makeEmail('burst');
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => requestLogin(email)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    expect(results.filter((r) => r.status === 'rejected').every((r) => r.reason.code === ErrorCode.RateLimited)).toBe(true);
  });
});

// ---------------------------------------------------------------- verify

describe('verify', () => {
  it('starts a session: identity, cookies and a signed 15-minute access token', async () => {
    const { user, customer } = await memberWithPrincipal('editor');
    const result = await signIn(user.email);
    expect(result.identity).toEqual({
      admin: '',
      csrf_token: result.session.csrf,
      customer: customer.domain,
      email: user.email,
      memberships: [{ domain: customer.domain, role: 'editor' }],
      role: 'editor',
      scopes: [...READ_SCOPES, ...WRITE_SCOPES],
    });
    expect(result.session).toMatchObject({ accessMaxAgeSeconds: 900, refreshMaxAgeSeconds: 7 * 24 * 3600 });
    expect(Buffer.from(result.session.refresh, 'base64url')).toHaveLength(32);

    const { payload, protectedHeader } = await verifyJwt(result.session.access);
    expect(protectedHeader).toMatchObject({ alg: 'EdDSA', kid: (await app.get(KeysController).jwks()).keys[0].kid });
    const now = Math.floor(app.clock.now().getTime() / 1000);
    expect(payload).toEqual({
      iss: 'https://fw.example.test',
      aud: ['service'],
      iat: now,
      nbf: now,
      exp: now + 900,
      sub: `user:${user.id}`,
      jti: expect.any(String),
      sid: expect.any(String),
      cust: customer.domain,
      cid: customer.id,
      scp: [...READ_SCOPES, ...WRITE_SCOPES].join(' '),
      adm: '',
      csh: createHash('sha256').update(result.session.csrf).digest('base64url'),
      typ: 'session',
    });

    const session = await app.store.repos.sessions.findById(payload.sid as string);
    expect(session).toMatchObject({ userId: user.id, customerId: customer.id, revokedAt: null });
    expect(session!.expiresAt.getTime() - session!.createdAt.getTime()).toBe(7 * 24 * HOUR);
    const [refresh] = await app.dataSource.query(`SELECT token_hash FROM identity.refresh_tokens WHERE session_id = $1`, [session!.id]);
    expect(refresh.token_hash).toBe(createHash('sha256').update(result.session.refresh).digest('base64url'));
    expect((await app.store.repos.users.findById(user.id))!.lastLoginAt).toEqual(app.clock.now());
  });

  it('accepts a code once; a successful login retires the other codes mailed to the address', async () => {
    const { user } = await memberWithPrincipal('viewer');
    await requestLogin(user.email);
    const older = lastLoginMail(user.email).code;
    await requestLogin(user.email);
    const newer = lastLoginMail(user.email).code;
    await verify(user.email, newer);
    expect((await serviceErrorOf(verify(user.email, newer))).message).toBe('invalid or expired code');
    if (older !== newer) expect((await serviceErrorOf(verify(user.email, older))).code).toBe(ErrorCode.Unauthenticated);
  });

  it('refuses wrong codes with 401 and kills the code after 5 wrong guesses', async () => {
    const { user } = await memberWithPrincipal('viewer');
    await requestLogin(user.email);
    const { code } = lastLoginMail(user.email);
    const wrong = code === '000000' ? '000001' : '000000';
    for (let i = 0; i < 5; i++) {
      const error = await serviceErrorOf(verify(user.email, wrong));
      expect([error.status, error.message]).toEqual([401, 'invalid or expired code']);
    }
    expect((await serviceErrorOf(verify(user.email, code))).status).toBe(401);
  });

  it('counts the fifth guess as the last chance: right on the fifth attempt still works', async () => {
    const { user } = await memberWithPrincipal('viewer');
    await requestLogin(user.email);
    const { code } = lastLoginMail(user.email);
    const wrong = code === '999999' ? '999998' : '999999';
    for (let i = 0; i < 4; i++) await serviceErrorOf(verify(user.email, wrong));
    await expect(verify(user.email, code)).resolves.toMatchObject({ identity: { email: user.email } });
  });

  it('does not let parallel guessing exceed 5 attempts', async () => {
    const { user } = await memberWithPrincipal('viewer');
    await requestLogin(user.email);
    const { code } = lastLoginMail(user.email);
    const guesses = Array.from({ length: 20 }, (_, i) => String((Number(code) + i + 1) % 1_000_000).padStart(6, '0'));
    await Promise.allSettled(guesses.map((g) => verify(user.email, g)));
    const [row] = await app.dataSource.query(`SELECT attempts FROM identity.login_challenges WHERE email = $1`, [user.email]);
    expect(row.attempts).toBe(5);
    expect((await serviceErrorOf(verify(user.email, code))).status).toBe(401);
  });

  it('refuses a code after 15 minutes', async () => {
    const { user } = await memberWithPrincipal('viewer');
    await requestLogin(user.email);
    const { code } = lastLoginMail(user.email);
    app.clock.advance(15 * MINUTE);
    expect((await serviceErrorOf(verify(user.email, code))).message).toBe('invalid or expired code');
  });

  it('refuses a person disabled between code and verification', async () => {
    const { user } = await memberWithPrincipal('viewer');
    await requestLogin(user.email);
    await app.store.repos.users.setDisabled(user.id, true);
    expect((await serviceErrorOf(verify(user.email, lastLoginMail(user.email).code))).status).toBe(401);
  });

  it('starts in the customer of the latest session, else the oldest membership', async () => {
    const first = await makeStoredCustomer(app.store);
    const second = await makeStoredCustomer(app.store);
    const user = await makeStoredMember(app.store, first, 'viewer', { at: new Date('2026-01-01T00:00:00Z') });
    await makeStoredMember(app.store, second, 'owner', { email: user.email, at: new Date('2026-02-01T00:00:00Z') });
    expect((await signIn(user.email)).identity).toMatchObject({ customer: first.domain, role: 'viewer' });
    // a later session in the second customer (as /auth/switch will make) wins next time
    app.clock.advance(MINUTE);
    await app.store.repos.sessions.create({
      id: randomUUID(),
      userId: user.id,
      customerId: second.id,
      createdAt: app.clock.now(),
      expiresAt: new Date(app.clock.now().getTime() + HOUR),
      refreshTokenHash: randomUUID(),
    });
    app.clock.advance(MINUTE);
    const again = await signIn(user.email);
    expect(again.identity).toMatchObject({ customer: second.domain, role: 'owner', scopes: [...ROLE_SCOPES.owner] });
    expect(again.identity.memberships.map((m) => m.domain)).toEqual([first.domain, second.domain].sort());
  });

  it('makes operator editors and owners full administrators, viewers read-only ones', async () => {
    const operator = await operatorCustomer();
    const owner = await makeStoredMember(app.store, operator, 'editor');
    const viewer = await makeStoredMember(app.store, operator, 'viewer');
    const full = await signIn(owner.email);
    expect(full.identity).toMatchObject({ admin: 'full', customer: 'operator.example' });
    expect(full.identity.scopes).toContain('admin');
    const { payload } = await verifyJwt(full.session.access);
    expect(payload).toMatchObject({ adm: 'full', scp: ROLE_SCOPES.editor.join(' ') }); // the gateway adds admin from adm
    expect((await signIn(viewer.email)).identity).toMatchObject({ admin: 'read', scopes: [...READ_SCOPES] });
  });
});

// ---------------------------------------------------------------- me

describe('me', () => {
  it('gives a session its CSRF token again, derived from the session id', async () => {
    const { user, ref } = await memberWithPrincipal('owner');
    const login = await signIn(user.email);
    const { payload } = await verifyJwt(login.session.access);
    const principal = makePrincipal(ref, { userId: user.id, role: 'owner', kind: 'session', credentialId: payload.sid as string });
    const me = await auth.me(makeCall(makeContext(ref, { principal, ...IDENTITY_CLIENT })));
    expect(me).toEqual(login.identity);
  });

  it('gives API tokens no CSRF token and their own scopes', async () => {
    const { user, ref } = await memberWithPrincipal('owner');
    const principal = makePrincipal(ref, { userId: user.id, kind: 'token', scopes: READ_SCOPES });
    expect(await auth.me(makeCall(makeContext(ref, { principal, ...IDENTITY_CLIENT })))).toMatchObject({
      csrf_token: '',
      role: 'owner',
      scopes: [...READ_SCOPES],
    });
  });

  it('shows an administrator acting on another customer with no role there', async () => {
    const admin = await makeStoredMember(app.store, await operatorCustomer(), 'owner');
    const other = makeCustomer(await makeStoredCustomer(app.store));
    const principal = makePrincipal(makeCustomer(await operatorCustomer()), { userId: admin.id, role: 'owner', admin: 'full' });
    const me = await auth.me(makeCall(makeContext(other, { principal, ...IDENTITY_CLIENT })));
    expect(me).toMatchObject({ customer: other.domain, role: '', admin: 'full', memberships: [{ domain: 'operator.example', role: 'owner' }] });
  });
});

// ---------------------------------------------------------------- tokens

describe('tokens', () => {
  const create = (ctx: ReturnType<typeof makeContext>, body: { name: string; bundle: 'read-only' | 'uploader' | 'full' | 'admin'; expires_in_days?: number }) =>
    tokens.create(makeCall(ctx, { body }));

  it('creates a JWT with exactly the API-token claims and stores only its id and metadata', async () => {
    const { ctx, user, customer } = await memberWithPrincipal('editor');
    const created = await create(ctx, { name: 'ci upload', bundle: 'uploader' });
    const uploader = [...READ_SCOPES, 'fw:write', 'logdata:write'];
    expect(created).toEqual({
      id: expect.any(String),
      name: 'ci upload',
      bundle: 'uploader',
      scopes: uploader,
      created_by: `user:${user.id}`,
      created_at: app.clock.now().toISOString(),
      expires_at: new Date(app.clock.now().getTime() + 90 * 24 * HOUR).toISOString(),
      token: expect.any(String),
    });
    const { payload } = await verifyJwt(created.token);
    expect(Object.keys(payload).sort()).toEqual(['aud', 'cid', 'cust', 'exp', 'iat', 'iss', 'jti', 'nbf', 'scp', 'sub', 'typ']);
    expect(payload).toMatchObject({
      jti: created.id,
      sub: `user:${user.id}`,
      typ: 'api',
      cust: customer.domain,
      cid: customer.id,
      scp: uploader.join(' '),
      aud: ['service'],
    });
    expect(decodeProtectedHeader(created.token).alg).toBe('EdDSA');
    const [row] = await app.dataSource.query(`SELECT * FROM identity.api_tokens WHERE id = $1`, [created.id]);
    expect(JSON.stringify(row)).not.toContain(created.token.split('.')[2]);
    expect(row).toMatchObject({ name: 'ci upload', bundle: 'uploader', created_by: user.id, customer_id: customer.id, revoked_at: null, last_used_at: null });
  });

  it('honours expires_in_days', async () => {
    const { ctx } = await memberWithPrincipal('viewer');
    const created = await create(ctx, { name: 'year', bundle: 'read-only', expires_in_days: 365 });
    expect(new Date(created.expires_at).getTime() - new Date(created.created_at).getTime()).toBe(365 * 24 * HOUR);
  });

  it('refuses bundles above the caller’s scopes with 403', async () => {
    const { ctx } = await memberWithPrincipal('viewer');
    const error = await serviceErrorOf(create(ctx, { name: 'x', bundle: 'uploader' }));
    expect([error.status, error.message]).toEqual([403, 'bundle exceeds your scopes']);
    const owner = await memberWithPrincipal('owner');
    expect((await serviceErrorOf(create(owner.ctx, { name: 'x', bundle: 'admin' }))).status).toBe(403);
  });

  it('narrows a still-valid credential to the person’s current role', async () => {
    const { ctx, customer, user } = await memberWithPrincipal('editor');
    await app.dataSource.query(`UPDATE identity.memberships SET role = 'viewer' WHERE customer_id = $1 AND user_id = $2`, [customer.id, user.id]);
    expect((await serviceErrorOf(create(ctx, { name: 'x', bundle: 'uploader' }))).status).toBe(403);
    await expect(create(ctx, { name: 'x', bundle: 'read-only' })).resolves.toMatchObject({ bundle: 'read-only' });
  });

  it('gives the admin bundle only to full administrators, on the operator customer', async () => {
    const operator = makeCustomer(await operatorCustomer());
    const admin = await makeStoredMember(app.store, await operatorCustomer(), 'owner');
    const principal = makePrincipal(operator, { userId: admin.id, role: 'owner', admin: 'full' });
    const created = await create(makeContext(operator, { principal, ...IDENTITY_CLIENT }), { name: 'ops', bundle: 'admin' });
    expect(created.scopes).toEqual(['admin']);
    const elsewhere = makeCustomer(await makeStoredCustomer(app.store));
    expect((await serviceErrorOf(create(makeContext(elsewhere, { principal, ...IDENTITY_CLIENT }), { name: 'ops', bundle: 'admin' }))).status).toBe(403);
    // any other bundle for any customer
    const forCustomer = await create(makeContext(elsewhere, { principal, ...IDENTITY_CLIENT }), { name: 'support', bundle: 'full' });
    expect((await verifyJwt(forCustomer.token)).payload).toMatchObject({ cust: elsewhere.domain, sub: `user:${admin.id}` });

    const reader = await makeStoredMember(app.store, await operatorCustomer(), 'viewer');
    const readPrincipal = makePrincipal(operator, { userId: reader.id, role: 'viewer', admin: 'read' });
    expect((await serviceErrorOf(create(makeContext(operator, { principal: readPrincipal, ...IDENTITY_CLIENT }), { name: 'x', bundle: 'admin' }))).status).toBe(
      403,
    );
  });

  it('credits a token created through a token to that token’s user', async () => {
    const { user, ref } = await memberWithPrincipal('owner');
    const principal = makePrincipal(ref, { userId: user.id, kind: 'token', scopes: BUNDLE_FULL });
    const created = await create(makeContext(ref, { principal, ...IDENTITY_CLIENT }), { name: 'child', bundle: 'uploader' });
    expect(created.created_by).toBe(`user:${user.id}`);
    expect(
      (await serviceErrorOf(create(makeContext(ref, { principal: { ...principal, scopes: READ_SCOPES }, ...IDENTITY_CLIENT }), { name: 'x', bundle: 'full' })))
        .status,
    ).toBe(403);
  });

  it('lists all tokens of the customer for members:manage, otherwise the caller’s own, with status', async () => {
    const owner = await memberWithPrincipal('owner');
    const editor = await memberWithPrincipal('editor', owner.customer);
    const mine = await create(editor.ctx, { name: 'editor token', bundle: 'uploader' });
    const theirs = await create(owner.ctx, { name: 'owner token', bundle: 'full', expires_in_days: 1 });
    const revoked = await create(editor.ctx, { name: 'gone', bundle: 'read-only' });
    await tokens.revoke(makeCall(editor.ctx, { params: { id: revoked.id } }));
    await create((await memberWithPrincipal('owner')).ctx, { name: 'other customer', bundle: 'full' });
    app.clock.advance(25 * HOUR);

    const all = await tokens.list(makeCall(owner.ctx));
    expect(all.items.map((t) => [t.name, t.status])).toEqual(
      expect.arrayContaining([
        ['editor token', 'active'],
        ['owner token', 'expired'],
        ['gone', 'revoked'],
      ]),
    );
    expect(all.items).toHaveLength(3);
    expect(all.items.find((t) => t.id === revoked.id)).toMatchObject({ revoked_at: expect.any(String), last_used_at: null });
    expect(all.items[0]).not.toHaveProperty('token');
    const own = await tokens.list(makeCall(editor.ctx));
    expect(own.items.map((t) => t.id).sort()).toEqual([mine.id, revoked.id].sort());
    expect(own.items.map((t) => t.id)).not.toContain(theirs.id);
  });

  it('revokes own tokens (idempotent, announced once); owners any of the customer; 404 otherwise', async () => {
    const owner = await memberWithPrincipal('owner');
    const editor = await memberWithPrincipal('editor', owner.customer);
    const other = await memberWithPrincipal('editor', owner.customer);
    const token = await create(editor.ctx, { name: 't', bundle: 'read-only' });
    const emittedBefore = app.bus.events(IdentityEvents.credentialRevoked).length;

    expect((await serviceErrorOf(tokens.revoke(makeCall(other.ctx, { params: { id: token.id } })))).message).toBe('token not found');
    await tokens.revoke(makeCall(editor.ctx, { params: { id: token.id } }));
    await tokens.revoke(makeCall(editor.ctx, { params: { id: token.id } }));
    expect(app.bus.events(IdentityEvents.credentialRevoked).slice(emittedBefore)).toEqual([{ kind: 'token', id: token.id }]);
    expect(await gateway.status({ kind: 'token', id: token.id })).toEqual({ active: false });

    const second = await create(editor.ctx, { name: 't2', bundle: 'read-only' });
    await tokens.revoke(makeCall(owner.ctx, { params: { id: second.id } }));
    expect(await gateway.status({ kind: 'token', id: second.id })).toEqual({ active: false });

    const foreign = await memberWithPrincipal('owner');
    const third = await create(editor.ctx, { name: 't3', bundle: 'read-only' });
    expect((await serviceErrorOf(tokens.revoke(makeCall(foreign.ctx, { params: { id: third.id } })))).status).toBe(404);
    expect((await serviceErrorOf(tokens.revoke(makeCall(owner.ctx, { params: { id: randomUUID() } })))).status).toBe(404);
    expect(await gateway.status({ kind: 'token', id: third.id })).toMatchObject({ active: true });
  });

  it('keeps tenants apart in the repository: another customer’s id finds nothing', async () => {
    const a = await memberWithPrincipal('editor');
    const b = await memberWithPrincipal('editor');
    const token = await create(a.ctx, { name: 'a', bundle: 'read-only' });
    expect(await app.store.repos.tokens.findInCustomer({ customerId: b.customer.id, id: token.id })).toBeNull();
    expect(await app.store.repos.tokens.findInCustomer({ customerId: a.customer.id, id: token.id })).not.toBeNull();
    expect(await app.store.repos.tokens.revoke({ customerId: b.customer.id, id: token.id, at: new Date() })).toBe(false);
  });
});

// ---------------------------------------------------------------- credential status

describe('credential status', () => {
  async function aToken(role: 'viewer' | 'editor' | 'owner' = 'editor') {
    const member = await memberWithPrincipal(role);
    const created: CreatedToken = await tokens.create(makeCall(member.ctx, { body: { name: 'status', bundle: 'read-only', expires_in_days: 1 } }));
    return { ...member, created };
  }

  it('says active for a live token and coalesces last_used_at writes', async () => {
    const { created } = await aToken();
    const recorder = app.get(TokenUsageRecorder);
    await recorder.flush();
    const write = jest.spyOn(app.store.repos.tokens, 'recordLastUsed');
    try {
      for (let i = 0; i < 5; i++) {
        expect(await gateway.status({ kind: 'token', id: created.id })).toMatchObject({ active: true });
        app.clock.advance(1000);
      }
      expect(write).not.toHaveBeenCalled();
      await recorder.flush();
      expect(write).toHaveBeenCalledTimes(1);
      expect(write.mock.calls[0][0]).toEqual([{ id: created.id, at: new Date(app.clock.now().getTime() - 1000) }]);
    } finally {
      write.mockRestore();
    }
    const [record] = (await tokens.list(makeCall((await memberWithPrincipal('owner')).ctx))).items;
    expect(record).toBeUndefined(); // other customer sees nothing
    const [row] = await app.dataSource.query(`SELECT last_used_at FROM identity.api_tokens WHERE id = $1`, [created.id]);
    expect(new Date(row.last_used_at)).toEqual(new Date(app.clock.now().getTime() - 1000));
  });

  it('never moves last_used_at backwards', async () => {
    const { created } = await aToken();
    const later = new Date('2030-01-01T00:00:00Z');
    await app.store.repos.tokens.recordLastUsed([{ id: created.id, at: later }]);
    await app.store.repos.tokens.recordLastUsed([{ id: created.id, at: new Date('2029-01-01T00:00:00Z') }]);
    const [row] = await app.dataSource.query(`SELECT last_used_at FROM identity.api_tokens WHERE id = $1`, [created.id]);
    expect(new Date(row.last_used_at)).toEqual(later);
  });

  it('says inactive once expired, for disabled users, suspended customers and unknown ids', async () => {
    const expiring = await aToken();
    app.clock.advance(24 * HOUR);
    expect(await gateway.status({ kind: 'token', id: expiring.created.id })).toEqual({ active: false });

    const disabled = await aToken();
    await app.store.repos.users.setDisabled(disabled.user.id, true);
    expect(await gateway.status({ kind: 'token', id: disabled.created.id })).toEqual({ active: false });

    const suspended = await aToken();
    await app.store.repos.customers.setStatus({ customerId: suspended.customer.id, status: 'suspended', at: app.clock.now() });
    expect(await gateway.status({ kind: 'token', id: suspended.created.id })).toEqual({ active: false });

    expect(await gateway.status({ kind: 'token', id: randomUUID() })).toEqual({ active: false });
    expect(await gateway.status({ kind: 'token', id: 'not-a-uuid' })).toEqual({ active: false });
  });

  it('follows sessions: live, then ended by 12 idle hours, by revocation, or by 7 days', async () => {
    const { user } = await memberWithPrincipal('viewer');
    const sid = async () => (await verifyJwt((await signIn(user.email)).session.access)).payload.sid as string;

    const idle = await sid();
    expect(await gateway.status({ kind: 'session', id: idle })).toMatchObject({ active: true });
    app.clock.advance(12 * HOUR);
    expect(await gateway.status({ kind: 'session', id: idle })).toEqual({ active: false });

    const revoked = await sid();
    const endSession = app.get(EndSessionUseCase);
    expect(await endSession.execute(revoked, 'logout')).toBe(true);
    expect(await endSession.execute(revoked, 'logout')).toBe(false);
    expect(app.bus.events(IdentityEvents.credentialRevoked).filter((e) => e.id === revoked)).toEqual([{ kind: 'session', id: revoked }]);
    expect(await gateway.status({ kind: 'session', id: revoked })).toEqual({ active: false });

    const old = await sid();
    await app.dataSource.query(`UPDATE identity.sessions SET expires_at = $2 WHERE id = $1`, [old, app.clock.now()]);
    expect(await gateway.status({ kind: 'session', id: old })).toEqual({ active: false });
    expect(await gateway.status({ kind: 'session', id: randomUUID() })).toEqual({ active: false });
  });
});

// ---------------------------------------------------------------- admin customers

describe('admin customers', () => {
  const adminCtx = async () => {
    const operator = makeCustomer(await operatorCustomer());
    const admin = await makeStoredMember(app.store, await operatorCustomer(), 'owner');
    return makeContext(null, { principal: makePrincipal(operator, { userId: admin.id, role: 'owner', admin: 'full' }), ...IDENTITY_CLIENT });
  };

  it('creates a customer, invites its first owner and announces it; a taken domain is 409', async () => {
    const ctx = await adminCtx();
    const domain = makeDomain('new');
    const owner = makeEmail('boss');
    const { customer } = await customers.create(
      makeCall(ctx, { body: { domain, name: 'New Co', owner_email: owner, cors_origins: ['https://console.new.example'] } }),
    );
    expect(customer).toEqual({
      domain,
      name: 'New Co',
      status: 'active',
      cors_origins: ['https://console.new.example'],
      is_sandbox: false,
      created_at: app.clock.now().toISOString(),
      updated_at: app.clock.now().toISOString(),
    });
    expect(mails(owner)).toEqual([expect.objectContaining({ subject: `You have been invited to ${domain}` })]);
    expect(app.bus.events(IdentityEvents.customerChanged)).toContainEqual({ id: expect.any(String), domain });
    const error = await serviceErrorOf(customers.create(makeCall(ctx, { body: { domain } })));
    expect([error.status, error.message]).toEqual([409, 'customer already exists']);
    // the invited owner can log in
    await requestLogin(owner);
    expect(lastLoginMail(owner).code).toMatch(/^\d{6}$/);
  });

  it('invites an existing user without creating a second account', async () => {
    const ctx = await adminCtx();
    const existing = await makeStoredMember(app.store, await makeStoredCustomer(app.store), 'viewer');
    const domain = makeDomain();
    await customers.create(makeCall(ctx, { body: { domain, owner_email: existing.email.toUpperCase() } }));
    const { members } = await customers.get(makeCall(ctx, { params: { domain } }));
    expect(members).toEqual([expect.objectContaining({ email: existing.email, role: 'owner' })]);
  });

  it('lists customers with counts from the apps that own them, zeros for an app that is down', async () => {
    const ctx = await adminCtx();
    const { customer, ctx: memberCtx } = await memberWithPrincipal('editor');
    await tokens.create(makeCall(memberCtx, { body: { name: 'a', bundle: 'read-only' } }));
    const revoked = await tokens.create(makeCall(memberCtx, { body: { name: 'b', bundle: 'read-only' } }));
    await tokens.revoke(makeCall(memberCtx, { params: { id: revoked.id } }));

    app.bus.respond(LogdataMessages.counts, ({ customerIds }) =>
      Object.fromEntries(customerIds.map((id) => [id, id === customer.id ? { count: 3, storedBytes: 4096 } : { count: 0, storedBytes: 0 }])),
    );
    app.bus.respond(FirmwareMessages.counts, ({ customerIds }) =>
      Object.fromEntries(
        customerIds.map((id) => [
          id,
          id === customer.id ? { firmware: 2, storedBytes: 1000, tags: ['beta', 'eu'] } : { firmware: 0, storedBytes: 0, tags: [] },
        ]),
      ),
    );
    app.bus.respond(RegistryMessages.counts, ({ customerIds }) =>
      Object.fromEntries(customerIds.map((id) => [id, id === customer.id ? { devices: 5, tags: ['beta', 'lab'] } : { devices: 0, tags: [] }])),
    );
    const list = await customers.list(makeCall(ctx));
    const item = list.items.find((c) => c.domain === customer.domain)!;
    expect(item.counts).toEqual({ firmware: 2, logdata: 3, devices: 5, tags: 3, active_tokens: 1, stored_bytes: 5096 });
    expect(list.items.map((c) => c.domain)).toEqual([...list.items.map((c) => c.domain)].sort());
    for (const message of [LogdataMessages.counts, FirmwareMessages.counts, RegistryMessages.counts]) {
      const sent = app.bus.sent.filter((s) => s.pattern === message.pattern).at(-1)!;
      expect((sent.payload as { customerIds: string[] }).customerIds).toContain(customer.id);
      expect(sent.options?.timeoutMs).toBeLessThanOrEqual(5000);
    }

    app.bus.respond(LogdataMessages.counts, () => {
      throw ServiceError.unavailable('logdata did not answer');
    });
    const degradedCall = makeCall<Record<string, never>, Record<string, never>, undefined>(ctx);
    const degraded = await customers.list(degradedCall);
    expect(degraded.items.find((c) => c.domain === customer.domain)!.counts).toEqual({
      firmware: 2,
      logdata: 0,
      devices: 5,
      tags: 3,
      active_tokens: 1,
      stored_bytes: 1000,
    });
    // the operator finds which request answered zeros
    expect(logLines).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: `${LogdataMessages.counts.pattern} unavailable; answering zeros`, request_id: degradedCall.ctx.requestId }),
    );
  });

  it('deletes a customer: recorded first (hidden, sessions revoked, audited), finished once every app has erased its part', async () => {
    const ctx = await adminCtx();
    const customer = await makeStoredCustomer(app.store);
    const member = await makeStoredMember(app.store, customer, 'owner', { email: `only-${makeEmail()}` });
    const erased: string[] = [];
    const erase =
      (pattern: string) =>
      ({ customerId }: { customerId: string }) => {
        erased.push(`${pattern} ${customerId}`);
        return { rows: 1, objects: 0 };
      };
    app.bus.respond(FirmwareMessages.eraseCustomer, erase('firmware'));
    app.bus.respond(RegistryMessages.eraseCustomer, erase('registry'));
    app.bus.respond(LogdataMessages.eraseCustomer, () => {
      throw ServiceError.unavailable('logdata did not answer');
    });
    // No confirm: the gateway refuses it first (400); identity checks it again.
    const call = (confirm?: string) =>
      makeCall<{ domain: string }, { confirm: string }, undefined>(ctx, {
        params: { domain: customer.domain },
        query: (confirm === undefined ? {} : { confirm }) as { confirm: string },
      });

    await expect(customers.delete(call())).rejects.toMatchObject({ status: 400, message: 'confirm must repeat the domain' });
    await expect(customers.delete(call('other.test'))).rejects.toMatchObject({ status: 400 });
    const operator = await operatorCustomer();
    await expect(customers.delete(makeCall(ctx, { params: { domain: operator.domain }, query: { confirm: operator.domain } }))).rejects.toMatchObject({
      status: 400,
      message: 'the operator customer cannot be deleted',
    });
    expect(erased).toEqual([]);

    // logdata is down: recorded, hidden, not finished.
    expect(await customers.delete(call(customer.domain.toUpperCase()))).toEqual({ done: false });
    expect(erased.sort()).toEqual([`firmware ${customer.id}`, `registry ${customer.id}`]);
    expect((await app.store.repos.customers.findByDomainEvenDeleting(customer.domain))?.status).toBe('deleting');
    expect(await app.store.repos.customers.findByDomain(customer.domain)).toBeNull();
    expect(await app.store.repos.customers.findById(customer.id)).toBeNull();
    expect((await customers.list(makeCall(ctx))).items.map((c) => c.domain)).not.toContain(customer.domain);
    await expect(customers.get(makeCall(ctx, { params: { domain: customer.domain } }))).rejects.toMatchObject({ status: 404 });
    expect(app.bus.events(IdentityEvents.customerChanged)).toContainEqual({ id: customer.id, domain: customer.domain });

    // logdata is back: the periodic resume finishes it; the person who belonged nowhere else goes.
    app.bus.respond(LogdataMessages.eraseCustomer, erase('logdata'));
    await app.get(FinishCustomerDeletionUseCase).executeRecorded();
    expect(erased).toContain(`logdata ${customer.id}`);
    expect(await app.store.repos.customers.findByDomainEvenDeleting(customer.domain)).toBeNull();
    expect(await app.store.repos.users.findById(member.id)).toBeNull();
    // Gone: a repeated delete is 404; the domain can be opened again.
    await expect(customers.delete(call(customer.domain))).rejects.toMatchObject({ status: 404 });
    await customers.create(makeCall(ctx, { body: { domain: customer.domain } }));
  });

  it('gets one customer with its members; unknown is 404', async () => {
    const ctx = await adminCtx();
    const customer = await makeStoredCustomer(app.store);
    const active = await makeStoredMember(app.store, customer, 'owner', { email: `a-${makeEmail()}` });
    await makeStoredMember(app.store, customer, 'viewer', { email: `b-${makeEmail()}`, disabled: true });
    await signIn(active.email);
    const result = await customers.get(makeCall(ctx, { params: { domain: customer.domain.toUpperCase() } }));
    expect(result.customer.domain).toBe(customer.domain);
    expect(result.members).toEqual([
      {
        email: active.email,
        domain: customer.domain,
        role: 'owner',
        disabled: false,
        created_at: expect.any(String),
        last_login_at: app.clock.now().toISOString(),
        user_disabled: false,
      },
      expect.objectContaining({ role: 'viewer', disabled: true, user_disabled: true, last_login_at: null }),
    ]);
    const error = await serviceErrorOf(customers.get(makeCall(ctx, { params: { domain: 'nobody.example' } })));
    expect([error.status, error.message]).toEqual([404, 'customer not found']);
  });
});

// ---------------------------------------------------------------- resolveCustomer

describe('resolveCustomer', () => {
  it('finds a customer by id or domain; unknown is null', async () => {
    const customer = await makeStoredCustomer(app.store, { isSandbox: true });
    const info = { id: customer.id, domain: customer.domain, status: 'active', isSandbox: true, corsOrigins: [], pollIntervalSeconds: null };
    expect(await gateway.resolve({ id: customer.id })).toEqual(info);
    expect(await gateway.resolve({ domain: customer.domain.toUpperCase() })).toEqual(info);
    expect(await gateway.resolve({ domain: 'unknown.example' })).toBeNull();
    expect(await gateway.resolve({ id: randomUUID() })).toBeNull();
    expect(await gateway.resolve({ id: 'garbage' })).toBeNull();
  });

  it("answers each customer's cors_origins, and the union of the active customers' lists for preflights", async () => {
    const listing = await makeStoredCustomer(app.store);
    const suspended = await makeStoredCustomer(app.store);
    const origin = `https://${listing.domain}`;
    const hidden = `https://${suspended.domain}`;
    await app.store.repos.customers.update({ customerId: listing.id, corsOrigins: [origin, 'https://shared.example'], at: new Date() });
    await app.store.repos.customers.update({ customerId: suspended.id, corsOrigins: [hidden], status: 'suspended', at: new Date() });
    expect((await gateway.resolve({ domain: listing.domain }))?.corsOrigins).toEqual([origin, 'https://shared.example']);
    const { origins } = await gateway.corsOrigins();
    expect(origins).toEqual(expect.arrayContaining([origin, 'https://shared.example']));
    expect(origins).not.toContain(hidden);
    expect(new Set(origins).size).toBe(origins.length);
  });
});

// ---------------------------------------------------------------- operator CLI

describe('issueToken (operator CLI)', () => {
  it('issues a token as the member, checked against their role', async () => {
    const { customer, user } = await memberWithPrincipal('editor');
    const operator = app.get(OperatorController);
    const created = await operator.issue({ customerDomain: customer.domain, email: user.email, name: 'cli', bundle: 'uploader' });
    expect(created).toMatchObject({ bundle: 'uploader', created_by: `user:${user.id}` });
    expect((await verifyJwt(created.token)).payload).toMatchObject({ cid: customer.id, sub: `user:${user.id}` });
    expect((await serviceErrorOf(operator.issue({ customerDomain: customer.domain, email: user.email, name: 'cli', bundle: 'admin' }))).status).toBe(403);
    expect((await serviceErrorOf(operator.issue({ customerDomain: customer.domain, email: makeEmail(), name: 'cli', bundle: 'read-only' }))).message).toBe(
      'member not found',
    );
    expect((await serviceErrorOf(operator.issue({ customerDomain: makeDomain(), email: user.email, name: 'cli', bundle: 'read-only' }))).message).toBe(
      'customer not found',
    );
  });

  it('gives the operator owner an admin token', async () => {
    const created = await app
      .get(OperatorController)
      .issue({ customerDomain: 'operator.example', email: ADMIN_EMAIL, name: 'bootstrap', bundle: 'admin', expiresInDays: 7 });
    expect(created.scopes).toEqual(['admin']);
    expect(new Date(created.expires_at).getTime() - new Date(created.created_at).getTime()).toBe(7 * 24 * HOUR);
  });

  it('runs in-process without the bus, opening the identity database itself', async () => {
    const { customer, user } = await memberWithPrincipal('viewer');
    const created = await issueTokenForMember(db.config, { customerDomain: customer.domain, email: user.email, name: 'from cli', bundle: 'read-only' });
    // The CLI issues on the system clock, not the test's fake one (which starts on a fixed day).
    const { payload } = await verifyJwt(created.token, new Date());
    expect(payload).toMatchObject({ jti: created.id, cust: customer.domain });
    expect(await gateway.status({ kind: 'token', id: created.id })).toMatchObject({ active: true });
    await expect(issueTokenForMember(db.config, { customerDomain: customer.domain, email: user.email, name: 'x', bundle: 'full' })).rejects.toMatchObject({
      status: 403,
    });
  });
});

// ---------------------------------------------------------------- down

describe('migrations', () => {
  it('revert cleanly (down) and apply again — runs last', async () => {
    await app.close();
    await closeDatabases();
    expect(await revertLastMigration(db.config, IDENTITY_DATABASE)).toBe('CustomerPollInterval1765300000000');
    expect(await revertLastMigration(db.config, IDENTITY_DATABASE)).toBe('IdentityCustomerDeleting1764500000000');
    expect(await revertLastMigration(db.config, IDENTITY_DATABASE)).toBe('IdentityOutbox1764400000000');
    expect(await revertLastMigration(db.config, IDENTITY_DATABASE)).toBe('IdentityLoginLimits1763800000000');
    expect(await revertLastMigration(db.config, IDENTITY_DATABASE)).toBe('IdentitySchema1763700000000');
    const check = await openAppDatabase(db.config, { ...IDENTITY_DATABASE, migrate: false });
    try {
      const [row] = await check.query(
        `SELECT count(*)::int AS tables FROM information_schema.tables WHERE table_schema = 'identity' AND table_name <> 'migrations'`,
      );
      expect(row.tables).toBe(0);
    } finally {
      await check.destroy();
    }
    const again = await openAppDatabase(db.config, IDENTITY_DATABASE);
    try {
      const [row] = await again.query(
        `SELECT count(*)::int AS tables FROM information_schema.tables WHERE table_schema = 'identity' AND table_name <> 'migrations'`,
      );
      expect(row.tables).toBe(12);
    } finally {
      await again.destroy();
    }
  });
});
