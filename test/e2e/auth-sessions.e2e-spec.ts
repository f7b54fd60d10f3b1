import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decodeJwt, importPKCS8, SignJWT } from 'jose';
import { SESSION_COOKIES } from '@app/contracts';
import {
  cloneSession,
  customerWithOwner,
  expectSessionCookieAttributes,
  expectStatus,
  randomPerson,
  refreshOnly,
  setCookies,
  waitForSecurityEvent,
} from './support/auth.js';
import { expectProblem } from './support/problems.js';
import { REFRESH_REUSE_GRACE_SECONDS } from './support/constants.js';
import { eventually, letters } from './support/factories.js';
import { type IdentityBody, Session } from './support/http.js';
import { startRuntime, type Runtime } from './support/runtime.js';

/**
 * docs/api.md "Sessions and CSRF" (a session ends on every gateway within 30 s): cookies, refresh
 * rotation and reuse, automatic renewal of the access cookie, switch, logout, and the CSRF token in
 * the header, a form field or the query.
 */

const REUSE = 'refresh token already used: the session has been ended; log in again';
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const sessionId = (s: Session): string => String(decodeJwt(s.cookies.get(SESSION_COOKIES.access)!).sid);

describe('console sessions', () => {
  let rt: Runtime;
  let a: Awaited<ReturnType<typeof customerWithOwner>>;

  beforeAll(async () => {
    rt = await startRuntime();
    a = await customerWithOwner(rt);
  });
  afterAll(async () => {
    await rt?.stop();
  });

  /** A new person of customer `a` with a session of their own. */
  const person = async (role = 'editor'): Promise<Session> => {
    const email = randomPerson(a.domain);
    expectStatus(await rt.http.post('/members', { auth: a.owner, json: { email, role } }), 201);
    return rt.loginAs(email);
  };

  describe('cookies', () => {
    it('verify sets the three __Host- cookies: access 15 minutes, refresh and CSRF 7 days', async () => {
      const email = randomPerson(a.domain);
      expectStatus(await rt.http.post('/members', { auth: a.owner, json: { email, role: 'viewer' } }), 201);
      const since = Date.now();
      await rt.http.post('/auth/login', { json: { email } });
      const code = await rt.mailbox.waitForCode(email, { since });
      const verify = expectStatus(await rt.http.post('/auth/verify', { json: { email, code } }), 200);
      const cookies = setCookies(verify);
      expect([...cookies.keys()].sort()).toEqual(['__Host-svc_at', '__Host-svc_csrf', '__Host-svc_rt']);
      for (const cookie of cookies.values()) expectSessionCookieAttributes(cookie);
      expect(cookies.get(SESSION_COOKIES.access)!.attributes['max-age']).toBe('900');
      expect(cookies.get(SESSION_COOKIES.refresh)!.attributes['max-age']).toBe(String(7 * 86400));
      expect(cookies.get(SESSION_COOKIES.csrf)!.attributes['max-age']).toBe(String(7 * 86400));
      // At least 128 random bits: 43 base64url characters (256 bits).
      expect(cookies.get(SESSION_COOKIES.refresh)!.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(cookies.get(SESSION_COOKIES.csrf)!.value).toBe(verify.json<IdentityBody>().csrf_token);
      // Stored hashed: the refresh token itself is nowhere in the database (white box).
      const [row] = await rt.query<{ n: number }>(`SELECT count(*)::int AS n FROM identity.refresh_tokens WHERE token_hash = $1`, [
        cookies.get(SESSION_COOKIES.refresh)!.value,
      ]);
      expect(row.n).toBe(0);
    });
  });

  describe('POST /auth/refresh', () => {
    it('rotates the refresh token on every use: new refresh and access cookies, the same CSRF token', async () => {
      const session = await person();
      const before = cloneSession(session);
      const reply = expectStatus(await rt.http.post('/auth/refresh', { auth: session }), 200);
      expect(reply.json()).toEqual({ csrf_token: session.csrfToken, access_expires_at: expect.any(String), session_expires_at: expect.any(String) });
      const cookies = setCookies(reply);
      expect([...cookies.keys()].sort()).toEqual(['__Host-svc_at', '__Host-svc_csrf', '__Host-svc_rt']);
      for (const cookie of cookies.values()) expectSessionCookieAttributes(cookie);
      expect(cookies.get(SESSION_COOKIES.refresh)!.value).not.toBe(before.cookies.get(SESSION_COOKIES.refresh));
      expect(cookies.get(SESSION_COOKIES.access)!.value).not.toBe(before.cookies.get(SESSION_COOKIES.access));
      expect(cookies.get(SESSION_COOKIES.csrf)!.value).toBe(session.csrfToken);
      expect(Number(cookies.get(SESSION_COOKIES.refresh)!.attributes['max-age'])).toBeGreaterThan(7 * 86400 - 120);
      // And again: every use rotates.
      const second = expectStatus(await rt.http.post('/auth/refresh', { auth: session }), 200);
      expect(setCookies(second).get(SESSION_COOKIES.refresh)!.value).not.toBe(cookies.get(SESSION_COOKIES.refresh)!.value);
      expect((await rt.http.get('/auth/me', { auth: session })).status).toBe(200);
    });

    it('needs the CSRF token: header, query parameter or form field; refused (403) without, and nothing rotates', async () => {
      const session = await person();
      const refresh = session.cookies.get(SESSION_COOKIES.refresh);
      expectProblem(await rt.http.post('/auth/refresh', { auth: session, csrf: 'none' }), 403, {
        detail: 'missing or invalid CSRF token',
        code: 'csrf_invalid',
      });
      expectProblem(await rt.http.post('/auth/refresh', { auth: session, csrf: { value: letters(43) } }), 403, {
        detail: 'missing or invalid CSRF token',
        code: 'csrf_invalid',
      });
      expect(session.cookies.get(SESSION_COOKIES.refresh)).toBe(refresh);
      expectStatus(await rt.http.post('/auth/refresh', { auth: session, csrf: 'header' }), 200);
      expectStatus(await rt.http.post('/auth/refresh', { auth: session, csrf: 'query' }), 200);
      expectStatus(
        await rt.http.post('/auth/refresh', { auth: session, csrf: 'none', headers: FORM, body: `csrf=${encodeURIComponent(session.csrfToken)}` }),
        200,
      );
    });

    it('answers 401 without a refresh cookie, with an unknown one, or once the session is idle 12 hours or 7 days old (white box)', async () => {
      const session = await person();
      const noRefresh = cloneSession(session);
      noRefresh.cookies.delete(SESSION_COOKIES.refresh);
      expectProblem(await rt.http.post('/auth/refresh', { auth: noRefresh }), 401, { detail: /refresh cookie missing or expired/, code: 'refresh_invalid' });
      const unknown = cloneSession(session);
      unknown.cookies.set(SESSION_COOKIES.refresh, letters(43));
      expectProblem(await rt.http.post('/auth/refresh', { auth: unknown }), 401);
      expectProblem(await rt.http.post('/auth/refresh', { csrf: 'none', headers: { 'X-CSRF-Token': session.csrfToken } }), 401);

      await rt.query(`UPDATE identity.sessions SET last_used_at = now() - interval '12 hours 1 minute' WHERE id = $1`, [sessionId(session)]);
      expectProblem(await rt.http.post('/auth/refresh', { auth: cloneSession(session) }), 401, {
        detail: /refresh cookie missing or expired/,
        code: 'refresh_invalid',
      });

      const other = await person();
      await rt.query(`UPDATE identity.sessions SET expires_at = now() - interval '1 second' WHERE id = $1`, [sessionId(other)]);
      expectProblem(await rt.http.post('/auth/refresh', { auth: cloneSession(other) }), 401, {
        detail: /refresh cookie missing or expired/,
        code: 'refresh_invalid',
      });
    });

    it('a rotated refresh token presented again, even at once, ends the whole session, raises session_token_reuse (critical) and mails the administrators', async () => {
      expect(REFRESH_REUSE_GRACE_SECONDS).toBe(0);
      const session = await person();
      const stolen = cloneSession(session);
      expectStatus(await rt.http.post('/auth/refresh', { auth: session }), 200);
      const since = Date.now();
      expectProblem(await rt.http.post('/auth/refresh', { auth: stolen }), 401, { detail: REUSE, code: 'refresh_reused' });
      // The whole session is revoked: its current refresh token and its access cookie stop working.
      expectProblem(await rt.http.post('/auth/refresh', { auth: cloneSession(session) }), 401);
      const me = await eventually(
        () => rt.http.get('/auth/me', { auth: cloneSession(session) }),
        (r) => r.status === 401,
        { timeoutMs: 30_000 },
      );
      expect(me.status).toBe(401);

      const event = await waitForSecurityEvent(rt, { kind: 'session_token_reuse', severity: 'critical' }, (e) => e.detail.session_id === sessionId(session));
      expect(event).toMatchObject({ severity: 'critical', domain: a.domain, detail: expect.objectContaining({ email: session.email }) });
      const alert = await rt.mailbox.waitFor((m) => m.to.includes(rt.adminEmail) && m.subject.includes('session_token_reuse'), { since, timeoutMs: 20_000 });
      expect(alert.text).toContain(`Event id: ${event.id}`);
      const notified = await waitForSecurityEvent(rt, { kind: 'session_token_reuse' }, (e) => e.id === event.id && e.notified_at !== null);
      expect(Date.parse(notified.notified_at!)).toBeGreaterThan(0);
    });

    it('concurrent POST /auth/refresh with one token: no replay gets tokens; at most one is answered 200 and the session ends', async () => {
      const session = await person();
      const copies = [1, 2, 3, 4].map(() => cloneSession(session));
      const replies = await Promise.all(copies.map((copy) => rt.http.post('/auth/refresh', { auth: copy })));
      const statuses = replies.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(1);
      expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(3);
      // Every refused one was a replay of the rotated token: the session is over, whatever cookie is shown.
      for (const copy of copies) expectProblem(await rt.http.post('/auth/refresh', { auth: copy }), 401);
      await waitForSecurityEvent(rt, { kind: 'session_token_reuse' }, (e) => e.detail.session_id === sessionId(session));
    });
  });

  describe('automatic renewal of the access cookie', () => {
    it('a request with only the refresh cookie is renewed: answered, with new cookies, as the same person', async () => {
      const session = await person();
      const browser = refreshOnly(session);
      const reply = await rt.http.get('/auth/me', { auth: browser });
      expect(reply.status).toBe(200);
      expect(reply.json<IdentityBody>()).toMatchObject({ email: session.email, customer: a.domain, csrf_token: session.csrfToken });
      const cookies = setCookies(reply);
      expect([...cookies.keys()].sort()).toEqual(['__Host-svc_at', '__Host-svc_csrf', '__Host-svc_rt']);
      for (const cookie of cookies.values()) expectSessionCookieAttributes(cookie);
      expect(browser.hasAllCookies()).toBe(true);
      expect(browser.cookies.get(SESSION_COOKIES.refresh)).not.toBe(session.cookies.get(SESSION_COOKIES.refresh));
      // Writes too, with the same CSRF token.
      const renewedWrite = refreshOnly(browser);
      expectStatus(await rt.http.post('/tokens', { auth: renewedWrite, json: { name: `renewed ${letters(4)}`, bundle: 'read-only' } }), 201);
    });

    it('an expired access cookie is renewed with the refresh cookie; without one it answers 401 (white box: forged with the service key)', async () => {
      const session = await person();
      const [key] = await rt.query<{ kid: string; private_pkcs8: string }>(
        'SELECT kid, private_pkcs8 FROM identity.signing_keys WHERE active ORDER BY created_at DESC LIMIT 1',
      );
      const now = Math.floor(Date.now() / 1000);
      const claims = { ...decodeJwt(session.cookies.get(SESSION_COOKIES.access)!), iat: now - 1000, nbf: now - 1000, exp: now - 60 };
      const expired = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'JWT' })
        .sign(await importPKCS8(key.private_pkcs8, 'EdDSA'));
      const withRefresh = cloneSession(session);
      withRefresh.cookies.set(SESSION_COOKIES.access, expired);
      expect((await rt.http.get('/auth/me', { auth: withRefresh })).status).toBe(200);
      expect(withRefresh.cookies.get(SESSION_COOKIES.access)).not.toBe(expired);
      const withoutRefresh = cloneSession(session);
      withoutRefresh.cookies.set(SESSION_COOKIES.access, expired);
      withoutRefresh.cookies.delete(SESSION_COOKIES.refresh);
      expectProblem(await rt.http.get('/auth/me', { auth: withoutRefresh }), 401, { detail: 'session expired or ended: log in again', code: 'session_ended' });
    });

    it('a browser renewing one request at a time keeps its session: each renewal rotates the refresh cookie', async () => {
      const session = await person();
      const browser = cloneSession(session);
      const seen = new Set<string>();
      for (let i = 0; i < 4; i++) {
        browser.cookies.delete(SESSION_COOKIES.access); // as if the 15 minutes had passed
        expect((await rt.http.get('/auth/me', { auth: browser })).status).toBe(200);
        seen.add(browser.cookies.get(SESSION_COOKIES.refresh)!);
      }
      expect(seen.size).toBe(4);
      expectStatus(await rt.http.post('/auth/refresh', { auth: browser }), 200);
    });

    it('concurrent renewals with one refresh cookie: no replay of the rotated cookie gets tokens; a replay ends the session', async () => {
      const session = await person();
      const tabs = [1, 2, 3, 4, 5].map(() => refreshOnly(session));
      const replies = await Promise.all(tabs.map((tab) => rt.http.get('/auth/me', { auth: tab })));
      // Requests that arrived while the renewal was in flight share it (one new token); any later one is a replay.
      const renewed = tabs.filter((_, n) => replies[n].status === 200).map((t) => t.cookies.get(SESSION_COOKIES.refresh));
      expect(new Set(renewed).size).toBeLessThanOrEqual(1);
      for (const reply of replies) expect([200, 401]).toContain(reply.status);
      if (replies.some((r) => r.status === 401)) {
        // A replay was seen: the whole session is over.
        expectProblem(await rt.http.post('/auth/refresh', { auth: tabs[replies.findIndex((r) => r.status === 200)] ?? tabs[0] }), 401);
        await waitForSecurityEvent(rt, { kind: 'session_token_reuse' }, (e) => e.detail.session_id === sessionId(session));
      }
    });
  });

  describe('POST /auth/switch', () => {
    it('moves the session to another customer the person belongs to; the access cookie of the previous one stops working', async () => {
      const b = await customerWithOwner(rt);
      const email = randomPerson();
      expectStatus(await rt.http.post('/members', { auth: a.owner, json: { email, role: 'owner' } }), 201);
      expectStatus(await rt.http.post('/members', { auth: b.owner, json: { email, role: 'viewer' } }), 201);
      const session = await rt.loginAs(email);
      const first = session.identity.customer;
      const target = first === a.domain ? b.domain : a.domain;
      const before = cloneSession(session);

      const reply = expectStatus(await rt.http.post('/auth/switch', { auth: session, json: { domain: target } }), 200);
      const identity = reply.json<IdentityBody>();
      expect(identity).toMatchObject({ customer: target, email, role: target === b.domain ? 'viewer' : 'owner', csrf_token: session.csrfToken });
      expect(identity.memberships.map((m) => m.domain).sort()).toEqual([a.domain, b.domain].sort());
      const cookies = setCookies(reply);
      expect([...cookies.keys()]).toEqual([SESSION_COOKIES.access]);
      expectSessionCookieAttributes(cookies.get(SESSION_COOKIES.access)!);
      expect((await rt.http.get('/auth/me', { auth: session })).json<IdentityBody>().customer).toBe(target);

      // The old access cookie named the previous customer: refused (without a refresh cookie to renew it).
      const stale = cloneSession(before);
      stale.cookies.delete(SESSION_COOKIES.refresh);
      expectProblem(await rt.http.get('/auth/me', { auth: stale }), 401);
      // Renewal issues an access cookie for the customer the session is on now.
      const renewed = await rt.http.get('/auth/me', { auth: before });
      expect(renewed.json<IdentityBody>().customer).toBe(target);

      // CSRF in the query and in a form field work too; switching back.
      expectStatus(await rt.http.post('/auth/switch', { auth: session, csrf: 'query', json: { domain: first } }), 200);
      expectStatus(
        await rt.http.post('/auth/switch', {
          auth: session,
          csrf: 'none',
          headers: FORM,
          body: `domain=${target}&csrf=${encodeURIComponent(session.csrfToken)}`,
        }),
        200,
      );
      expect((await rt.http.get('/auth/me', { auth: session })).json<IdentityBody>().customer).toBe(target);
    });

    it('403 for a customer the person does not belong to, 404 for an unknown one, 403 without CSRF or with an API token', async () => {
      const session = await person();
      const other = await customerWithOwner(rt);
      expectProblem(await rt.http.post('/auth/switch', { auth: session, json: { domain: other.domain } }), 403, { code: 'switch_not_a_member' });
      expectProblem(await rt.http.post('/auth/switch', { auth: session, json: { domain: `nobody-${letters(8)}.test` } }), 404, { code: 'customer_not_found' });
      expectProblem(await rt.http.post('/auth/switch', { auth: session, csrf: 'none', json: { domain: a.domain } }), 403, {
        detail: 'missing or invalid CSRF token',
        code: 'csrf_invalid',
      });
      const token = await rt.createToken(session, 'read-only');
      expectProblem(await rt.http.post('/auth/switch', { auth: token.token, json: { domain: a.domain } }), 403);
    });
  });

  describe('POST /auth/logout', () => {
    it('ends the session and clears the three cookies (Max-Age=0); its access cookie stops working within 30 s', async () => {
      const session = await person();
      const copy = cloneSession(session);
      const reply = await rt.http.post('/auth/logout', { auth: session, csrf: 'none', headers: FORM, body: `csrf=${encodeURIComponent(session.csrfToken)}` });
      expect(reply.status).toBe(204);
      const cookies = setCookies(reply);
      expect([...cookies.keys()].sort()).toEqual(['__Host-svc_at', '__Host-svc_csrf', '__Host-svc_rt']);
      for (const cookie of cookies.values()) {
        expectSessionCookieAttributes(cookie);
        expect(cookie.attributes['max-age']).toBe('0');
        expect(cookie.value).toBe('');
      }
      expect(session.hasAllCookies()).toBe(false);
      const started = Date.now();
      const after = await eventually(
        () => rt.http.get('/auth/me', { auth: cloneSession(copy) }),
        (r) => r.status === 401,
        { timeoutMs: 30_000 },
      );
      expect(after.status).toBe(401);
      expect(Date.now() - started).toBeLessThan(30_000);
      expectProblem(await rt.http.post('/auth/refresh', { auth: cloneSession(copy) }), 401);
    });

    it('needs the CSRF token (403 without: the session goes on); header and query work', async () => {
      const session = await person();
      expectProblem(await rt.http.post('/auth/logout', { auth: session, csrf: 'none' }), 403, {
        detail: 'missing or invalid CSRF token',
        code: 'csrf_invalid',
      });
      expect((await rt.http.get('/auth/me', { auth: session })).status).toBe(200);
      expect((await rt.http.post('/auth/logout', { auth: cloneSession(session), csrf: 'query' })).status).toBe(204);
      const other = await person();
      expect((await rt.http.post('/auth/logout', { auth: other, csrf: 'header' })).status).toBe(204);
    });

    it('is refused for API tokens (403): they are revoked instead', async () => {
      const session = await person();
      const token = await rt.createToken(session, 'read-only');
      expectProblem(await rt.http.post('/auth/logout', { auth: token.token }), 403);
    });
  });
});
