import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SESSION_COOKIES } from '@app/contracts';
import {
  customerWithOwner,
  expectSessionCookieAttributes,
  expectStatus,
  randomPerson,
  requestCode,
  requestMagicLink,
  sessionFrom,
  setCookies,
  waitForSecurityEvent,
} from './support/auth.js';
import { expectProblem } from './support/problems.js';
import { LOGIN_RATE_PER_IP_PER_HOUR, LOGIN_VERIFY_RATE_PER_EMAIL_PER_HOUR, LOGIN_VERIFY_RATE_PER_IP_PER_HOUR } from './support/constants.js';
import { letters, sleep } from './support/factories.js';
import type { HttpReply, IdentityBody } from './support/http.js';
import { startRuntime, type Runtime } from './support/runtime.js';

/**
 * docs/api.md "Logging in" and the login limits of "Limits and errors": enumeration-safe
 * login, the code and link rules, the magic link (GET shows, POST uses), the limits per
 * address and per client address, and the security events login raises.
 */

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

/** Runs `count` calls of `fn`, `concurrency` at a time. */
async function inBatches<T>(count: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < count; i += concurrency) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(concurrency, count - i) }, (_, j) => fn(i + j)))));
  }
  return out;
}

function expectRateLimited(reply: HttpReply, detail: RegExp, code: string): void {
  expectProblem(reply, 429, { detail, code });
  const retryAfter = Number(reply.header('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(3600);
}

describe('console login', () => {
  let rt: Runtime;
  let customer: Awaited<ReturnType<typeof customerWithOwner>>;

  beforeAll(async () => {
    rt = await startRuntime();
    customer = await customerWithOwner(rt);
  });
  afterAll(async () => {
    await rt?.stop();
  });

  /** A fresh invited person of `customer` (invited by its owner through the Member API). */
  const invitePerson = async (role = 'viewer'): Promise<string> => {
    const email = randomPerson(customer.domain);
    expectStatus(await rt.http.post('/members', { auth: customer.owner, json: { email, role } }), 201);
    return email;
  };

  describe('enumeration safety', () => {
    it('answers 202 with the same body, in about the same time, invited or not; only the invited get mail', async () => {
      const invited = await Promise.all([1, 2, 3, 4, 5, 6, 7].map(() => invitePerson()));
      const strangers = invited.map(() => randomPerson());
      const since = Date.now();
      const times = { invited: [] as number[], stranger: [] as number[] };
      const bodies = new Set<string>();
      for (let i = 0; i < invited.length; i++) {
        for (const [kind, email] of [
          ['invited', invited[i]],
          ['stranger', strangers[i]],
        ] as const) {
          const reply = await rt.http.post('/auth/login', { json: { email } });
          expect(reply.status).toBe(202);
          bodies.add(`${reply.contentType} ${reply.text}`);
          times[kind].push(reply.elapsedMs);
        }
      }
      expect(bodies.size).toBe(1);
      expect(JSON.parse([...bodies][0].split(' ').slice(1).join(' '))).toEqual({ sent: true, detail: expect.any(String) });
      // The same work on both paths: the medians differ by far less than a round trip to a mail server.
      expect(Math.abs(median(times.invited) - median(times.stranger))).toBeLessThan(100);
      for (const email of invited) expect(await rt.mailbox.waitForCode(email, { since })).toMatch(/^\d{6}$/);
      await sleep(300);
      for (const email of strangers) expect(await rt.mailbox.to(email, since)).toEqual([]);
    });

    it('sends no mail to a disabled person, and still answers 202', async () => {
      const email = await invitePerson();
      expectStatus(await rt.http.patch(`/admin/users/${email}`, { auth: await rt.adminToken(), json: { disabled: true } }), 200);
      const since = Date.now();
      expect((await rt.http.post('/auth/login', { json: { email } })).status).toBe(202);
      await sleep(500);
      expect((await rt.mailbox.to(email, since)).filter((m) => /login code/i.test(m.subject))).toEqual([]);
    });
  });

  describe('codes', () => {
    it('allow 5 codes per address per hour, then 429 with Retry-After, invited or not', async () => {
      const invited = await invitePerson();
      const stranger = randomPerson();
      for (const email of [invited, stranger]) {
        for (let i = 0; i < 5; i++) expect((await rt.http.post('/auth/login', { json: { email } })).status).toBe(202);
        expectRateLimited(await rt.http.post('/auth/login', { json: { email } }), /too many login codes/, 'login_rate_limited');
      }
    });

    it('are single use; a successful login retires the other codes of the address', async () => {
      const email = await invitePerson();
      const first = await requestCode(rt, email);
      const second = await requestCode(rt, email);
      expectStatus(await rt.http.post('/auth/verify', { json: { email, code: second } }), 200);
      expectProblem(await rt.http.post('/auth/verify', { json: { email, code: second } }), 401, {
        detail: 'invalid or expired code',
        code: 'login_code_invalid',
      });
      if (first !== second)
        expectProblem(await rt.http.post('/auth/verify', { json: { email, code: first } }), 401, {
          detail: 'invalid or expired code',
          code: 'login_code_invalid',
        });
    });

    it('die after 5 wrong guesses (the right code then fails too) and raise a login_code_failures event (warn)', async () => {
      const email = await invitePerson();
      const code = await requestCode(rt, email);
      const wrong = (n: number) => String((Number(code) + n) % 1_000_000).padStart(6, '0');
      for (let i = 1; i <= 5; i++)
        expectProblem(await rt.http.post('/auth/verify', { json: { email, code: wrong(i) } }), 401, {
          detail: 'invalid or expired code',
          code: 'login_code_invalid',
        });
      expectProblem(await rt.http.post('/auth/verify', { json: { email, code } }), 401, { detail: 'invalid or expired code', code: 'login_code_invalid' });
      const event = await waitForSecurityEvent(rt, { kind: 'login_code_failures' }, (e) => e.detail.email === email);
      expect(event).toMatchObject({ severity: 'warn', kind: 'login_code_failures', ip: expect.any(String) });
    });

    it('expire after 15 minutes, and the link with them (white box: the challenge is aged in the database)', async () => {
      const email = await invitePerson();
      const { c, t, code } = await requestMagicLink(rt, email);
      await rt.query(
        `UPDATE identity.login_challenges SET expires_at = now() - interval '1 second', created_at = now() - interval '16 minutes' WHERE id = $1`,
        [c],
      );
      expectProblem(await rt.http.post('/auth/verify', { json: { email, code } }), 401, { detail: 'invalid or expired code', code: 'login_code_invalid' });
      expect((await rt.http.get('/auth/magic', { query: { c, t } })).status).toBe(400);
      expect((await rt.http.post('/auth/magic', { query: { c, t } })).status).toBe(400);
    });
  });

  describe('magic link', () => {
    it('GET shows a confirmation page (HTML, a form that POSTs back) and does not use the link up', async () => {
      const email = await invitePerson('editor');
      const { c, t } = await requestMagicLink(rt, email);
      for (let i = 0; i < 2; i++) {
        const page = await rt.http.get('/auth/magic', { query: { c, t } });
        expect(page.status).toBe(200);
        expect(page.contentType).toBe('text/html; charset=utf-8');
        expect(page.text).toContain('<form method="post" action="/auth/magic?');
        expect(page.text).toContain(`c=${c}`);
        expect(page.setCookies).toEqual([]);
        expect(page.header('content-security-policy')).toMatch(/default-src 'none'/);
        expect(page.header('content-security-policy')).not.toMatch(/unsafe-inline/);
        expect(page.header('x-frame-options')).toBe('DENY');
        expect(page.header('referrer-policy')).toBe('same-origin');
        expect(page.header('cache-control')).toBe('no-store');
      }
      // Still usable after the GETs: POST logs in.
      const post = await rt.http.post('/auth/magic', { query: { c, t } });
      expect(post.status).toBe(303);
      expect(post.header('location')).toBe('/console');
      const cookies = setCookies(post);
      expect([...cookies.keys()].sort()).toEqual(Object.values(SESSION_COOKIES).sort());
      for (const cookie of cookies.values()) expectSessionCookieAttributes(cookie);
      const session = sessionFrom(email, post);
      const me = expectStatus(await rt.http.get('/auth/me', { auth: session }), 200).json<IdentityBody>();
      expect(me).toMatchObject({ email, customer: customer.domain, role: 'editor' });
    });

    it('POST uses it once: a second POST, a later GET and the code of the same mail fail', async () => {
      const email = await invitePerson();
      const { c, t, code } = await requestMagicLink(rt, email);
      expect((await rt.http.post('/auth/magic', { query: { c, t } })).status).toBe(303);
      const again = await rt.http.post('/auth/magic', { query: { c, t } });
      expect(again.status).toBe(400);
      expect(again.contentType).toBe('text/html; charset=utf-8');
      expect(again.setCookies).toEqual([]);
      expect(again.text).toContain('/login');
      expect((await rt.http.get('/auth/magic', { query: { c, t } })).status).toBe(400);
      expectProblem(await rt.http.post('/auth/verify', { json: { email, code } }), 401, { detail: 'invalid or expired code', code: 'login_code_invalid' });
    });

    it('refuses a wrong link token and a POST from another site (login CSRF); the link survives both', async () => {
      const email = await invitePerson();
      const { c, t } = await requestMagicLink(rt, email);
      expect((await rt.http.post('/auth/magic', { query: { c, t: `${t.slice(0, -4)}AAAA` } })).status).toBe(400);
      expect((await rt.http.get('/auth/magic', { query: { c, t: letters(43) } })).status).toBe(400);
      expectProblem(await rt.http.post('/auth/magic', { query: { c, t }, headers: { Origin: 'https://evil.example' } }), 403, { code: 'login_cross_site' });
      expectProblem(await rt.http.post('/auth/magic', { query: { c, t }, headers: { 'Sec-Fetch-Site': 'cross-site' } }), 403, { code: 'login_cross_site' });
      const ok = await rt.http.post('/auth/magic', { query: { c, t }, headers: { Origin: new URL(rt.baseUrl).origin, 'Sec-Fetch-Site': 'same-origin' } });
      expect(ok.status).toBe(303);
    });

    it('answers 400 for a malformed link', async () => {
      expectProblem(await rt.http.get('/auth/magic', { query: { c: 'x', t: letters(43) } }), 400, 'c must be the challenge id of a login link');
      expectProblem(await rt.http.get('/auth/magic'), 400);
    });
  });

  describe('limits per client address and per email (429 with Retry-After, documented defaults, set for this suite)', () => {
    it(`POST /auth/login: ${LOGIN_RATE_PER_IP_PER_HOUR} per client address per hour`, async () => {
      const localAddress = '127.0.0.61';
      const replies = await inBatches(LOGIN_RATE_PER_IP_PER_HOUR, 20, () => rt.http.post('/auth/login', { json: { email: randomPerson() }, localAddress }));
      expect(replies.map((r) => r.status).filter((s) => s !== 202)).toEqual([]);
      expectRateLimited(
        await rt.http.post('/auth/login', { json: { email: randomPerson() }, localAddress }),
        /too many login requests from this address/,
        'login_ip_rate_limited',
      );
      // Another address is not affected.
      expect((await rt.http.post('/auth/login', { json: { email: randomPerson() } })).status).toBe(202);
      const event = await waitForSecurityEvent(rt, { kind: 'login_rate_limited' }, (e) => e.ip === localAddress);
      expect(event).toMatchObject({ severity: 'warn', detail: expect.objectContaining({ limit: 'login_per_ip' }) });
    });

    it(`code verification: ${LOGIN_VERIFY_RATE_PER_IP_PER_HOUR} per client address per hour`, async () => {
      const localAddress = '127.0.0.62';
      const replies = await inBatches(LOGIN_VERIFY_RATE_PER_IP_PER_HOUR, 20, () =>
        rt.http.post('/auth/verify', { json: { email: randomPerson(), code: '123456' }, localAddress }),
      );
      expect(replies.map((r) => r.status).filter((s) => s !== 401)).toEqual([]);
      expectRateLimited(
        await rt.http.post('/auth/verify', { json: { email: randomPerson(), code: '123456' }, localAddress }),
        /too many login attempts/,
        'verify_rate_limited',
      );
      // The magic link counts as a verification too.
      expect((await rt.http.post('/auth/magic', { query: { c: randomUUID(), t: letters(43) }, localAddress })).status).toBe(429);
    });

    it(`code verification: ${LOGIN_VERIFY_RATE_PER_EMAIL_PER_HOUR} per email per hour, whatever the client address`, async () => {
      const email = await invitePerson();
      for (let i = 0; i < LOGIN_VERIFY_RATE_PER_EMAIL_PER_HOUR; i++) {
        expect((await rt.http.post('/auth/verify', { json: { email, code: '000000' }, localAddress: `127.0.0.${70 + (i % 5)}` })).status).toBe(401);
      }
      expectRateLimited(
        await rt.http.post('/auth/verify', { json: { email, code: '000000' }, localAddress: '127.0.0.76' }),
        /too many login attempts/,
        'verify_rate_limited',
      );
      const event = await waitForSecurityEvent(rt, { kind: 'login_rate_limited' }, (e) => e.detail.email === email);
      expect(event.detail).toMatchObject({ limit: 'verify_per_email' });
    });
  });

  describe('security events', () => {
    it('every administrator login raises admin_login (info); logins of other people do not', async () => {
      const admin = await rt.adminToken();
      const operatorEditor = randomPerson();
      expectStatus(
        await rt.http.post('/members', { auth: admin, query: { customer: rt.operatorDomain }, json: { email: operatorEditor, role: 'editor' } }),
        201,
      );
      const session = await rt.loginAs(operatorEditor);
      expect(session.identity).toMatchObject({ admin: 'full', customer: rt.operatorDomain });
      const event = await waitForSecurityEvent(rt, { kind: 'admin_login' }, (e) => e.detail.email === operatorEditor);
      expect(event).toMatchObject({ severity: 'info', domain: rt.operatorDomain, ip: expect.any(String), acked_at: null, notified_at: null });

      const member = await invitePerson();
      await rt.loginAs(member);
      await sleep(1000);
      const events = (await rt.http.get('/admin/security/events', { auth: admin, query: { kind: 'admin_login', limit: 1000 } })).json<{
        items: Array<{ detail: { email?: string } }>;
      }>().items;
      expect(events.map((e) => e.detail.email)).not.toContain(member);
    });
  });
});
