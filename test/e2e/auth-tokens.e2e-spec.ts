import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { calculateJwkThumbprint, decodeJwt, importPKCS8, SignJWT, type JWTPayload } from 'jose';
import { customerWithOwner, expectStatus, randomPerson, readOnlyAdministrator, sandboxTokensFromDocs, waitForAudit } from './support/auth.js';
import { expectProblem } from './support/problems.js';
import { LOGDATA_SANDBOX_MAX_BYTES } from './support/constants.js';
import { eventually, letters, randomContent, randomDomain, randomLogName, sleep } from './support/factories.js';
import { HttpClient, type IdentityBody, type Session } from './support/http.js';
import { startRuntime, type Runtime } from './support/runtime.js';
import { freePort, readStackState, spawnApp, stopPid } from './support/stack.js';

/**
 * docs/api.md "API tokens": the states of tokens, users and customers, failure responses (older
 * format); the administrator endpoints PATCH /admin/customers, GET and PATCH
 * /admin/users; the sandbox and its public tokens.
 */

const REVOKED = 'token revoked, expired or unknown';

interface TokenRecordBody {
  id: string;
  status: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

describe('tokens, users and customers: lifecycle', () => {
  let rt: Runtime;
  let admin: string;
  let a: Awaited<ReturnType<typeof customerWithOwner>>;

  beforeAll(async () => {
    rt = await startRuntime();
    admin = await rt.adminToken();
    a = await customerWithOwner(rt);
  });
  afterAll(async () => {
    await rt?.stop();
  });

  const memberSession = async (role: string, customer = a): Promise<Session> => {
    const email = randomPerson();
    expectStatus(await rt.http.post('/members', { auth: customer.owner, json: { email, role } }), 201);
    return rt.loginAs(email);
  };
  const tokenRecord = async (owner: Session, id: string): Promise<TokenRecordBody | undefined> =>
    (await rt.http.get('/tokens', { auth: owner })).json<{ items: TokenRecordBody[] }>().items.find((t) => t.id === id);

  describe('scope ceilings', () => {
    it.each([
      ['viewer', { 'read-only': 201, uploader: 403, full: 403, admin: 403 }],
      ['editor', { 'read-only': 201, uploader: 201, full: 201, admin: 403 }],
      ['owner', { 'read-only': 201, uploader: 201, full: 201, admin: 403 }],
    ] as const)('role %s: no bundle above its scopes', async (role, expected) => {
      const session = await memberSession(role);
      for (const [bundle, status] of Object.entries(expected)) {
        const reply = await rt.http.post('/tokens', { auth: session, json: { name: `${role} ${bundle}`, bundle } });
        expect([bundle, reply.status]).toEqual([bundle, status]);
        if (status === 403) expect(reply.json().detail).toBe('bundle exceeds your scopes');
      }
    });

    it('the admin bundle is for full administrators only, and only on the operator customer', async () => {
      const session = await rt.adminSession();
      expectStatus(await rt.http.post('/tokens', { auth: session, json: { name: 'ops', bundle: 'admin' } }), 201);
      expectProblem(await rt.http.post('/tokens', { auth: admin, query: { customer: a.domain }, json: { name: 'x', bundle: 'admin' } }), 403, {
        detail: 'bundle exceeds your scopes',
        code: 'token_bundle_exceeds_scopes',
      });
      // Any other bundle on any customer.
      const created = expectStatus(
        await rt.http.post('/tokens', { auth: admin, query: { customer: a.domain }, json: { name: 'support', bundle: 'full' } }),
        201,
      ).json();
      expect(decodeJwt(created.token).cust).toBe(a.domain);
    });

    it('lifetimes: 90 days by default, at most 365', async () => {
      const session = await memberSession('editor');
      const standard = await rt.createToken(session, 'read-only');
      expect((Date.parse(standard.expires_at) - Date.parse(standard.created_at)) / 86_400_000).toBeCloseTo(90, 3);
      const longest = await rt.createToken(session, 'read-only', { expiresInDays: 365 });
      expect((Date.parse(longest.expires_at) - Date.parse(longest.created_at)) / 86_400_000).toBeCloseTo(365, 3);
      expectProblem(await rt.http.post('/tokens', { auth: session, json: { name: 'x', bundle: 'read-only', expires_in_days: 366 } }), 400);
    });
  });

  describe('use and revocation', () => {
    it('last_used_at is null until the token is used, then set', async () => {
      const created = await rt.createToken(a.owner, 'read-only');
      expect((await tokenRecord(a.owner, created.id))?.last_used_at).toBeNull();
      const before = Date.now() - 2000;
      expect((await rt.http.get('/logdata', { auth: created.token })).status).toBe(200);
      const record = await eventually(
        () => tokenRecord(a.owner, created.id),
        (r) => r?.last_used_at !== null,
        { timeoutMs: 20_000 },
      );
      expect(Date.parse(record!.last_used_at!)).toBeGreaterThanOrEqual(before);
    });

    it('revocation works within 30 s on every gateway replica (distributed: a second gateway process)', async () => {
      let second: { client: HttpClient; child: ChildProcess | null } = { client: rt.http, child: null };
      if (rt.runtime === 'distributed') {
        const state = readStackState(process.env.E2E_STATE_DIR!);
        const port = await freePort();
        const child = spawnApp('gateway', { ...state.appEnv, PORT: String(port) }, state.logDir);
        const client = new HttpClient(`http://127.0.0.1:${port}`);
        await eventually(
          () =>
            client.get('/healthz').then(
              (r) => r.status,
              () => 0,
            ),
          (s) => s === 200,
          { timeoutMs: 30_000 },
        );
        second = { client, child };
      }
      try {
        const created = await rt.createToken(a.owner, 'read-only');
        // Both gateways have the token's status cached.
        expect((await rt.http.get('/logdata', { auth: created.token })).status).toBe(200);
        expect((await second.client.get('/logdata', { auth: created.token })).status).toBe(200);
        const revokedAt = Date.now();
        expect((await rt.http.delete(`/tokens/${created.id}`, { auth: a.owner })).status).toBe(204);
        for (const client of [rt.http, second.client]) {
          const reply = await eventually(
            () => client.get('/logdata', { auth: created.token }),
            (r) => r.status === 401,
            { timeoutMs: 30_000, intervalMs: 250 },
          );
          expect(reply.status).toBe(401);
          expect(reply.json().detail).toBe(REVOKED);
        }
        expect(Date.now() - revokedAt).toBeLessThan(30_000);
        expect(await tokenRecord(a.owner, created.id)).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });
        await waitForAudit(rt, a.domain, (e) => e.action === 'token.revoke' && e.target_id === created.id && e.before.revoked_at === null);
        await waitForAudit(rt, a.domain, (e) => e.action === 'token.create' && e.target_id === created.id && Object.keys(e.before).length === 0);
      } finally {
        if (second.child?.pid) await stopPid(second.child.pid);
      }
    });
  });

  describe('older formats (401 asking for a new token)', () => {
    const serviceKey = async () => {
      const [row] = await rt.query<{ kid: string; private_pkcs8: string }>(
        'SELECT kid, private_pkcs8 FROM identity.signing_keys WHERE active ORDER BY created_at DESC LIMIT 1',
      );
      return { kid: row.kid, key: await importPKCS8(row.private_pkcs8, 'EdDSA') };
    };
    let base: JWTPayload;
    beforeAll(async () => {
      base = decodeJwt((await rt.createToken(a.owner, 'read-only')).token);
    });

    it('a retired token type (typ api-v0 or api+hs256), even signed by the service key', async () => {
      const { kid, key } = await serviceKey();
      for (const typ of ['api-v0', 'api+hs256']) {
        const token = await new SignJWT({ ...base, typ }).setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT' }).sign(key);
        const reply = await rt.http.get('/logdata', { auth: token });
        expectProblem(reply, 401, { detail: 'token format is no longer supported: create a new token', code: 'token_format_outdated' });
        expect(reply.header('www-authenticate')).toBe('Bearer realm="service", error="invalid_token"');
      }
    });

    it('typ api signed with HMAC (HS256, the format before Ed25519)', async () => {
      const token = await new SignJWT(base).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(letters(48)));
      expectProblem(await rt.http.get('/logdata', { auth: token }), 401, {
        detail: 'token format is no longer supported: create a new token',
        code: 'token_format_outdated',
      });
    });

    it('a token signed by a retired key (white box: a key row taken out of service)', async () => {
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      const x = publicKey.export({ format: 'jwk' }).x!;
      const kid = await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x });
      await rt.query(
        `INSERT INTO identity.signing_keys (kid, alg, public_x, private_pkcs8, active, created_at) VALUES ($1, 'EdDSA', $2, $3, false, now() - interval '400 days')`,
        [kid, x, privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()],
      );
      const token = await new SignJWT(base).setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT' }).sign(privateKey);
      // The gateway learns of retired keys when it reloads its key set (an unknown kid does so at most every 5 s).
      const reply = await eventually(
        () => rt.http.get('/logdata', { auth: token }),
        (r) => /create a new token/.test(r.text),
        { timeoutMs: 15_000, intervalMs: 1000 },
      );
      expectProblem(reply, 401, { detail: 'token format is no longer supported: create a new token', code: 'token_format_outdated' });
      expect(JSON.stringify((await rt.http.get('/.well-known/jwks.json')).json())).not.toContain(kid);
    });
  });

  describe('PATCH /admin/users/{email}', () => {
    it('disabling ends every session and revokes every token the person created; enabling revives none', async () => {
      const b = await customerWithOwner(rt);
      const email = randomPerson();
      expectStatus(await rt.http.post('/members', { auth: a.owner, json: { email, role: 'editor' } }), 201);
      expectStatus(await rt.http.post('/members', { auth: b.owner, json: { email, role: 'viewer' } }), 201);
      const session = await rt.loginAs(email);
      const token = await rt.createToken(session, 'uploader');

      const reply = expectStatus(await rt.http.patch(`/admin/users/${email}`, { auth: admin, json: { disabled: true } }), 200);
      expect(reply.json()).toEqual({ disabled: true, email });
      expectProblem(await rt.http.get('/logdata', { auth: token.token }), 401, { detail: REVOKED, code: 'token_revoked' });
      const me = await eventually(
        () => rt.http.get('/auth/me', { auth: session }),
        (r) => r.status === 401,
        { timeoutMs: 30_000 },
      );
      expect(me.status).toBe(401);
      expect(await tokenRecord(a.owner, token.id)).toMatchObject({ status: 'revoked' });
      const users = (await rt.http.get('/admin/users', { auth: admin })).json<{
        items: Array<{ email: string; domain: string; user_disabled: boolean; disabled: boolean; role: string }>;
      }>().items;
      expect(
        users
          .filter((u) => u.email === email)
          .map((u) => [u.domain, u.role, u.user_disabled])
          .sort(),
      ).toEqual(
        [
          [a.domain, 'editor', true],
          [b.domain, 'viewer', true],
        ].sort(),
      );
      const entry = await waitForAudit(rt, undefined, (e) => e.action === 'user.update' && e.target_id === email);
      expect(entry).toMatchObject({
        actor: expect.stringMatching(/^admin:/),
        before: { disabled: false },
        after: expect.objectContaining({ disabled: true, tokens_revoked: 1 }),
      });

      expect(expectStatus(await rt.http.patch(`/admin/users/${email}`, { auth: admin, json: { disabled: false } }), 200).json()).toEqual({
        disabled: false,
        email,
      });
      expectProblem(await rt.http.get('/logdata', { auth: token.token }), 401, { detail: REVOKED, code: 'token_revoked' });
      expect((await rt.http.get('/auth/me', { auth: session })).status).toBe(401);
      // A new login works again.
      expect((await rt.loginAs(email)).identity.email).toBe(email);
    });

    it('refuses unknown people (404), self-disabling (400), read-only administrators and non-administrators (403)', async () => {
      expectProblem(await rt.http.patch(`/admin/users/${randomPerson()}`, { auth: admin, json: { disabled: true } }), 404);
      expectProblem(await rt.http.patch(`/admin/users/${rt.adminEmail}`, { auth: admin, json: { disabled: true } }), 400, {
        detail: 'you cannot disable yourself',
        code: 'user_self_disable',
      });
      expectProblem(await rt.http.patch(`/admin/users/${a.ownerEmail}`, { auth: admin, json: { disabled: 'yes' } }), 400);
      const readOnly = await readOnlyAdministrator(rt, admin);
      expectProblem(await rt.http.patch(`/admin/users/${a.ownerEmail}`, { auth: readOnly, json: { disabled: true } }), 403, 'missing scope admin');
      expectProblem(await rt.http.get('/admin/users', { auth: a.owner }), 403, 'missing scope admin');
    });
  });

  describe('PATCH /admin/customers/{domain}', () => {
    it('suspending stops all its tokens and sessions; reactivating revives the tokens, not the sessions', async () => {
      const c = await customerWithOwner(rt);
      const token = await rt.createToken(c.owner, 'read-only');
      expect((await rt.http.get('/logdata', { auth: token.token })).status).toBe(200);
      const reply = expectStatus(await rt.http.patch(`/admin/customers/${c.domain}`, { auth: admin, json: { status: 'suspended' } }), 200);
      expect(reply.json().customer).toMatchObject({ domain: c.domain, status: 'suspended' });
      const refused = await eventually(
        () => rt.http.get('/logdata', { auth: token.token }),
        (r) => r.status === 401,
        { timeoutMs: 30_000 },
      );
      expect(refused.json().detail).toBe(REVOKED);
      expect(
        (
          await eventually(
            () => rt.http.get('/auth/me', { auth: c.owner }),
            (r) => r.status === 401,
            { timeoutMs: 30_000 },
          )
        ).status,
      ).toBe(401);
      // Its people get no login code while it is their only customer.
      const since = Date.now();
      expect((await rt.http.post('/auth/login', { json: { email: c.ownerEmail } })).status).toBe(202);
      await sleep(500);
      expect((await rt.mailbox.to(c.ownerEmail, since)).filter((m) => /login code/i.test(m.subject))).toEqual([]);
      const audit = await waitForAudit(rt, c.domain, (e) => e.action === 'customer.update' && e.after.status === 'suspended');
      expect(audit).toMatchObject({ before: expect.objectContaining({ status: 'active', domain: c.domain }), actor: expect.stringMatching(/^admin:/) });

      expectStatus(await rt.http.patch(`/admin/customers/${c.domain}`, { auth: admin, json: { status: 'active' } }), 200);
      expect(
        (
          await eventually(
            () => rt.http.get('/logdata', { auth: token.token }),
            (r) => r.status === 200,
            { timeoutMs: 30_000 },
          )
        ).status,
      ).toBe(200);
      expect((await rt.http.get('/auth/me', { auth: c.owner })).status).toBe(401);
    });

    it('sets name and cors_origins, renames the domain (tokens keep working), 409 for a taken domain', async () => {
      const c = await customerWithOwner(rt);
      const token = await rt.createToken(c.owner, 'read-only');
      const name = `Renamed ${letters(6)}`;
      const updated = expectStatus(
        await rt.http.patch(`/admin/customers/${c.domain}`, { auth: admin, json: { name, cors_origins: ['https://console.example.com'] } }),
        200,
      ).json().customer;
      expect(updated).toMatchObject({ domain: c.domain, name, cors_origins: ['https://console.example.com'], status: 'active' });

      const renamed = randomDomain();
      expect(expectStatus(await rt.http.patch(`/admin/customers/${c.domain}`, { auth: admin, json: { domain: renamed } }), 200).json().customer.domain).toBe(
        renamed,
      );
      expect((await rt.http.get(`/admin/customers/${renamed}`, { auth: admin })).status).toBe(200);
      expect((await rt.http.get(`/admin/customers/${c.domain}`, { auth: admin })).status).toBe(404);
      expect((await rt.http.get('/logdata', { auth: token.token })).status).toBe(200);
      const me = await eventually(
        async () => (await rt.http.get('/auth/me', { auth: token.token })).json<IdentityBody>(),
        (m) => m.customer === renamed,
        { timeoutMs: 30_000 },
      );
      expect(me.customer).toBe(renamed);
      expect((await rt.http.get('/logdata', { auth: admin, query: { customer: renamed } })).status).toBe(200);

      expectProblem(await rt.http.patch(`/admin/customers/${renamed}`, { auth: admin, json: { domain: a.domain } }), 409, { code: 'customer_exists' });
      expectProblem(await rt.http.patch(`/admin/customers/${renamed}`, { auth: admin, json: { cors_origins: ['ftp://x'] } }), 400);
      expectProblem(await rt.http.patch(`/admin/customers/${renamed}`, { auth: admin, json: { status: 'paused' } }), 400);
      expectProblem(await rt.http.patch(`/admin/customers/${randomDomain()}`, { auth: admin, json: { name: 'x' } }), 404);
    });

    it('refuses suspending or renaming the operator customer and renaming the sandbox (400); only full administrators (403)', async () => {
      expectProblem(await rt.http.patch(`/admin/customers/${rt.operatorDomain}`, { auth: admin, json: { status: 'suspended' } }), 400);
      expectProblem(await rt.http.patch(`/admin/customers/${rt.operatorDomain}`, { auth: admin, json: { domain: randomDomain() } }), 400);
      expectProblem(await rt.http.patch(`/admin/customers/${rt.sandboxDomain}`, { auth: admin, json: { domain: randomDomain() } }), 400);
      expectProblem(await rt.http.patch(`/admin/customers/${a.domain}`, { auth: a.owner, json: { name: 'x' } }), 403, 'missing scope admin');
    });
  });

  describe('sandbox (SANDBOX_DOMAIN)', () => {
    const sandboxTokens = () => sandboxTokensFromDocs(rt);

    it('has public read-only, uploader and full tokens on the documentation page, on the sandbox customer', async () => {
      const tokens = await sandboxTokens();
      expect(Object.keys(tokens).sort()).toEqual(['full', 'read-only', 'uploader']);
      for (const [bundle, token] of Object.entries(tokens)) {
        const claims = decodeJwt(token);
        expect(claims).toMatchObject({ cust: rt.sandboxDomain, typ: 'api', iss: rt.baseUrl });
        expect(claims.exp! - claims.iat!).toBe(365 * 86_400);
        const me = expectStatus(await rt.http.get('/auth/me', { auth: token }), 200).json<IdentityBody>();
        expect([bundle, me.customer]).toEqual([bundle, rt.sandboxDomain]);
      }
      // Stable across requests (created once, at start-up).
      expect(await sandboxTokens()).toEqual(tokens);
    });

    it('limits: log files up to 256 KiB; no admin API, token or member management', async () => {
      const tokens = await sandboxTokens();
      expect((await rt.http.get('/logdata', { auth: tokens['read-only'] })).status).toBe(200);
      expect((await rt.http.put(`/logdata/${randomLogName()}`, { auth: tokens['read-only'], body: 'x', acceptJson: true })).status).toBe(403);
      expect((await rt.http.put(`/logdata/${randomLogName()}`, { auth: tokens.uploader, body: randomContent(LOGDATA_SANDBOX_MAX_BYTES) })).status).toBe(200);
      expect((await rt.http.put(`/logdata/${randomLogName()}`, { auth: tokens.uploader, body: randomContent(LOGDATA_SANDBOX_MAX_BYTES + 1) })).status).toBe(
        413,
      );
      for (const [method, path] of [
        ['GET', '/admin/customers'],
        ['GET', '/admin/audit'],
        ['GET', '/admin/security/events'],
        ['GET', '/admin/users'],
        ['GET', '/members'],
        ['POST', '/tokens'],
        ['DELETE', `/tokens/${randomUUID()}`],
      ]) {
        const reply = await rt.http.request(method, path, { auth: tokens.full, ...(method === 'POST' ? { json: { name: 'x', bundle: 'read-only' } } : {}) });
        expectProblem(reply, 403, path.startsWith('/admin') ? /not available in the sandbox|missing scope admin/ : 'not available in the sandbox');
      }
    });
  });
});
