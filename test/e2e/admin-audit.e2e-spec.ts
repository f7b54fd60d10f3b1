import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  type AuditBody,
  customerWithOwner,
  expectStatus,
  randomPerson,
  readOnlyAdministrator,
  type SecurityEventBody,
  waitForAudit,
  waitForSecurityEvent,
} from './support/auth.js';
import { expectProblem } from './support/problems.js';
import { OPERATOR_ADMIN_EMAIL } from './support/constants.js';
import { letters } from './support/factories.js';
import type { Session } from './support/http.js';
import { startRuntime, type Runtime } from './support/runtime.js';
import { RFC3339 } from './support/formats.js';

/**
 * The administrator endpoints GET /admin/audit, GET /admin/security/events, POST
 * /admin/security/events/{id}/ack (docs/api.md "Members and administrators' operations"). Entries
 * come from the identity app as events and are stored by the admin app.
 */

describe('admin: audit log and security events', () => {
  let rt: Runtime;
  let admin: string;
  let readOnly: Session;
  let a: Awaited<ReturnType<typeof customerWithOwner>>;

  beforeAll(async () => {
    rt = await startRuntime();
    admin = await rt.adminToken();
    a = await customerWithOwner(rt);
    readOnly = await readOnlyAdministrator(rt, admin);
  });
  afterAll(async () => {
    await rt?.stop();
  });

  describe('GET /admin/audit', () => {
    it('lists changes newest first with before and after, narrowed by domain and limit', async () => {
      const created = await rt.createToken(a.owner, 'read-only', { name: `audited ${letters(6)}` });
      const entry = await waitForAudit(rt, a.domain, (e) => e.action === 'token.create' && e.target_id === created.id);
      expect(entry).toEqual({
        ts: expect.stringMatching(RFC3339),
        domain: a.domain,
        actor: expect.stringMatching(/^user:[0-9a-f-]{36}$/),
        actor_email: a.ownerEmail,
        action: 'token.create',
        target_type: 'token',
        target_id: created.id,
        before: {},
        after: expect.objectContaining({ name: created.name, bundle: 'read-only', scopes: created.scopes }),
      });
      const customerCreate = await waitForAudit(rt, a.domain, (e) => e.action === 'customer.create');
      expect(customerCreate.actor).toMatch(/^admin:/);
      expect(customerCreate.after).toMatchObject({ domain: a.domain, owner_email: a.ownerEmail });

      const items = expectStatus(await rt.http.get('/admin/audit', { auth: admin, query: { domain: a.domain } }), 200).json<{ items: AuditBody[] }>().items;
      expect(items.every((i) => i.domain === a.domain)).toBe(true);
      const times = items.map((i) => Date.parse(i.ts));
      expect([...times].sort((x, y) => y - x)).toEqual(times);
      const one = expectStatus(await rt.http.get('/admin/audit', { auth: admin, query: { limit: 1 } }), 200).json<{ items: AuditBody[] }>().items;
      expect(one).toHaveLength(1);
      expect((await rt.http.get('/admin/audit', { auth: readOnly })).status).toBe(200);
    });

    it.each([[0], [1001], ['x']])('refuses limit=%j with 400', async (limit) => {
      expectProblem(await rt.http.get('/admin/audit', { auth: admin, query: { limit } }), 400, 'limit must be an integer from 1 to 1000');
    });

    it('is for administrators only', async () => {
      expectProblem(await rt.http.get('/admin/audit', { auth: a.owner }), 403, 'missing scope admin');
      expectProblem(await rt.http.get('/admin/audit'), 401);
    });
  });

  describe('paging, every filter, emails, and the customer view GET /audit', () => {
    type AuditPageBody = { items: AuditBody[]; next_offset: number | null; next_cursor: string | null };
    let b: Awaited<ReturnType<typeof customerWithOwner>>;
    let other: Awaited<ReturnType<typeof customerWithOwner>>;
    let adminSession: Session;
    let ownerActor: string;
    let adminActor: string;
    const hwids = Array.from({ length: 7 }, (_, i) => `audit-${letters(6)}-${i}`);
    const adminHwid = `audit-admin-${letters(6)}`;

    const adminPage = async (query: Record<string, string | number>) =>
      expectStatus(await rt.http.get('/admin/audit', { auth: admin, query: { domain: b.domain, ...query } }), 200).json<AuditPageBody>();
    const ownerPage = async (query: Record<string, string | number>, auth: Session | string = b.owner) =>
      expectStatus(await rt.http.get('/audit', { auth, query }), 200).json<AuditPageBody>();
    /** Every page, following next_offset or next_cursor. */
    const everyPage = async (
      list: (query: Record<string, string | number>) => Promise<AuditPageBody>,
      query: Record<string, string | number>,
      by: 'offset' | 'cursor',
    ) => {
      const items: AuditBody[] = [];
      let position: Record<string, string | number> = {};
      for (let pages = 0; pages < 50; pages++) {
        const page = await list({ ...query, ...position });
        items.push(...page.items);
        const next = by === 'offset' ? page.next_offset : page.next_cursor;
        if (next === null) return items;
        position = by === 'offset' ? { offset: next } : { cursor: next };
      }
      throw new Error('more than 50 pages');
    };
    const targets = (items: readonly AuditBody[]) => items.map((item) => item.target_id);

    beforeAll(async () => {
      b = await customerWithOwner(rt);
      other = await customerWithOwner(rt);
      adminSession = await rt.adminSession();
      for (const hwid of hwids) expectStatus(await rt.http.post('/devices', { auth: b.owner, json: { hwid } }), 201);
      expectStatus(await rt.http.post('/devices', { auth: adminSession, query: { customer: b.domain }, json: { hwid: adminHwid } }), 201);
      // Another customer's entries with the same targets: never listed for b.
      expectStatus(await rt.http.post('/devices', { auth: other.owner, json: { hwid: hwids[0] } }), 201);
      expectStatus(await rt.http.post('/devices', { auth: other.owner, json: { hwid: adminHwid } }), 201);
      ownerActor = (await waitForAudit(rt, b.domain, (e) => e.target_id === hwids[6])).actor;
      adminActor = (await waitForAudit(rt, b.domain, (e) => e.target_id === adminHwid)).actor;
      await waitForAudit(rt, other.domain, (e) => e.target_id === adminHwid);
    });

    it('GET /admin/audit pages by offset and by cursor through the same entries, newest first', async () => {
      const all = (await adminPage({ action: 'device.create', limit: 1000 })).items;
      expect(new Set(targets(all))).toEqual(new Set([...hwids, adminHwid]));
      const times = all.map((i) => Date.parse(i.ts));
      expect([...times].sort((x, y) => y - x)).toEqual(times);
      const first = await adminPage({ action: 'device.create', limit: 3 });
      expect(first.items).toHaveLength(3);
      expect(first.next_offset).toBe(3);
      expect(first.next_cursor).toMatch(/^\d+-\d+$/);
      expect(targets(await everyPage(adminPage, { action: 'device.create', limit: 3 }, 'offset'))).toEqual(targets(all));
      expect(targets(await everyPage(adminPage, { action: 'device.create', limit: 3 }, 'cursor'))).toEqual(targets(all));
      const last = await adminPage({ action: 'device.create', limit: 3, offset: 6 });
      expect(last).toMatchObject({ next_offset: null, next_cursor: null });
      expect(last.items).toHaveLength(2);
      // Cursor and offset together: the offset counts from the cursor.
      const skipped = await adminPage({ action: 'device.create', limit: 2, offset: 1, cursor: first.next_cursor! });
      expect(targets(skipped.items)).toEqual(targets(all).slice(4, 6));
    });

    it('GET /admin/audit filters by action, actor, target_type, target_id, from and to', async () => {
      const only = async (query: Record<string, string | number>) => (await adminPage({ limit: 1000, ...query })).items;
      const created = await only({ action: 'device.create' });
      expect(created.every((e) => e.action === 'device.create' && e.domain === b.domain)).toBe(true);
      expect(targets(await only({ actor: ownerActor, action: 'device.create' })).sort()).toEqual([...hwids].sort());
      expect(targets(await only({ actor: adminActor }))).toEqual([adminHwid]);
      expect((await only({ target_type: 'device' })).every((e) => e.target_type === 'device')).toBe(true);
      expect((await only({ target_type: 'customer' })).map((e) => e.action)).toContain('customer.create');
      expect(targets(await only({ target_id: hwids[0] }))).toEqual([hwids[0]]);
      // Without domain the other customer's entry of the same target is there too.
      const everywhere = (await rt.http.get('/admin/audit', { auth: admin, query: { target_id: hwids[0], limit: 1000 } })).json<AuditPageBody>().items;
      expect(everywhere.map((e) => e.domain).sort()).toEqual([b.domain, other.domain].sort());
      const middle = created[3];
      expect(Date.parse(middle.ts)).toBeGreaterThan(0);
      const since = await only({ action: 'device.create', from: middle.ts });
      expect(since.every((e) => e.ts >= middle.ts)).toBe(true);
      expect(targets(since)).toContain(middle.target_id);
      const until = await only({ action: 'device.create', to: middle.ts });
      expect(until.every((e) => e.ts <= middle.ts)).toBe(true);
      expect(targets(until)).toContain(middle.target_id);
      expect(new Set([...targets(since), ...targets(until)])).toEqual(new Set(targets(created)));
      expect(await only({ action: 'device.create', from: '2000-01-01', to: '2000-01-01' })).toEqual([]);
      expect(await only({ action: `none.${letters(6)}` })).toEqual([]);
    });

    it.each([
      ['from=yesterday', { from: 'yesterday' }, 'from must be a date (YYYY-MM-DD) or an RFC 3339 timestamp'],
      ['to=2026-13-45', { to: '2026-13-45' }, { detail: 'to is not a valid date', code: 'range_bound_invalid' }],
      ['from after to', { from: '2026-11-02', to: '2026-11-01' }, { detail: 'from must not be after to', code: 'range_reversed' }],
      ['cursor=abc', { cursor: 'abc' }, 'cursor must be the next_cursor of an earlier page'],
      ['offset=-1', { offset: -1 }, `offset must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}`],
      ['a 129-character action', { action: 'x'.repeat(129) }, undefined],
    ])('refuses %s with 400 on both lists', async (_case, query, message) => {
      expectProblem(await rt.http.get('/admin/audit', { auth: admin, query }), 400, message);
      expectProblem(await rt.http.get('/audit', { auth: b.owner, query }), 400, message);
    });

    it('shows the email of each person who acted', async () => {
      const [byOwner] = (await adminPage({ target_id: hwids[1] })).items;
      expect(byOwner).toMatchObject({ actor: ownerActor, actor_email: b.ownerEmail });
      const [byAdmin] = (await adminPage({ target_id: adminHwid })).items;
      expect(byAdmin.actor).toMatch(/^admin:user:[0-9a-f-]{36}$/);
      expect(byAdmin.actor_email).toBe(OPERATOR_ADMIN_EMAIL);
    });

    it("GET /audit: the owner's customer only, administrators shown as service administrator, paged and filtered", async () => {
      const mine = (await ownerPage({ limit: 1000 })).items;
      expect(mine.length).toBeGreaterThan(hwids.length);
      expect(mine.every((e) => e.domain === b.domain)).toBe(true);
      const created = mine.find((e) => e.action === 'customer.create');
      expect(created).toMatchObject({ actor: 'service administrator', actor_email: null });
      const byAdmin = mine.find((e) => e.target_id === adminHwid);
      expect(byAdmin).toMatchObject({ action: 'device.create', actor: 'service administrator', actor_email: null });
      const adminUserId = adminActor.slice('admin:user:'.length);
      expect(JSON.stringify(mine)).not.toContain(adminUserId);
      expect(JSON.stringify(mine)).not.toContain(OPERATOR_ADMIN_EMAIL);
      expect(mine.find((e) => e.target_id === hwids[2])).toMatchObject({ actor: ownerActor, actor_email: b.ownerEmail });

      const devices = (await ownerPage({ action: 'device.create', limit: 1000 })).items;
      expect(targets(await everyPage((q) => ownerPage(q), { action: 'device.create', limit: 2 }, 'offset'))).toEqual(targets(devices));
      expect(targets(await everyPage((q) => ownerPage(q), { action: 'device.create', limit: 2 }, 'cursor'))).toEqual(targets(devices));
      expect(targets((await ownerPage({ actor: 'service administrator', target_type: 'device' })).items)).toEqual([adminHwid]);
      expect((await ownerPage({ actor: adminActor })).items).toEqual([]);
      expect(targets((await ownerPage({ actor: ownerActor, target_id: hwids[3] })).items)).toEqual([hwids[3]]);
      expect((await ownerPage({ target_type: 'customer' })).items.map((e) => e.action)).toContain('customer.create');
      const middle = devices[3];
      const since = (await ownerPage({ action: 'device.create', from: middle.ts, limit: 1000 })).items;
      const until = (await ownerPage({ action: 'device.create', to: middle.ts, limit: 1000 })).items;
      expect(new Set([...targets(since), ...targets(until)])).toEqual(new Set(targets(devices)));
      expect(since.every((e) => e.ts >= middle.ts) && until.every((e) => e.ts <= middle.ts)).toBe(true);
      // An administrator's own customer without customer=; with it, the customer as its members see it.
      const asAdmin = (await ownerPage({ target_id: adminHwid }, admin)).items;
      expect(asAdmin).toEqual([]);
      const forB = expectStatus(await rt.http.get('/audit', { auth: admin, query: { customer: b.domain, target_id: adminHwid } }), 200).json<AuditPageBody>()
        .items;
      expect(forB).toMatchObject([{ actor: 'service administrator', domain: b.domain }]);
    });

    it("GET /audit never lists another customer's entries", async () => {
      const theirs = (await ownerPage({ limit: 1000 }, other.owner)).items;
      expect(theirs.every((e) => e.domain === other.domain)).toBe(true);
      expect(targets(theirs)).toEqual(expect.arrayContaining([hwids[0], adminHwid]));
      expect(targets((await ownerPage({ target_id: hwids[1] }, other.owner)).items)).toEqual([]);
      expect((await ownerPage({ target_id: hwids[0] }, other.owner)).items.map((e) => e.domain)).toEqual([other.domain]);
      expectProblem(await rt.http.get('/audit', { auth: other.owner, query: { customer: b.domain } }), 404, 'customer not found');
    });

    it('GET /audit is for owners (members:manage); GET /admin/audit stays for administrators', async () => {
      const viewerEmail = randomPerson(b.domain);
      expectStatus(await rt.http.post('/members', { auth: b.owner, json: { email: viewerEmail, role: 'editor' } }), 201);
      const editor = await rt.loginAs(viewerEmail);
      expectProblem(await rt.http.get('/audit', { auth: editor }), 403, 'missing scope members:manage');
      expectProblem(await rt.http.get('/audit'), 401);
      expectProblem(await rt.http.get('/admin/audit', { auth: b.owner }), 403, 'missing scope admin');
    });
  });

  describe('security events', () => {
    let event: SecurityEventBody;

    beforeAll(async () => {
      // A warn event of our own: a code killed by five wrong guesses.
      const email = randomPerson(a.domain);
      expectStatus(await rt.http.post('/members', { auth: a.owner, json: { email, role: 'viewer' } }), 201);
      const since = Date.now();
      await rt.http.post('/auth/login', { json: { email } });
      const code = await rt.mailbox.waitForCode(email, { since });
      for (let i = 1; i <= 5; i++) await rt.http.post('/auth/verify', { json: { email, code: String((Number(code) + i) % 1_000_000).padStart(6, '0') } });
      event = await waitForSecurityEvent(rt, { kind: 'login_code_failures' }, (e) => e.detail.email === email);
    });

    it('are listed with every field, filtered by kind, severity and unacked', async () => {
      expect(event).toEqual({
        id: expect.any(Number),
        ts: expect.stringMatching(RFC3339),
        kind: 'login_code_failures',
        severity: 'warn',
        ip: expect.any(String),
        domain: null,
        detail: expect.any(Object),
        notified_at: null,
        acked_at: null,
        acked_by: null,
      });
      const list = async (query: Record<string, string | number | boolean>) =>
        expectStatus(await rt.http.get('/admin/security/events', { auth: admin, query: { limit: 1000, ...query } }), 200).json<{ items: SecurityEventBody[] }>()
          .items;
      expect((await list({ kind: 'login_code_failures' })).every((e) => e.kind === 'login_code_failures')).toBe(true);
      expect((await list({ severity: 'info' })).every((e) => e.severity === 'info')).toBe(true);
      expect((await list({ severity: 'warn' })).map((e) => e.id)).toContain(event.id);
      expect((await list({ unacked: true })).map((e) => e.id)).toContain(event.id);
      // admin_login events of the administrators' logins are there too.
      expect((await list({ kind: 'admin_login' })).length).toBeGreaterThan(0);
      expect(await list({ kind: `none-${letters(6)}` })).toEqual([]);
      expect((await rt.http.get('/admin/security/events', { auth: readOnly })).status).toBe(200);
      expectProblem(await rt.http.get('/admin/security/events', { auth: admin, query: { severity: 'fatal' } }), 400, 'severity must be info, warn or critical');
      expectProblem(await rt.http.get('/admin/security/events', { auth: admin, query: { limit: 1001 } }), 400, 'limit must be an integer from 1 to 1000');
    });

    it('POST .../ack sets acked_at and acked_by (idempotent); unacked lists no longer show it', async () => {
      expectProblem(await rt.http.post(`/admin/security/events/${event.id}/ack`, { auth: readOnly }), 403, 'missing scope admin');
      expectProblem(await rt.http.post(`/admin/security/events/${event.id}/ack`, { auth: a.owner }), 403, 'missing scope admin');
      const ack = await rt.http.post(`/admin/security/events/${event.id}/ack`, { auth: admin });
      expect(ack.status).toBe(204);
      expect(ack.text).toBe('');
      const acked = await waitForSecurityEvent(rt, {}, (e) => e.id === event.id);
      expect(acked).toMatchObject({ acked_at: expect.stringMatching(RFC3339), acked_by: expect.stringMatching(/^token:/) });
      expect((await rt.http.post(`/admin/security/events/${event.id}/ack`, { auth: await rt.adminSession() })).status).toBe(204);
      expect(await waitForSecurityEvent(rt, {}, (e) => e.id === event.id)).toMatchObject({ acked_at: acked.acked_at, acked_by: acked.acked_by });
      const unacked = (await rt.http.get('/admin/security/events', { auth: admin, query: { unacked: true, limit: 1000 } })).json<{
        items: SecurityEventBody[];
      }>().items;
      expect(unacked.map((e) => e.id)).not.toContain(event.id);
      await waitForAudit(rt, undefined, (e) => e.action === 'security_event.ack' && e.target_id === String(event.id));
    });

    it('ack: 404 for an unknown id, 400 for a malformed one', async () => {
      expectProblem(await rt.http.post('/admin/security/events/999999999/ack', { auth: admin }), 404, {
        detail: 'security event not found',
        code: 'security_event_not_found',
      });
      expectProblem(await rt.http.post('/admin/security/events/abc/ack', { auth: admin }), 400);
    });
  });
});
