import { expect } from '@jest/globals';
import { SESSION_COOKIES } from '@app/contracts';
import { eventually, letters, randomDomain } from './factories.js';
import { type HttpReply, type IdentityBody, parseSetCookie, type ParsedSetCookie, Session } from './http.js';
import type { Runtime } from './runtime.js';

/** Helpers of the identity files (auth*, members*, admin-audit*): statuses, cookies, sessions, events (problems: problems.ts). */

export function expectStatus(reply: HttpReply, status: number): HttpReply {
  if (reply.status !== status) throw new Error(`expected ${status}, got ${reply.describe()}`);
  return reply;
}

export function setCookies(reply: HttpReply): Map<string, ParsedSetCookie> {
  return new Map(reply.setCookies.map((line) => parseSetCookie(line)!).map((c) => [c.name, c]));
}

/** Every session cookie is Path=/, HttpOnly, Secure, SameSite=Strict, and __Host- (no Domain). */
export function expectSessionCookieAttributes(cookie: ParsedSetCookie): void {
  expect(cookie.name.startsWith('__Host-')).toBe(true);
  expect(cookie.raw).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'Secure', 'SameSite=Strict']));
  expect(cookie.attributes).not.toHaveProperty('domain');
}

/** A copy of a session (same cookies and CSRF token) that changes independently. */
export function cloneSession(session: Session): Session {
  const copy = new Session(session.email, session.csrfToken, session.identity);
  for (const [k, v] of session.cookies) copy.cookies.set(k, v);
  return copy;
}

/** A copy holding only the refresh cookie (and the CSRF token): as a browser whose access cookie expired. */
export function refreshOnly(session: Session): Session {
  const copy = cloneSession(session);
  copy.cookies.delete(SESSION_COOKIES.access);
  return copy;
}

export async function requestCode(rt: Runtime, email: string, options: { localAddress?: string } = {}): Promise<string> {
  const since = Date.now();
  expectStatus(await rt.http.post('/auth/login', { json: { email }, localAddress: options.localAddress }), 202);
  return rt.mailbox.waitForCode(email, { since });
}

/** The magic link (c, t) of the newest login mail to `email`, after asking for one. */
export async function requestMagicLink(rt: Runtime, email: string): Promise<{ c: string; t: string; code: string }> {
  const since = Date.now();
  expectStatus(await rt.http.post('/auth/login', { json: { email } }), 202);
  const mail = await rt.mailbox.waitFor((m) => m.to.map((a) => a.toLowerCase()).includes(email.toLowerCase()) && /login code/i.test(m.subject), { since });
  const link = /https?:\/\/\S+\/auth\/magic\?\S+/.exec(mail.text)?.[0];
  if (!link) throw new Error(`no magic link in ${mail.text}`);
  const url = new URL(link);
  return { c: url.searchParams.get('c')!, t: url.searchParams.get('t')!, code: /\b(\d{6})\b/.exec(mail.subject)![1] };
}

/** A session from the cookies of a reply (verify, magic link). */
export function sessionFrom(email: string, reply: HttpReply, identity?: IdentityBody): Session {
  const body = identity ?? (reply.contentType?.startsWith('application/json') ? reply.json<IdentityBody>() : undefined);
  const session = new Session(email, body?.csrf_token ?? '', body ?? ({} as IdentityBody));
  session.absorb(reply.setCookies);
  return session;
}

/** A customer opened by the admin API, with its owner logged in (no tokens). */
export async function customerWithOwner(rt: Runtime): Promise<{ domain: string; ownerEmail: string; owner: Session }> {
  const customer = await rt.newCustomer({ tokens: false });
  return { domain: customer.domain, ownerEmail: customer.ownerEmail, owner: customer.owner };
}

/** A read-only administrator: a new viewer of the operator customer, invited with `admin` (a full administrator's credential) and logged in. */
export async function readOnlyAdministrator(rt: Runtime, admin: string): Promise<Session> {
  const viewer = randomPerson();
  expectStatus(await rt.http.post('/members', { auth: admin, query: { customer: rt.operatorDomain }, json: { email: viewer, role: 'viewer' } }), 201);
  return rt.loginAs(viewer);
}

export function randomPerson(domain = `${letters(8)}.example`): string {
  return `${letters(10)}@${domain}`;
}

export { randomDomain };

export interface SecurityEventBody {
  id: number;
  ts: string;
  kind: string;
  severity: string;
  ip: string | null;
  domain: string | null;
  detail: Record<string, unknown>;
  notified_at: string | null;
  acked_at: string | null;
  acked_by: string | null;
}

/** Waits until GET /admin/security/events shows an event `match` accepts (events travel asynchronously). */
export async function waitForSecurityEvent(
  rt: Runtime,
  query: Record<string, string>,
  match: (e: SecurityEventBody) => boolean,
  timeoutMs = 15_000,
): Promise<SecurityEventBody> {
  const admin = await rt.adminToken();
  const found = await eventually(
    async () =>
      (await rt.http.get('/admin/security/events', { auth: admin, query: { limit: 1000, ...query } })).json<{ items: SecurityEventBody[] }>().items.find(match),
    (e) => e !== undefined,
    { timeoutMs },
  );
  if (!found) throw new Error(`no security event ${JSON.stringify(query)} matching ${match.toString()} within ${timeoutMs} ms`);
  return found;
}

export interface AuditBody {
  ts: string;
  domain: string | null;
  actor: string;
  actor_email: string | null;
  action: string;
  target_type: string;
  target_id: string;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
}

export async function waitForAudit(rt: Runtime, domain: string | undefined, match: (e: AuditBody) => boolean, timeoutMs = 15_000): Promise<AuditBody> {
  const admin = await rt.adminToken();
  const found = await eventually(
    async () =>
      (await rt.http.get('/admin/audit', { auth: admin, query: { limit: 1000, ...(domain ? { domain } : {}) } }))
        .json<{ items: AuditBody[] }>()
        .items.find(match),
    (e) => e !== undefined,
    { timeoutMs },
  );
  if (!found) throw new Error(`no audit entry for ${domain ?? 'any customer'} matching ${match.toString()} within ${timeoutMs} ms`);
  return found;
}

/** The sandbox's public tokens by bundle, as /docs shows them (each in its `<code class="token">`). */
export async function sandboxTokensFromDocs(rt: Runtime): Promise<Record<string, string>> {
  const docs = (await rt.http.get('/docs')).text;
  return Object.fromEntries([...docs.matchAll(/<code class="token" data-bundle="([a-z-]+)">([^<]+)</g)].map((m) => [m[1], m[2]]));
}
