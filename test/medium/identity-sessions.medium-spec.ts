import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AdminEvents,
  type AuditEntryInput,
  ErrorCode,
  IdentityEvents,
  type RefreshedSession,
  type RequestContext,
  type SecurityEventInput,
  type VerifiedLogin,
} from '@app/contracts';
import { closeDatabases, configureLogging, MAIL_JOB, MAIL_QUEUE, type MailMessage } from '@app/infra';
import { createHash, randomUUID } from 'node:crypto';
import { AdminCustomersController } from '../../apps/identity/src/controllers/admin-customers.controller.js';
import { AuthController } from '../../apps/identity/src/controllers/auth.controller.js';
import { GatewayController } from '../../apps/identity/src/controllers/gateway.controller.js';
import { MembersController } from '../../apps/identity/src/controllers/members.controller.js';
import { OperatorController } from '../../apps/identity/src/controllers/operator.controller.js';
import { TokensController } from '../../apps/identity/src/controllers/tokens.controller.js';
import type { CustomerEntity } from '../../apps/identity/src/entities/customer.entity.js';
import { ForgetLoginRecordsUseCase } from '../../apps/identity/src/use-cases/forget-login-records/forget-login-records.usecase.js';
import { ProvisionOperatorUseCase } from '../../apps/identity/src/use-cases/provision-operator/provision-operator.usecase.js';
import { EnsureSandboxTokensUseCase, SANDBOX_TOKEN_OWNER } from '../../apps/identity/src/use-cases/ensure-sandbox-tokens/ensure-sandbox-tokens.usecase.js';
import { makeCall, makeContext, makeCustomer, makeEmail, makePrincipal, outboxPayloads, serviceErrorOf } from '@app/testing';
import { IDENTITY_CLIENT, makeStoredCustomer, makeStoredMember } from '../../apps/identity/test/factories.js';
import { createIdentityDatabase, type IdentityDatabase, type IdentityHarness, startIdentity } from './identity.support.js';

configureLogging({ sink: () => undefined });

/**
 * The identity app's sessions, members, administrator operations, limits and sandbox tokens on
 * real PostgreSQL (the use cases through their controllers, as the bus delivers them), with a
 * hand-moved clock and in-memory bus and job queue.
 */

const SANDBOX = 'sandbox.example';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const GRACE_SECONDS = 4;

let db: IdentityDatabase;
let app: IdentityHarness;
let auth: AuthController;
let members: MembersController;
let admin: AdminCustomersController;
let gateway: GatewayController;
let tokens: TokensController;
let ipSequence = 0;

beforeAll(async () => {
  db = await createIdentityDatabase({
    OPERATOR_ADMIN_EMAIL: 'root@operator.example',
    SANDBOX_DOMAIN: SANDBOX,
    LOGIN_RATE_PER_IP_PER_HOUR: '3',
    LOGIN_VERIFY_RATE_PER_IP_PER_HOUR: '4',
    LOGIN_VERIFY_RATE_PER_EMAIL_PER_HOUR: '6',
    REFRESH_REUSE_GRACE_SECONDS: String(GRACE_SECONDS),
  });
  app = await startIdentity(db.config);
  auth = app.get(AuthController);
  members = app.get(MembersController);
  admin = app.get(AdminCustomersController);
  gateway = app.get(GatewayController);
  tokens = app.get(TokensController);
});

afterAll(async () => {
  await app?.close();
  await closeDatabases();
  await db?.dispose();
});

// ---------------------------------------------------------------- helpers

/** Every request from its own client address unless told: the per-IP limits stay out of the way. */
const nextIp = () => `198.51.100.${++ipSequence % 250}`;
const publicCtx = (ip = nextIp()): RequestContext => ({ ...makeContext(null, { principal: null, ...IDENTITY_CLIENT }), ip });

function loginMail(to: string): { code: string; c: string; t: string } {
  const mail = app.jobs.jobs
    .filter((j) => j.queue === MAIL_QUEUE && j.name === MAIL_JOB)
    .map((j) => j.data as MailMessage)
    .filter((m) => m.to === to && m.subject.startsWith('Your login code'))
    .at(-1);
  if (!mail) throw new Error(`no login mail for ${to}`);
  const link = new URL(/https:\/\/\S+\/auth\/magic\?\S+/.exec(mail.text)![0]);
  return { code: /\b(\d{6})\b/.exec(mail.subject)![1], c: link.searchParams.get('c')!, t: link.searchParams.get('t')! };
}

async function signIn(email: string): Promise<VerifiedLogin> {
  await auth.login(makeCall(publicCtx(), { body: { email } }));
  return auth.verify(makeCall(publicCtx(), { body: { email, code: loginMail(email).code } }));
}

/** The session id of a login (from the access token's `sid`). */
function sid(login: { session: { access: string } }): string {
  return JSON.parse(Buffer.from(login.session.access.split('.')[1], 'base64url').toString()).sid as string;
}

const refresh = (token: string | null, csrf: string | null, ctx = publicCtx()) => auth.refresh({ ...makeCall(ctx), refresh: { token, csrfToken: csrf } });

/** A principal of a session as the gateway builds it, for controllers that need one. */
function sessionCtx(login: VerifiedLogin, user: { id: string }, customer: CustomerEntity): RequestContext {
  const ref = makeCustomer(customer);
  return makeContext(ref, {
    principal: makePrincipal(ref, { userId: user.id, kind: 'session', credentialId: sid(login), role: login.identity.role as 'owner' }),
    ...IDENTITY_CLIENT,
  });
}

function events<P>(event: { subject: string }): P[] {
  return app.bus.events(event as never) as P[];
}

/** Audit entries and security events from the identity outbox (the relay cannot deliver them: no admin app here). */
async function outboxed<P>(event: { subject: string }): Promise<P[]> {
  return outboxPayloads<P>(app.dataSource, 'identity', event.subject === AdminEvents.audit.subject ? 'audit' : 'security_event');
}

async function member(role: 'viewer' | 'editor' | 'owner', customer?: CustomerEntity) {
  const target = customer ?? (await makeStoredCustomer(app.store));
  const user = await makeStoredMember(app.store, target, role);
  const ref = makeCustomer(target);
  return { customer: target, user, ref, ctx: makeContext(ref, { principal: makePrincipal(ref, { userId: user.id, role }), ...IDENTITY_CLIENT }) };
}

// ---------------------------------------------------------------- refresh

describe('refresh tokens', () => {
  it('rotate on every use: a new refresh token, a new access token, the same CSRF token; the session is touched', async () => {
    const { user } = await member('editor');
    const login = await signIn(user.email);
    app.clock.advance(20 * MINUTE);
    const first: RefreshedSession = await refresh(login.session.refresh, login.session.csrf);
    expect(first.session.refresh).not.toBe(login.session.refresh);
    expect(first.session.access).not.toBe(login.session.access);
    expect(first.session.csrf).toBe(login.session.csrf);
    expect(first.body).toEqual({
      csrf_token: login.session.csrf,
      access_expires_at: new Date(app.clock.now().getTime() + 900_000).toISOString(),
      session_expires_at: expect.any(String),
    });
    expect(first.session.refreshMaxAgeSeconds).toBe(7 * 24 * 3600 - 20 * 60);
    const [session] = await app.dataSource.query(`SELECT last_used_at FROM identity.sessions WHERE id = $1`, [sid(login)]);
    expect(new Date(session.last_used_at)).toEqual(app.clock.now());
    const rows = await app.dataSource.query(`SELECT token_hash, rotated_at FROM identity.refresh_tokens WHERE session_id = $1 ORDER BY issued_at`, [
      sid(login),
    ]);
    expect(rows).toEqual([
      { token_hash: createHash('sha256').update(login.session.refresh).digest('base64url'), rotated_at: app.clock.now() },
      { token_hash: createHash('sha256').update(first.session.refresh).digest('base64url'), rotated_at: null },
    ]);
    const second = await refresh(first.session.refresh, first.session.csrf);
    expect(second.session.refresh).not.toBe(first.session.refresh);
  });

  it('need the CSRF token of their session (403, nothing rotates); without a token or an unknown one: 401', async () => {
    const { user } = await member('viewer');
    const login = await signIn(user.email);
    const other = await signIn((await member('viewer')).user.email);
    expect((await serviceErrorOf(refresh(login.session.refresh, null))).status).toBe(403);
    expect((await serviceErrorOf(refresh(login.session.refresh, other.session.csrf))).message).toBe('missing or invalid CSRF token');
    expect((await serviceErrorOf(refresh(null, login.session.csrf))).status).toBe(401);
    expect((await serviceErrorOf(refresh('x'.repeat(43), login.session.csrf))).status).toBe(401);
    await expect(refresh(login.session.refresh, login.session.csrf)).resolves.toBeDefined();
  });

  it(`within an operator's grace (${GRACE_SECONDS} s) refuse the token rotated just before with 409, issuing nothing and keeping the session; then reuse`, async () => {
    const { user } = await member('editor');
    const login = await signIn(user.email);
    const outcomes = await Promise.allSettled([refresh(login.session.refresh, login.session.csrf), refresh(login.session.refresh, login.session.csrf)]);
    const won = outcomes.filter((o): o is PromiseFulfilledResult<RefreshedSession> => o.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({ reason: { status: 409 } });
    const live = won[0].value.session;
    app.clock.advance(GRACE_SECONDS * 1000);
    expect((await serviceErrorOf(refresh(login.session.refresh, login.session.csrf))).status).toBe(409);
    // The gateway's renewal needs no CSRF token: refused the same way.
    expect((await serviceErrorOf(auth.renew({ refreshToken: login.session.refresh, ip: '192.0.2.1', userAgent: 'ua', requestId: 'r' }))).status).toBe(409);
    // The session goes on with the live token.
    expect(await gateway.status({ kind: 'session', id: sid(login) })).toMatchObject({ active: true });
    app.clock.advance(1000);
    const revokedBefore = events(IdentityEvents.credentialRevoked).length;
    const error = await serviceErrorOf(refresh(login.session.refresh, login.session.csrf, { ...publicCtx('203.0.113.9'), userAgent: 'thief' }));
    expect(error).toMatchObject({ status: 401, message: 'refresh token already used: the session has been ended; log in again' });
    // The whole session ended: its live token too; gateways told; a critical security event.
    expect((await serviceErrorOf(refresh(live.refresh, live.csrf))).status).toBe(401);
    expect(await gateway.status({ kind: 'session', id: sid(login) })).toEqual({ active: false });
    expect(events(IdentityEvents.credentialRevoked).slice(revokedBefore)).toEqual([{ kind: 'session', id: sid(login) }]);
    const event = (await outboxed<SecurityEventInput>(AdminEvents.securityEvent)).find(
      (e) => e.kind === 'session_token_reuse' && e.detail.session_id === sid(login),
    );
    expect(event).toMatchObject({ severity: 'critical', ip: '203.0.113.9', detail: expect.objectContaining({ email: user.email, user_agent: 'thief' }) });
    const [row] = await app.dataSource.query(`SELECT revoked_reason FROM identity.sessions WHERE id = $1`, [sid(login)]);
    expect(row.revoked_reason).toBe('refresh_reuse');
  });

  it('an older token (not the one just before the live one) is reuse even within the grace', async () => {
    const { user } = await member('editor');
    const login = await signIn(user.email);
    const one = await refresh(login.session.refresh, login.session.csrf);
    await refresh(one.session.refresh, one.session.csrf);
    expect((await serviceErrorOf(refresh(login.session.refresh, login.session.csrf))).message).toMatch(/already used/);
  });

  it('without a grace (the default) a replay straight after the rotation is reuse: the session ends', async () => {
    const strict = await startIdentity({ ...db.config, refreshReuseGraceSeconds: 0 }, { dataSource: app.dataSource, clock: app.clock });
    try {
      const strictAuth = strict.get(AuthController);
      const strictRefresh = (token: string, csrf: string) => strictAuth.refresh({ ...makeCall(publicCtx()), refresh: { token, csrfToken: csrf } });
      const { user } = await member('editor');
      const login = await signIn(user.email);
      await strictRefresh(login.session.refresh, login.session.csrf);
      const error = await serviceErrorOf(strictRefresh(login.session.refresh, login.session.csrf));
      expect(error).toMatchObject({ status: 401, message: 'refresh token already used: the session has been ended; log in again' });
      expect(await gateway.status({ kind: 'session', id: sid(login) })).toEqual({ active: false });
    } finally {
      await strict.close();
    }
  });

  it('stop working after 12 idle hours or 7 days in total, however active', async () => {
    const { user } = await member('viewer');
    let current = (await signIn(user.email)).session;
    app.clock.advance(12 * HOUR);
    expect((await serviceErrorOf(refresh(current.refresh, current.csrf))).status).toBe(401);

    current = (await signIn(user.email)).session;
    for (let elapsed = 0; elapsed + 11 * HOUR < 7 * 24 * HOUR; elapsed += 11 * HOUR) {
      app.clock.advance(11 * HOUR);
      current = (await refresh(current.refresh, current.csrf)).session;
    }
    app.clock.advance(11 * HOUR);
    expect((await serviceErrorOf(refresh(current.refresh, current.csrf))).status).toBe(401);
  });
});

// ---------------------------------------------------------------- switch, logout, magic link

describe('switch and logout', () => {
  it('switch moves the session to another customer of the person and tells the gateways; 403 and 404 otherwise', async () => {
    const a = await member('owner');
    const b = await makeStoredCustomer(app.store);
    await app.store.repos.memberships.addIfAbsent({ customerId: b.id, userId: a.user.id, role: 'viewer', at: app.clock.now() });
    const login = await signIn(a.user.email);
    const current = login.identity.customer === a.customer.domain ? a.customer : b;
    const target = current === a.customer ? b : a.customer;
    const ctx = sessionCtx(login, a.user, current);
    const switched = await auth.switch(makeCall(ctx, { body: { domain: target.domain } }));
    expect(switched.identity).toMatchObject({ customer: target.domain, csrf_token: login.session.csrf });
    expect(await gateway.status({ kind: 'session', id: sid(login) })).toMatchObject({ active: true, customerId: target.id });
    expect(events(IdentityEvents.credentialChanged)).toContainEqual({ kind: 'session', id: sid(login) });
    const claims = JSON.parse(Buffer.from(switched.access.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ cid: target.id, cust: target.domain, sid: sid(login) });

    expect((await serviceErrorOf(auth.switch(makeCall(ctx, { body: { domain: (await makeStoredCustomer(app.store)).domain } })))).status).toBe(403);
    expect((await serviceErrorOf(auth.switch(makeCall(ctx, { body: { domain: 'nobody.example' } })))).status).toBe(404);
    const tokenCtx = makeContext(makeCustomer(a.customer), {
      principal: makePrincipal(makeCustomer(a.customer), { userId: a.user.id, kind: 'token' }),
      ...IDENTITY_CLIENT,
    });
    expect((await serviceErrorOf(auth.switch(makeCall(tokenCtx, { body: { domain: b.domain } })))).status).toBe(403);
  });

  it('logout ends the session once; tokens cannot log out', async () => {
    const a = await member('editor');
    const login = await signIn(a.user.email);
    const ctx = sessionCtx(login, a.user, a.customer);
    await auth.logout(makeCall(ctx));
    await auth.logout(makeCall(ctx));
    expect(events(IdentityEvents.credentialRevoked).filter((e) => (e as { id: string }).id === sid(login))).toHaveLength(1);
    expect((await serviceErrorOf(refresh(login.session.refresh, login.session.csrf))).status).toBe(401);
    const tokenCtx = makeContext(a.ref, { principal: makePrincipal(a.ref, { userId: a.user.id, kind: 'token' }), ...IDENTITY_CLIENT });
    expect((await serviceErrorOf(auth.logout(makeCall(tokenCtx)))).status).toBe(403);
  });
});

describe('magic link', () => {
  const check = (c: string, t: string) => auth.magicCheck(makeCall(publicCtx(), { query: { c, t } }));
  const confirm = (c: string, t: string, headers: Record<string, string> = {}) => auth.magicConfirm({ ...makeCall(publicCtx(), { query: { c, t } }), headers });

  it('GET checks without using it up; POST uses it once, retires the other codes and starts a session', async () => {
    const { user } = await member('editor');
    await auth.login(makeCall(publicCtx(), { body: { email: user.email } }));
    const first = loginMail(user.email);
    await auth.login(makeCall(publicCtx(), { body: { email: user.email } }));
    const { c, t } = loginMail(user.email);
    expect(await check(c, t)).toEqual({ valid: true, c, t });
    expect(await check(c, t)).toEqual({ valid: true, c, t });
    const result = await confirm(c, t, { origin: 'https://fw.example.test', 'sec-fetch-site': 'same-origin' });
    expect(result).toMatchObject({ ok: true, session: { csrf: expect.any(String), refresh: expect.any(String) } });
    expect(await confirm(c, t)).toEqual({ ok: false, reason: 'invalid' });
    expect((await check(c, t)).valid).toBe(false);
    expect((await serviceErrorOf(auth.verify(makeCall(publicCtx(), { body: { email: user.email, code: first.code } })))).status).toBe(401);
  });

  it('refuses another site (Origin, Sec-Fetch-Site), a wrong token, an uninvited challenge and an expired one', async () => {
    const { user } = await member('viewer');
    await auth.login(makeCall(publicCtx(), { body: { email: user.email } }));
    const { c, t } = loginMail(user.email);
    expect((await serviceErrorOf(confirm(c, t, { origin: 'https://evil.example' }))).status).toBe(403);
    expect((await serviceErrorOf(confirm(c, t, { 'sec-fetch-site': 'cross-site' }))).status).toBe(403);
    expect((await serviceErrorOf(confirm(c, t, { origin: 'null' }))).status).toBe(403);
    expect((await serviceErrorOf(confirm(c, t, { origin: 'null', 'sec-fetch-site': 'cross-site' }))).status).toBe(403);
    expect(await confirm(c, `${t}x`)).toMatchObject({ ok: false });
    expect(await confirm(randomUUID(), t)).toMatchObject({ ok: false });
    app.clock.advance(15 * MINUTE);
    expect((await check(c, t)).valid).toBe(false);
    expect(await confirm(c, t)).toMatchObject({ ok: false });
  });
});

// ---------------------------------------------------------------- limits

describe('login limits', () => {
  it('per client address: login requests and verifications, 429 with Retry-After, one security event per window', async () => {
    const ip = '192.0.2.200';
    for (let i = 0; i < 3; i++) await auth.login(makeCall(publicCtx(ip), { body: { email: makeEmail() } }));
    const refused = await serviceErrorOf(auth.login(makeCall(publicCtx(ip), { body: { email: makeEmail() } })));
    expect(refused).toMatchObject({ code: ErrorCode.RateLimited, headers: { 'Retry-After': String(3600) } });
    await serviceErrorOf(auth.login(makeCall(publicCtx(ip), { body: { email: makeEmail() } })));
    expect((await outboxed<SecurityEventInput>(AdminEvents.securityEvent)).filter((e) => e.kind === 'login_rate_limited' && e.ip === ip)).toHaveLength(1);
    app.clock.advance(HOUR + 1000);
    await expect(auth.login(makeCall(publicCtx(ip), { body: { email: makeEmail() } }))).resolves.toMatchObject({ sent: true });

    const vip = '192.0.2.201';
    for (let i = 0; i < 4; i++)
      expect((await serviceErrorOf(auth.verify(makeCall(publicCtx(vip), { body: { email: makeEmail(), code: '123456' } })))).status).toBe(401);
    expect((await serviceErrorOf(auth.verify(makeCall(publicCtx(vip), { body: { email: makeEmail(), code: '123456' } })))).status).toBe(429);
  });

  it('per email for verifications, whatever the address; a code killed by 5 wrong guesses raises login_code_failures', async () => {
    const { user } = await member('viewer');
    await auth.login(makeCall(publicCtx(), { body: { email: user.email } }));
    const { code } = loginMail(user.email);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < 5; i++)
      expect((await serviceErrorOf(auth.verify(makeCall(publicCtx(), { body: { email: user.email, code: wrong } })))).status).toBe(401);
    const failures = (await outboxed<SecurityEventInput>(AdminEvents.securityEvent)).filter(
      (e) => e.kind === 'login_code_failures' && e.detail.email === user.email,
    );
    expect(failures).toEqual([
      expect.objectContaining({ severity: 'warn', domain: null, detail: expect.objectContaining({ wrong_guesses: 5, invited: true }) }),
    ]);
    expect((await serviceErrorOf(auth.verify(makeCall(publicCtx(), { body: { email: user.email, code } })))).status).toBe(401); // dead: sixth attempt
    expect((await serviceErrorOf(auth.verify(makeCall(publicCtx(), { body: { email: user.email, code } })))).status).toBe(429); // seventh: per-email limit (6)
  });

  it('housekeeping deletes attempts and challenges older than a day', async () => {
    const email = makeEmail();
    await auth.login(makeCall(publicCtx(), { body: { email } }));
    app.clock.advance(25 * HOUR);
    const removed = await app.get(ForgetLoginRecordsUseCase).execute();
    expect(removed.attempts).toBeGreaterThan(0);
    expect(removed.challenges).toBeGreaterThan(0);
    const [left] = await app.dataSource.query(`SELECT count(*)::int AS n FROM identity.login_challenges WHERE email = $1`, [email]);
    expect(left.n).toBe(0);
  });
});

// ---------------------------------------------------------------- members

describe('members', () => {
  it('invite (mail, 409 twice), change role, remove; removal ends sessions there and revokes the tokens made for it only', async () => {
    const owner = await member('owner');
    const other = await makeStoredCustomer(app.store);
    const email = makeEmail('member');
    const created = await members.invite(makeCall(owner.ctx, { body: { email, role: 'editor' } }));
    expect(created).toMatchObject({ email, role: 'editor', disabled: false, last_login_at: null });
    expect((await serviceErrorOf(members.invite(makeCall(owner.ctx, { body: { email, role: 'viewer' } })))).status).toBe(409);
    const user = (await app.store.repos.users.findByEmail(email))!;
    await app.store.repos.memberships.addIfAbsent({ customerId: other.id, userId: user.id, role: 'editor', at: app.clock.now() });

    const onA = await signIn(email);
    const aCtx = sessionCtx(onA, user, onA.identity.customer === owner.customer.domain ? owner.customer : other);
    if (onA.identity.customer !== owner.customer.domain) await auth.switch(makeCall(aCtx, { body: { domain: owner.customer.domain } }));
    const onOther = await signIn(email);
    if (onOther.identity.customer !== other.domain) await auth.switch(makeCall(sessionCtx(onOther, user, owner.customer), { body: { domain: other.domain } }));
    const memberCtx = makeContext(owner.ref, { principal: makePrincipal(owner.ref, { userId: user.id, role: 'editor' }), ...IDENTITY_CLIENT });
    const tokenHere = await tokens.create(makeCall(memberCtx, { body: { name: 'here', bundle: 'uploader' } }));
    const otherRef = makeCustomer(other);
    const tokenThere = await tokens.create(
      makeCall(makeContext(otherRef, { principal: makePrincipal(otherRef, { userId: user.id, role: 'editor' }), ...IDENTITY_CLIENT }), {
        body: { name: 'there', bundle: 'uploader' },
      }),
    );

    expect(await members.update(makeCall(owner.ctx, { params: { email }, body: { role: 'viewer' } }))).toMatchObject({ role: 'viewer' });
    expect(await gateway.status({ kind: 'token', id: tokenHere.id })).toMatchObject({
      active: true,
      scopes: ['fw:read', 'logdata:read', 'devices:read', 'tags:read', 'stats:read'],
    });
    expect(events(IdentityEvents.credentialChanged)).toEqual(
      expect.arrayContaining([
        { kind: 'token', id: tokenHere.id },
        { kind: 'session', id: sid(onA) },
      ]),
    );

    await members.remove(makeCall(owner.ctx, { params: { email } }));
    expect(await gateway.status({ kind: 'session', id: sid(onA) })).toEqual({ active: false });
    expect(await gateway.status({ kind: 'token', id: tokenHere.id })).toEqual({ active: false });
    expect(await gateway.status({ kind: 'session', id: sid(onOther) })).toMatchObject({ active: true, customerId: other.id });
    expect(await gateway.status({ kind: 'token', id: tokenThere.id })).toMatchObject({ active: true });
    const audit = (await outboxed<AuditEntryInput>(AdminEvents.audit)).filter((e) => e.domain === owner.customer.domain).map((e) => [e.action, e.target_id]);
    expect(audit).toEqual(
      expect.arrayContaining([
        ['member.invite', email],
        ['member.update', email],
        ['member.remove', email],
        ['token.revoke', tokenHere.id],
      ]),
    );
    expect((await serviceErrorOf(members.remove(makeCall(owner.ctx, { params: { email } })))).status).toBe(404);
  });

  it('never lose their last owner, even when two owners demote each other at once', async () => {
    const first = await member('owner');
    const second = await member('owner', first.customer);
    const results = await Promise.allSettled([
      members.update(makeCall(first.ctx, { params: { email: second.user.email }, body: { role: 'editor' } })),
      members.update(makeCall(second.ctx, { params: { email: first.user.email }, body: { role: 'editor' } })),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(await app.store.repos.memberships.countOwners(first.customer.id)).toBe(1);
    const last = (await app.store.repos.memberships.listMembers(first.customer.id)).find((m) => m.role === 'owner')!;
    expect((await serviceErrorOf(members.remove(makeCall(first.ctx, { params: { email: last.email } })))).status).toBe(409);
  });
});

// ---------------------------------------------------------------- administrators

describe('administrators', () => {
  const adminCtx = async (): Promise<RequestContext> => {
    const operator = (await app.store.repos.customers.findByDomain('operator.example'))!;
    const person = await makeStoredMember(app.store, operator, 'owner');
    return makeContext(null, { principal: makePrincipal(makeCustomer(operator), { userId: person.id, role: 'owner', admin: 'full' }), ...IDENTITY_CLIENT });
  };

  it('disabling a person ends all sessions and revokes every token they made; enabling revives none', async () => {
    const a = await member('editor');
    const login = await signIn(a.user.email);
    const token = await tokens.create(makeCall(a.ctx, { body: { name: 't', bundle: 'read-only' } }));
    const ctx = await adminCtx();
    expect(await admin.updateUser(makeCall(ctx, { params: { email: a.user.email }, body: { disabled: true } }))).toEqual({
      disabled: true,
      email: a.user.email,
    });
    expect(await gateway.status({ kind: 'session', id: sid(login) })).toEqual({ active: false });
    const [row] = await app.dataSource.query(`SELECT revoked_at FROM identity.api_tokens WHERE id = $1`, [token.id]);
    expect(row.revoked_at).not.toBeNull();
    expect(await outboxed<AuditEntryInput>(AdminEvents.audit)).toContainEqual(
      expect.objectContaining({ action: 'user.update', target_id: a.user.email, actor: expect.stringMatching(/^admin:user:/) }),
    );
    await admin.updateUser(makeCall(ctx, { params: { email: a.user.email }, body: { disabled: false } }));
    expect(await gateway.status({ kind: 'token', id: token.id })).toEqual({ active: false });
    expect(await gateway.status({ kind: 'session', id: sid(login) })).toEqual({ active: false });
    const items = (await admin.listUsers()).items.filter((m) => m.email === a.user.email);
    expect(items).toEqual([expect.objectContaining({ domain: a.customer.domain, role: 'editor', user_disabled: false })]);
  });

  it('suspending a customer ends its sessions and stops its tokens; a taken domain is 409; rename announces the old domain', async () => {
    const a = await member('owner');
    const login = await signIn(a.user.email);
    const token = await tokens.create(makeCall(a.ctx, { body: { name: 't', bundle: 'read-only' } }));
    const ctx = await adminCtx();
    const suspended = await admin.update(makeCall(ctx, { params: { domain: a.customer.domain }, body: { status: 'suspended' } }));
    expect(suspended.customer.status).toBe('suspended');
    expect(await gateway.status({ kind: 'session', id: sid(login) })).toEqual({ active: false });
    expect(await gateway.status({ kind: 'token', id: token.id })).toEqual({ active: false });
    await admin.update(makeCall(ctx, { params: { domain: a.customer.domain }, body: { status: 'active' } }));
    expect(await gateway.status({ kind: 'token', id: token.id })).toMatchObject({ active: true });
    expect(await gateway.status({ kind: 'session', id: sid(login) })).toEqual({ active: false });

    const taken = await makeStoredCustomer(app.store);
    expect((await serviceErrorOf(admin.update(makeCall(ctx, { params: { domain: a.customer.domain }, body: { domain: taken.domain } })))).status).toBe(409);
    const renamed = `renamed-${randomUUID().slice(0, 8)}.example`;
    await admin.update(makeCall(ctx, { params: { domain: a.customer.domain }, body: { domain: renamed } }));
    expect(events(IdentityEvents.customerChanged)).toContainEqual({ id: a.customer.id, domain: renamed, previousDomain: a.customer.domain });
    const change = (await outboxed<AuditEntryInput>(AdminEvents.audit)).filter((e) => e.action === 'customer.update' && e.after?.domain === renamed);
    expect(change).toEqual([expect.objectContaining({ before: expect.objectContaining({ domain: a.customer.domain }) })]);
  });

  it('operator emails are the enabled owners and editors of the operator customer', async () => {
    const operator = (await app.store.repos.customers.findByDomain('operator.example'))!;
    const editor = await makeStoredMember(app.store, operator, 'editor');
    const viewer = await makeStoredMember(app.store, operator, 'viewer');
    const disabled = await makeStoredMember(app.store, operator, 'owner', { disabled: true });
    const { emails } = await app.get(OperatorController).operatorEmails();
    expect(emails).toContain('root@operator.example');
    expect(emails).toContain(editor.email);
    expect(emails).not.toContain(viewer.email);
    expect(emails).not.toContain(disabled.email);
  });
});

// ---------------------------------------------------------------- sandbox

describe('sandbox tokens', () => {
  it('exist once for read-only, uploader and full, on the sandbox, and are issued again only when needed', async () => {
    const listed = await gateway.sandbox();
    expect(listed?.domain).toBe(SANDBOX);
    expect(listed!.tokens.map((t) => t.bundle).sort()).toEqual(['full', 'read-only', 'uploader']);
    const owner = await app.store.repos.users.findByEmail(SANDBOX_TOKEN_OWNER);
    expect(owner).not.toBeNull();
    // Nobody can log in as the tokens' owner: no code is ever mailed to it.
    await auth.login(makeCall(publicCtx(), { body: { email: SANDBOX_TOKEN_OWNER } }));
    expect(app.jobs.jobs.filter((j) => (j.data as MailMessage).to === SANDBOX_TOKEN_OWNER)).toEqual([]);
    const sandbox = (await app.store.repos.customers.findByDomain(SANDBOX))!;
    expect(await app.get(EnsureSandboxTokensUseCase).execute(sandbox)).toEqual([]);
    await app.get(ProvisionOperatorUseCase).execute();
    expect((await gateway.sandbox())!.tokens).toEqual(listed!.tokens);

    const readOnly = listed!.tokens.find((t) => t.bundle === 'read-only')!;
    const id = JSON.parse(Buffer.from(readOnly.token.split('.')[1], 'base64url').toString()).jti as string;
    await app.dataSource.query(`UPDATE identity.api_tokens SET revoked_at = now() WHERE id = $1`, [id]);
    expect(await app.get(EnsureSandboxTokensUseCase).execute(sandbox)).toEqual(['read-only']);
    const after = (await gateway.sandbox())!.tokens;
    expect(after.find((t) => t.bundle === 'read-only')!.token).not.toBe(readOnly.token);
    expect(after.find((t) => t.bundle === 'full')!.token).toBe(listed!.tokens.find((t) => t.bundle === 'full')!.token);
  });
});
