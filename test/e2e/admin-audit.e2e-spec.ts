import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  type AuditBody,
  customerWithOwner,
  expectProblem,
  expectStatus,
  randomPerson,
  readOnlyAdministrator,
  type SecurityEventBody,
  waitForAudit,
  waitForSecurityEvent,
} from './support/auth.js';
import { letters } from './support/factories.js';
import type { Session } from './support/http.js';
import { startRuntime, type Runtime } from './support/runtime.js';

/**
 * The administrator endpoints GET /admin/audit, GET /admin/security/events, POST
 * /admin/security/events/{id}/ack (docs/api.md "Members and administrators' operations"). Entries
 * come from the identity app as events and are stored by the admin app.
 */

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

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
      expectProblem(await rt.http.post('/admin/security/events/999999999/ack', { auth: admin }), 404);
      expectProblem(await rt.http.post('/admin/security/events/abc/ack', { auth: admin }), 400);
    });
  });
});
