import { describe, expect, it } from '@jest/globals';
import {
  type CredentialStatus,
  type CustomerInfo,
  type EventDef,
  IdentityEvents,
  IdentityMessages,
  type MessageDef,
  type RefreshedSession,
  SESSION_COOKIES,
  CommonErrors,
} from '@app/contracts';
import { loadConfig, MessageBus } from '@app/infra';
import { CustomerDirectory } from '@app/platform';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT, calculateJwkThumbprint } from 'jose';
import { Authenticator } from './authenticator.js';
import { CredentialStatusCache } from './credential-status.js';
import { SessionRenewal } from './session-renewal.js';
import { VerificationKeys } from './verification-keys.js';
import { mergeSetCookie } from './cookies.js';

const ISSUER = 'https://fw.example.test';
const OPERATOR = { id: '00000000-0000-4000-8000-000000000001', domain: 'operator.example', status: 'active', isSandbox: false } as const;
const ACME = { id: '00000000-0000-4000-8000-000000000002', domain: 'acme.example', status: 'active', isSandbox: false } as const;
const OTHER = { id: '00000000-0000-4000-8000-000000000003', domain: 'other.example', status: 'active', isSandbox: false } as const;
const SID = '00000000-0000-4000-8000-0000000000aa';
const JTI = '00000000-0000-4000-8000-0000000000bb';

type Handler = (payload: unknown) => unknown;

/** The bus as the gateway sees it: identity's answers scripted, calls counted, broadcast events deliverable. */
class ScriptedBus extends MessageBus {
  readonly calls: Record<string, number> = {};
  private readonly handlers = new Map<string, Handler>();
  private readonly listeners = new Map<string, Array<(p: unknown) => void>>();

  on<Req, Res>(message: MessageDef<Req, Res>, handler: (payload: Req) => Res | Promise<Res>): this {
    this.handlers.set(message.pattern, handler as Handler);
    return this;
  }

  serve<Req, Res>(message: MessageDef<Req, Res>, handler: (payload: Req) => Res | Promise<Res>): () => void {
    this.on(message, handler);
    return () => this.handlers.delete(message.pattern);
  }

  async send<Req, Res>(message: MessageDef<Req, Res>, payload: Req): Promise<Res> {
    this.calls[message.pattern] = (this.calls[message.pattern] ?? 0) + 1;
    const handler = this.handlers.get(message.pattern);
    if (!handler) throw new Error(`no handler for ${message.pattern}`);
    await new Promise((r) => setTimeout(r, 5));
    return (await handler(payload)) as Res;
  }

  emit<P>(event: EventDef<P>, payload: P): void {
    for (const listener of this.listeners.get(event.subject) ?? []) listener(payload);
  }

  subscribe<P>(event: EventDef<P>, handler: (payload: P) => void): () => void {
    const list = this.listeners.get(event.subject) ?? [];
    list.push(handler as (p: unknown) => void);
    this.listeners.set(event.subject, list);
    return () => undefined;
  }
}

async function setup(options: { retired?: string[] } = {}) {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: jwk.x! });
  const config = loadConfig({ PUBLIC_URL: ISSUER, OPERATOR_DOMAIN: OPERATOR.domain, LOG_LEVEL: 'error' });
  const customers: Record<string, CustomerInfo> = { [OPERATOR.id]: OPERATOR, [ACME.id]: ACME, [OTHER.id]: OTHER };
  const statuses: Record<string, CredentialStatus> = {};
  const bus = new ScriptedBus()
    .on(IdentityMessages.verificationKeys, () => ({
      keys: [{ alg: 'EdDSA', crv: 'Ed25519', kid, kty: 'OKP', use: 'sig', x: jwk.x! }],
      retired: options.retired ?? [],
    }))
    .on(IdentityMessages.resolveCustomer, (lookup) => ('id' in lookup ? (customers[lookup.id] ?? null) : null))
    .on(IdentityMessages.credentialStatus, ({ kind, id }) => statuses[`${kind}:${id}`] ?? { active: false });
  const sign = (claims: JWTPayload, header: { alg?: string; kid?: string } = {}) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT', ...header }).sign(privateKey);
  const now = Math.floor(Date.now() / 1000);
  const access = (overrides: JWTPayload = {}) =>
    sign({
      iss: ISSUER,
      aud: ['service'],
      iat: now,
      nbf: now,
      exp: now + 900,
      sub: 'user:u-1',
      sid: SID,
      cust: ACME.domain,
      cid: ACME.id,
      scp: 'fw:read',
      adm: '',
      csh: 'hash',
      typ: 'session',
      ...overrides,
    });
  const apiToken = (overrides: JWTPayload = {}, header: { alg?: string; kid?: string } = {}) =>
    sign(
      {
        iss: ISSUER,
        aud: ['service'],
        iat: now,
        nbf: now,
        exp: now + 86400,
        sub: 'user:u-1',
        jti: JTI,
        typ: 'api',
        cust: ACME.domain,
        cid: ACME.id,
        scp: 'fw:read fw:write',
        ...overrides,
      },
      header,
    );
  const credentials = new CredentialStatusCache(bus, config);
  credentials.onModuleInit();
  const authenticator = new Authenticator(config, new VerificationKeys(bus), credentials, new CustomerDirectory(bus, config), new SessionRenewal(bus));
  return { bus, statuses, authenticator, access, apiToken, sign, kid };
}

describe('Authenticator: sessions', () => {
  it('takes what a session may do from its current status, not from the cookie', async () => {
    const { authenticator, statuses, access } = await setup();
    statuses[`session:${SID}`] = { active: true, customerId: ACME.id, scopes: ['fw:read', 'logdata:read'], admin: '' };
    const result = await authenticator.authenticate({ cookies: { [SESSION_COOKIES.access]: await access({ scp: 'fw:read fw:write' }) } });
    expect(result?.principal).toMatchObject({
      kind: 'session',
      credentialId: SID,
      scopes: ['fw:read', 'logdata:read'],
      admin: '',
      homeCustomer: { domain: ACME.domain },
    });
    expect(result?.csrfHash).toBe('hash');
    expect(result?.renewed).toBeUndefined();
  });

  it('renews an expired access cookie with the refresh cookie, once for concurrent requests', async () => {
    const { authenticator, statuses, access, bus } = await setup();
    statuses[`session:${SID}`] = { active: true, customerId: ACME.id, scopes: ['fw:read'], admin: '' };
    const fresh = await access();
    bus.on(IdentityMessages.renewSession, (): RefreshedSession => ({
      body: { csrf_token: 'c', access_expires_at: '', session_expires_at: '' },
      session: { refresh: 'next-refresh', csrf: 'c', access: fresh, accessMaxAgeSeconds: 900, refreshMaxAgeSeconds: 1000 },
    }));
    const expired = await access({ iat: 1, nbf: 1, exp: 2 });
    const input = {
      cookies: { [SESSION_COOKIES.access]: expired, [SESSION_COOKIES.refresh]: 'old-refresh' },
      client: { ip: '192.0.2.1', userAgent: 'ua', requestId: 'r' },
    };
    const results = await Promise.all([1, 2, 3].map(() => authenticator.authenticate(input, { renew: true })));
    expect(bus.calls[IdentityMessages.renewSession.pattern]).toBe(1);
    for (const result of results) {
      expect(result?.principal.credentialId).toBe(SID);
      expect(result?.renewed?.map((c) => [c.name, c.value])).toEqual([
        [SESSION_COOKIES.refresh, 'next-refresh'],
        [SESSION_COOKIES.csrf, 'c'],
        [SESSION_COOKIES.access, fresh],
      ]);
    }
    // Once answered, the old token is not answered from memory: presented again it goes to identity (which sees reuse).
    expect((await authenticator.authenticate(input, { renew: true }))?.renewed).toBeDefined();
    expect(bus.calls[IdentityMessages.renewSession.pattern]).toBe(2);
    // A missing access cookie is renewed the same way; without `renew` nothing is.
    expect((await authenticator.authenticate({ cookies: { [SESSION_COOKIES.refresh]: 'old-refresh' } }, { renew: true }))?.renewed).toBeDefined();
    expect(await authenticator.authenticate({ cookies: { [SESSION_COOKIES.refresh]: 'old-refresh' } })).toBeNull();
    await expect(authenticator.authenticate({ cookies: { [SESSION_COOKIES.access]: expired, [SESSION_COOKIES.refresh]: 'x' } })).rejects.toMatchObject({
      status: 401,
    });
  });

  it("answers the renewal's 401 as an ended session (with WWW-Authenticate), and refuses an expired cookie without refresh cookie", async () => {
    const { authenticator, access, bus } = await setup();
    bus.on(IdentityMessages.renewSession, () => {
      throw CommonErrors.refresh_reused();
    });
    const expired = await access({ iat: 1, nbf: 1, exp: 2 });
    await expect(
      authenticator.authenticate({ cookies: { [SESSION_COOKIES.access]: expired, [SESSION_COOKIES.refresh]: 'r' } }, { renew: true }),
    ).rejects.toMatchObject({
      status: 401,
      reason: 'refresh_reused',
      message: 'refresh token already used: the session has been ended; log in again',
      headers: { 'WWW-Authenticate': 'Bearer realm="service"' },
    });
    await expect(authenticator.authenticate({ cookies: { [SESSION_COOKIES.access]: expired } }, { renew: true })).rejects.toMatchObject({
      status: 401,
      reason: 'session_ended',
      message: 'session expired or ended: log in again',
    });
  });

  it("answers a renewal refused within an operator's refresh grace (409) as 401: the request is not authenticated", async () => {
    const { authenticator, access, bus } = await setup();
    bus.on(IdentityMessages.renewSession, () => {
      throw CommonErrors.refresh_raced();
    });
    const expired = await access({ iat: 1, nbf: 1, exp: 2 });
    await expect(
      authenticator.authenticate({ cookies: { [SESSION_COOKIES.access]: expired, [SESSION_COOKIES.refresh]: 'r' } }, { renew: true }),
    ).rejects.toMatchObject({
      status: 401,
      reason: 'renewal_raced',
      message: 'refresh token already rotated by a concurrent request: use the cookies that request received',
    });
  });

  it('refuses an access cookie for another customer than the session is on (asking identity again first)', async () => {
    const { authenticator, statuses, access, bus } = await setup();
    statuses[`session:${SID}`] = { active: true, customerId: OTHER.id, scopes: ['fw:read'], admin: '' };
    await expect(authenticator.authenticate({ cookies: { [SESSION_COOKIES.access]: await access() } })).rejects.toMatchObject({ status: 401 });
    expect(bus.calls[IdentityMessages.credentialStatus.pattern]).toBe(2);
  });

  it('follows broadcast events: revoked at once, changed asked again', async () => {
    const { authenticator, statuses, access, bus } = await setup();
    statuses[`session:${SID}`] = { active: true, customerId: ACME.id, scopes: ['fw:read', 'fw:write'], admin: '' };
    const cookies = { [SESSION_COOKIES.access]: await access() };
    expect((await authenticator.authenticate({ cookies }))?.principal.scopes).toEqual(['fw:read', 'fw:write']);
    statuses[`session:${SID}`] = { active: true, customerId: ACME.id, scopes: ['fw:read'], admin: '' };
    expect((await authenticator.authenticate({ cookies }))?.principal.scopes).toEqual(['fw:read', 'fw:write']); // cached
    bus.emit(IdentityEvents.credentialChanged, { kind: 'session', id: SID });
    expect((await authenticator.authenticate({ cookies }))?.principal.scopes).toEqual(['fw:read']);
    bus.emit(IdentityEvents.credentialRevoked, { kind: 'session', id: SID });
    await expect(authenticator.authenticate({ cookies })).rejects.toMatchObject({ status: 401 });
  });
});

describe('Authenticator: API tokens', () => {
  it("uses identity's narrowed scopes; admin only for the operator customer", async () => {
    const { authenticator, statuses, apiToken } = await setup();
    statuses[`token:${JTI}`] = { active: true, customerId: ACME.id, scopes: ['fw:read'], admin: '' };
    const principal = (await authenticator.authenticate({ authorization: `Bearer ${await apiToken()}`, cookies: {} }))!.principal;
    expect(principal).toMatchObject({ kind: 'token', scopes: ['fw:read'], admin: '' });
    const other = await setup();
    other.statuses[`token:${JTI}`] = { active: true, customerId: ACME.id, scopes: ['admin'], admin: 'full' };
    expect(
      (await other.authenticator.authenticate({ authorization: `Bearer ${await other.apiToken({ scp: 'admin' })}`, cookies: {} }))!.principal,
    ).toMatchObject({ admin: '', scopes: [] });
    const ops = await setup();
    ops.statuses[`token:${JTI}`] = { active: true, customerId: OPERATOR.id, scopes: ['admin'], admin: 'full' };
    expect(
      (await ops.authenticator.authenticate({ authorization: `Bearer ${await ops.apiToken({ scp: 'admin', cid: OPERATOR.id })}`, cookies: {} }))!.principal,
    ).toMatchObject({ admin: 'full', scopes: ['admin'] });
  });

  it('older formats ask for a new token: retired typ, typ api not signed with EdDSA, a retired key', async () => {
    const oldFormat = { status: 401, message: 'token format is no longer supported: create a new token' };
    const { authenticator, apiToken } = await setup({ retired: ['retired-kid'] });
    for (const typ of ['api-v0', 'api+hs256'])
      await expect(authenticator.authenticate({ authorization: `Bearer ${await apiToken({ typ })}`, cookies: {} })).rejects.toMatchObject(oldFormat);
    const hs256 = await new SignJWT({ typ: 'api', jti: JTI }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('x'.repeat(32)));
    await expect(authenticator.authenticate({ authorization: `Bearer ${hs256}`, cookies: {} })).rejects.toMatchObject(oldFormat);
    await expect(authenticator.authenticate({ authorization: `Bearer ${await apiToken({}, { kid: 'retired-kid' })}`, cookies: {} })).rejects.toMatchObject(
      oldFormat,
    );
    await expect(authenticator.authenticate({ authorization: `Bearer ${await apiToken({}, { kid: 'never-seen' })}`, cookies: {} })).rejects.toMatchObject({
      status: 401,
      message: 'invalid token: unknown signing key',
    });
  });
});

describe('mergeSetCookie', () => {
  it("keeps a renewal's cookies unless the reply sets the same name", () => {
    const renewed = ['__Host-svc_rt=new; Path=/', '__Host-svc_csrf=c; Path=/', '__Host-svc_at=a; Path=/'];
    expect(mergeSetCookie(renewed, ['__Host-svc_at=b; Path=/'])).toEqual(['__Host-svc_rt=new; Path=/', '__Host-svc_csrf=c; Path=/', '__Host-svc_at=b; Path=/']);
    expect(mergeSetCookie(undefined, ['x=1'])).toEqual(['x=1']);
    expect(mergeSetCookie('y=2', ['x=1'])).toEqual(['y=2', 'x=1']);
  });
});
