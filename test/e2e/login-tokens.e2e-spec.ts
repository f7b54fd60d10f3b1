import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { SESSION_COOKIES, UUID_PATTERN } from '@app/contracts';
import { letters, randomEmail, sleep } from './support/factories.js';
import { parseSetCookie, Session, type HttpReply, type IdentityBody } from './support/http.js';
import { expectProblem } from './support/problems.js';
import { startRuntime, type CreatedTokenBody, type CustomerFixture, type Runtime } from './support/runtime.js';
import { RFC3339 } from './support/formats.js';

/** docs/api.md "Logging in" and "API tokens": the identity object, the JWT claims, the token API. */

const READ = ['devices:read', 'fw:read', 'logdata:read', 'stats:read', 'tags:read'];
const WRITE = ['devices:write', 'fw:write', 'logdata:write', 'tags:write'];
const BUNDLE_SCOPES: Record<string, string[]> = {
  'read-only': READ,
  uploader: [...READ, 'fw:write', 'logdata:write'],
  full: [...READ, ...WRITE],
};
const OWNER_SCOPES = [...READ, ...WRITE, 'members:manage'];
const UUID = new RegExp(UUID_PATTERN);
const DAY = 86_400;

const sorted = (values: readonly string[]) => [...values].sort();

describe('login, sessions and API tokens', () => {
  let rt: Runtime;
  let customer: CustomerFixture;

  beforeAll(async () => {
    rt = await startRuntime();
    customer = await rt.newCustomer();
  });
  afterAll(async () => {
    await rt?.stop();
  });

  describe('POST /auth/login', () => {
    it('answers 202 with the same body for an invited and an unknown address; only the invited one gets mail', async () => {
      // An invited person: the owner of a fresh customer (no tokens needed).
      const invitedCustomer = await rt.newCustomer({ tokens: false });
      const unknown = randomEmail();
      const since = Date.now();
      const invited = await rt.http.post('/auth/login', { json: { email: invitedCustomer.ownerEmail } });
      const stranger = await rt.http.post('/auth/login', { json: { email: unknown } });
      expect(invited.status).toBe(202);
      expect(stranger.status).toBe(202);
      expect(invited.contentType).toMatch(/^application\/json\b/);
      expect(stranger.json()).toEqual(invited.json());
      expect(invited.json()).toEqual({ sent: expect.any(Boolean), detail: expect.any(String) });

      const code = await rt.mailbox.waitForCode(invitedCustomer.ownerEmail, { since });
      expect(code).toMatch(/^\d{6}$/);
      await sleep(500);
      expect(await rt.mailbox.to(unknown, since)).toEqual([]);
    });

    it.each([['not-an-email'], ['a@'], ['']])('answers 400 for the invalid address %j', async (email) => {
      expectProblem(await rt.http.post('/auth/login', { json: { email } }), 400, 'email must be a valid email address');
    });

    it('answers 400 without a body', async () => {
      expectProblem(await rt.http.post('/auth/login'), 400);
    });
  });

  describe('POST /auth/verify', () => {
    let email: string;
    let verify: HttpReply;

    beforeAll(async () => {
      const other = await rt.newCustomer({ tokens: false });
      email = other.ownerEmail;
      const since = Date.now();
      expect((await rt.http.post('/auth/login', { json: { email } })).status).toBe(202);
      const code = await rt.mailbox.waitForCode(email, { since });
      // A wrong code first (one of the 5 allowed guesses).
      const wrong = code === '000000' ? '111111' : '000000';
      expectProblem(await rt.http.post('/auth/verify', { json: { email, code: wrong } }), 401, {
        detail: 'invalid or expired code',
        code: 'login_code_invalid',
      });
      verify = await rt.http.post('/auth/verify', { json: { email, code } });
      // The code is single-use.
      expectProblem(await rt.http.post('/auth/verify', { json: { email, code } }), 401, { detail: 'invalid or expired code', code: 'login_code_invalid' });
    });

    it('answers 200 with the identity object', () => {
      expect(verify.status).toBe(200);
      const identity = verify.json<IdentityBody>();
      expect(identity).toEqual({
        admin: '',
        csrf_token: expect.any(String),
        customer: expect.stringMatching(/^e2e-[a-z]+\.test$/),
        email,
        memberships: [{ domain: identity.customer, role: 'owner' }],
        role: 'owner',
        scopes: expect.any(Array),
      });
      expect(identity.csrf_token.length).toBeGreaterThanOrEqual(16);
      expect(sorted(identity.scopes)).toEqual(sorted(OWNER_SCOPES));
    });

    it('sets exactly the three session cookies, each Path=/; HttpOnly; Secure; SameSite=Strict', () => {
      const cookies = verify.setCookies.map((line) => parseSetCookie(line)!);
      expect(sorted(cookies.map((c) => c.name))).toEqual(sorted(Object.values(SESSION_COOKIES)));
      expect(sorted(Object.values(SESSION_COOKIES))).toEqual(['__Host-svc_at', '__Host-svc_csrf', '__Host-svc_rt']);
      for (const cookie of cookies) {
        expect(cookie.value.length).toBeGreaterThan(0);
        expect(cookie.raw).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'Secure', 'SameSite=Strict']));
        expect(cookie.attributes).not.toHaveProperty('domain'); // __Host- cookies carry no Domain
      }
    });

    it.each([['12345'], ['1234567'], ['abcdef']])('answers 400 for the malformed code %j', async (code) => {
      expectProblem(await rt.http.post('/auth/verify', { json: { email, code } }), 400, { detail: 'code must be exactly 6 digits', code: 'invalid_request' });
    });
  });

  describe('GET /auth/me', () => {
    it('answers the identity for session cookies', async () => {
      const reply = await rt.http.get('/auth/me', { auth: customer.owner });
      expect(reply.status).toBe(200);
      const identity = reply.json<IdentityBody>();
      expect(identity).toMatchObject({ admin: '', customer: customer.domain, email: customer.ownerEmail, role: 'owner', csrf_token: customer.owner.csrfToken });
      expect(identity.memberships).toEqual([{ domain: customer.domain, role: 'owner' }]);
      expect(sorted(identity.scopes)).toEqual(sorted(OWNER_SCOPES));
    });

    it("answers the identity for a Bearer token, with the token's scopes", async () => {
      const reply = await rt.http.get('/auth/me', { auth: customer.uploader });
      expect(reply.status).toBe(200);
      const identity = reply.json<IdentityBody>();
      expect(identity).toMatchObject({ admin: '', customer: customer.domain, email: customer.ownerEmail });
      expect(sorted(identity.scopes)).toEqual(sorted(BUNDLE_SCOPES.uploader));
    });

    it('answers 401 without credentials and with cookies of no session', async () => {
      expectProblem(await rt.http.get('/auth/me'), 401);
      const stranger = new Session(randomEmail(), letters(20), customer.owner.identity);
      stranger.cookies.set(SESSION_COOKIES.access, letters(40));
      expect((await rt.http.get('/auth/me', { auth: stranger })).status).toBe(401);
    });

    it("marks an administrator's identity with admin full", async () => {
      const reply = await rt.http.get('/auth/me', { auth: await rt.adminSession() });
      expect(reply.status).toBe(200);
      expect(reply.json()).toMatchObject({ admin: 'full', customer: rt.operatorDomain, email: rt.adminEmail });
    });
  });

  describe('POST /tokens and GET /tokens', () => {
    it('answers 201 with the record and the token, shown only then', async () => {
      const before = Math.floor(Date.now() / 1000);
      const name = `ci uploader ${letters(6)}`;
      const reply = await rt.http.post('/tokens', { auth: customer.owner, json: { name, bundle: 'uploader' } });
      expect(reply.status).toBe(201);
      const created = reply.json<CreatedTokenBody>();
      expect(created).toEqual({
        id: expect.stringMatching(UUID),
        name,
        bundle: 'uploader',
        scopes: expect.any(Array),
        created_by: expect.any(String),
        created_at: expect.stringMatching(RFC3339),
        expires_at: expect.stringMatching(RFC3339),
        token: expect.any(String),
      });
      expect(sorted(created.scopes)).toEqual(sorted(BUNDLE_SCOPES.uploader));
      const lifetime = (Date.parse(created.expires_at) - Date.parse(created.created_at)) / 1000;
      expect(Math.abs(lifetime - 90 * DAY)).toBeLessThanOrEqual(2);
      expect(Date.parse(created.created_at) / 1000).toBeGreaterThanOrEqual(before - 2);

      const list = await rt.http.get('/tokens', { auth: customer.owner });
      expect(list.status).toBe(200);
      const record = list.json().items.find((t: { id: string }) => t.id === created.id);
      expect(record).toEqual({
        id: created.id,
        name,
        bundle: 'uploader',
        scopes: created.scopes,
        created_by: created.created_by,
        created_at: created.created_at,
        expires_at: created.expires_at,
        status: 'active',
        revoked_at: null,
        last_used_at: null, // never used yet
      });
    });

    it('never lists the token value', async () => {
      const list = await rt.http.get('/tokens', { auth: customer.owner });
      const items: Record<string, unknown>[] = list.json().items;
      expect(items.length).toBeGreaterThanOrEqual(3);
      for (const bundle of ['read-only', 'uploader', 'full'] as const) {
        expect(items.map((t) => t.id)).toContain(customer.tokens[bundle].id);
      }
      for (const item of items) expect(item).not.toHaveProperty('token');
      expect(list.text).not.toContain(customer.full);
      expect(list.text).not.toContain(customer.full.split('.')[2]);
    });

    it('a bundle exceeding the caller answers 403', async () => {
      // An owner is not an administrator.
      expectProblem(await rt.http.post('/tokens', { auth: customer.owner, json: { name: 'too much', bundle: 'admin' } }), 403);
      // A token cannot mint more than it holds.
      expectProblem(await rt.http.post('/tokens', { auth: customer.readOnly, json: { name: 'too much', bundle: 'full' } }), 403);
      expectProblem(await rt.http.post('/tokens', { auth: customer.uploader, json: { name: 'too much', bundle: 'full' } }), 403);
      // Equal or fewer scopes are fine.
      expect((await rt.http.post('/tokens', { auth: customer.uploader, json: { name: 'same', bundle: 'uploader' } })).status).toBe(201);
      expect((await rt.http.post('/tokens', { auth: customer.uploader, json: { name: 'less', bundle: 'read-only' } })).status).toBe(201);
    });

    it.each([
      [{ name: 'x', bundle: 'superuser' }, 'bundle must be one of read-only, uploader, full, admin'],
      [{ name: '', bundle: 'full' }, 'name must be 1 to 100 characters'],
      [{ name: 'x'.repeat(101), bundle: 'full' }, 'name must be 1 to 100 characters'],
      [{ name: 'x', bundle: 'full', expires_in_days: 0 }, 'expires_in_days must be an integer from 1 to 365'],
      [{ name: 'x', bundle: 'full', expires_in_days: 366 }, 'expires_in_days must be an integer from 1 to 365'],
    ])('%j answers 400 %s', async (json, detail) => {
      expectProblem(await rt.http.post('/tokens', { auth: customer.owner, json }), 400, detail);
    });

    it('expires_in_days sets the lifetime (1 to 365 days)', async () => {
      for (const days of [1, 365]) {
        const created = await rt.createToken(customer.owner, 'read-only', { expiresInDays: days });
        const claims = decodeJwt(created.token);
        expect(claims.exp! - claims.iat!).toBe(days * DAY);
      }
    });
  });

  describe('token claims', () => {
    let created: CreatedTokenBody;
    let owner: { id: string };

    beforeAll(async () => {
      created = customer.tokens.full;
      owner = { id: String(decodeJwt(created.token).sub).replace(/^user:/, '') };
    });

    it('carry iss, sub, aud, typ, cust, cid, scp, jti and a 90-day lifetime', () => {
      const header = decodeProtectedHeader(created.token);
      expect(header.alg).toBe('EdDSA');
      expect(typeof header.kid).toBe('string');
      const claims = decodeJwt(created.token);
      expect(claims.iss).toBe(rt.baseUrl);
      expect(claims.sub).toBe(`user:${owner.id}`);
      expect(owner.id.length).toBeGreaterThan(0);
      expect(claims.aud).toEqual(['service']);
      expect(claims.typ).toBe('api');
      expect(claims.cust).toBe(customer.domain);
      expect(claims.cid).toMatch(UUID);
      expect(sorted(String(claims.scp).split(' '))).toEqual(sorted(BUNDLE_SCOPES.full));
      expect(claims.jti).toBe(created.id);
      expect(claims.exp! - claims.iat!).toBe(90 * DAY);
      expect(claims.nbf).toBeLessThanOrEqual(claims.iat!);
      expect(Math.abs(claims.iat! - Math.floor(Date.parse(created.created_at) / 1000))).toBeLessThanOrEqual(2);
      expect(claims.exp! * 1000).toBe(Math.floor(Date.parse(created.expires_at) / 1000) * 1000);
      // Every token of the customer names the same customer id and the same person.
      const other = decodeJwt(customer.readOnly);
      expect(other.cid).toBe(claims.cid);
      expect(other.sub).toBe(claims.sub);
    });

    it('verify offline against /.well-known/jwks.json', async () => {
      const jwksReply = await rt.http.get('/.well-known/jwks.json');
      expect(jwksReply.status).toBe(200);
      const jwks = jwksReply.json<{ keys: Record<string, string>[] }>();
      expect(jwks.keys.length).toBeGreaterThanOrEqual(1);
      for (const key of jwks.keys) {
        expect(key).toEqual({ alg: 'EdDSA', crv: 'Ed25519', kid: expect.any(String), kty: 'OKP', use: 'sig', x: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
      }
      expect(jwks.keys.map((k) => k.kid)).toContain(decodeProtectedHeader(created.token).kid);

      const keySet = createRemoteJWKSet(new URL(`${rt.baseUrl}/.well-known/jwks.json`));
      for (const token of [customer.readOnly, customer.uploader, customer.full]) {
        const { payload, protectedHeader } = await jwtVerify(token, keySet, { issuer: rt.baseUrl, audience: 'service', algorithms: ['EdDSA'] });
        expect(protectedHeader.alg).toBe('EdDSA');
        expect(payload.typ).toBe('api');
      }
      // A tampered payload does not verify.
      const [h, , s] = customer.readOnly.split('.');
      const forgedPayload = Buffer.from(JSON.stringify({ ...decodeJwt(customer.readOnly), scp: 'admin' })).toString('base64url');
      await expect(jwtVerify(`${h}.${forgedPayload}.${s}`, keySet, { issuer: rt.baseUrl, audience: 'service' })).rejects.toThrow();
    });
  });
});
