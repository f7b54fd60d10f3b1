import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { customerWithOwner, expectStatus, randomPerson, sandboxTokensFromDocs, waitForAudit } from './support/auth.js';
import { expectProblem } from './support/problems.js';
import { eventually, letters, randomLogName } from './support/factories.js';
import type { IdentityBody, Session } from './support/http.js';
import { startRuntime, type Runtime } from './support/runtime.js';
import { RFC3339 } from './support/formats.js';

/**
 * The member API (tag Members, scope members:manage); docs/api.md "Roles, scopes and
 * administrators": role scopes, administrators from the operator customer; removal ends sessions
 * and revokes tokens.
 */

const READ = ['devices:read', 'fw:read', 'logdata:read', 'stats:read', 'tags:read'];
const WRITE = ['devices:write', 'fw:write', 'logdata:write', 'tags:write'];
const sorted = (values: readonly string[]) => [...values].sort();

interface MemberBody {
  email: string;
  role: string;
  disabled: boolean;
  created_at: string;
  last_login_at: string | null;
}

describe('members', () => {
  let rt: Runtime;
  let a: Awaited<ReturnType<typeof customerWithOwner>>;

  beforeAll(async () => {
    rt = await startRuntime();
    a = await customerWithOwner(rt);
  });
  afterAll(async () => {
    await rt?.stop();
  });

  const invite = async (email: string, role: string, by: Session | string = a.owner, customer?: string): Promise<MemberBody> =>
    expectStatus(await rt.http.post('/members', { auth: by, json: { email, role }, query: customer ? { customer } : {} }), 201).json<MemberBody>();
  const members = async (by: Session | string = a.owner): Promise<MemberBody[]> =>
    expectStatus(await rt.http.get('/members', { auth: by }), 200).json<{ items: MemberBody[] }>().items;

  describe('GET and POST /members', () => {
    it('lists the members with their role and state', async () => {
      const items = await members();
      expect(items).toContainEqual({
        email: a.ownerEmail,
        role: 'owner',
        disabled: false,
        created_at: expect.stringMatching(RFC3339),
        last_login_at: expect.stringMatching(RFC3339),
      });
    });

    it('invites by email with a role: 201 member, invitation mail, and the person can log in with that role', async () => {
      const email = randomPerson();
      const since = Date.now();
      const created = await invite(email, 'editor');
      expect(created).toEqual({ email, role: 'editor', disabled: false, created_at: expect.stringMatching(RFC3339), last_login_at: null });
      const mail = await rt.mailbox.waitForMailTo(email, { since });
      expect(`${mail.subject}\n${mail.text}`).toContain(a.domain);
      expect(mail.text).toContain('as an editor');
      expect(mail.text).toContain('/login');
      const session = await rt.loginAs(email);
      expect(session.identity).toMatchObject({ customer: a.domain, role: 'editor', email });
      expect((await members()).map((m) => m.email)).toContain(email);
      const entry = await waitForAudit(rt, a.domain, (e) => e.action === 'member.invite' && e.target_id === email);
      expect(entry).toMatchObject({ before: {}, after: { email, role: 'editor' }, target_type: 'member', actor: expect.stringMatching(/^user:/) });
    });

    it('answers 409 for someone already a member, 400 for a bad address or role', async () => {
      const email = randomPerson();
      await invite(email, 'viewer');
      expectProblem(await rt.http.post('/members', { auth: a.owner, json: { email, role: 'owner' } }), 409, {
        detail: 'already a member of this customer',
        code: 'member_exists',
      });
      expectProblem(await rt.http.post('/members', { auth: a.owner, json: { email: 'nope', role: 'viewer' } }), 400, 'email must be a valid email address');
      expectProblem(
        await rt.http.post('/members', { auth: a.owner, json: { email: randomPerson(), role: 'admin' } }),
        400,
        'role must be one of viewer, editor, owner',
      );
    });
  });

  describe('roles and scopes', () => {
    it('viewer: every :read scope; editor: plus every :write scope; owner: plus members:manage', async () => {
      for (const [role, scopes] of [
        ['viewer', READ],
        ['editor', [...READ, ...WRITE]],
        ['owner', [...READ, ...WRITE, 'members:manage']],
      ] as const) {
        const email = randomPerson();
        await invite(email, role);
        const session = await rt.loginAs(email);
        const me = expectStatus(await rt.http.get('/auth/me', { auth: session }), 200).json<IdentityBody>();
        expect(me).toMatchObject({ role, admin: '' });
        expect(sorted(me.scopes)).toEqual(sorted(scopes));
      }
    });

    it('only members:manage may manage members (403 missing scope), tokens included; administrators may with customer=', async () => {
      const editor = randomPerson();
      await invite(editor, 'editor');
      const session = await rt.loginAs(editor);
      expectProblem(await rt.http.get('/members', { auth: session }), 403, 'missing scope members:manage');
      expectProblem(await rt.http.post('/members', { auth: session, json: { email: randomPerson(), role: 'viewer' } }), 403, 'missing scope members:manage');
      const full = await rt.createToken(a.owner, 'full');
      expectProblem(await rt.http.get('/members', { auth: full.token }), 403, 'missing scope members:manage');
      const admin = await rt.adminToken();
      expect(expectStatus(await rt.http.get('/members', { auth: admin, query: { customer: a.domain } }), 200).json().items.length).toBeGreaterThan(1);
      const byAdmin = randomPerson();
      await invite(byAdmin, 'viewer', admin, a.domain);
      const entry = await waitForAudit(rt, a.domain, (e) => e.action === 'member.invite' && e.target_id === byAdmin);
      expect(entry.actor).toMatch(/^admin:token:/);
      // Another customer's owner cannot reach this one.
      const other = await customerWithOwner(rt);
      expectProblem(await rt.http.get('/members', { auth: other.owner, query: { customer: a.domain } }), 404, {
        detail: 'customer not found',
        code: 'customer_not_found',
      });
    });

    it('members of the operator customer are administrators: viewers read-only, editors and owners full', async () => {
      const admin = await rt.adminToken();
      const viewer = randomPerson();
      const editor = randomPerson();
      await invite(viewer, 'viewer', admin, rt.operatorDomain);
      await invite(editor, 'editor', admin, rt.operatorDomain);

      const readOnly = await rt.loginAs(viewer);
      expect(readOnly.identity).toMatchObject({ admin: 'read', customer: rt.operatorDomain });
      expect((await rt.http.get('/admin/customers', { auth: readOnly })).status).toBe(200);
      expect((await rt.http.get('/admin/users', { auth: readOnly })).status).toBe(200);
      expect((await rt.http.get('/logdata', { auth: readOnly, query: { customer: a.domain } })).status).toBe(200);
      expectProblem(await rt.http.post('/admin/customers', { auth: readOnly, json: { domain: `x-${letters(8)}.test` } }), 403, 'missing scope admin');
      expect((await rt.http.put(`/logdata/${randomLogName()}`, { auth: readOnly, query: { customer: a.domain }, body: 'x', acceptJson: true })).status).toBe(
        403,
      );
      expectProblem(await rt.http.post('/tokens', { auth: readOnly, json: { name: 'x', bundle: 'admin' } }), 403, {
        detail: 'bundle exceeds your scopes',
        code: 'token_bundle_exceeds_scopes',
      });
      expectProblem(await rt.http.get('/members', { auth: readOnly, query: { customer: a.domain } }), 403, 'missing scope members:manage');

      const full = await rt.loginAs(editor);
      expect(full.identity).toMatchObject({ admin: 'full' });
      expect(full.identity.scopes).toContain('admin');
      expectStatus(await rt.http.post('/tokens', { auth: full, json: { name: 'admin', bundle: 'admin' } }), 201);
      expect((await rt.http.get('/members', { auth: full, query: { customer: a.domain } })).status).toBe(200);
    });
  });

  describe('PATCH /members/{email}', () => {
    it("changes the role (200 member); the person's session and tokens follow within 30 s", async () => {
      const email = randomPerson();
      await invite(email, 'editor');
      const session = await rt.loginAs(email);
      const token = await rt.createToken(session, 'full');
      expect((await rt.http.put(`/logdata/${randomLogName()}`, { auth: token.token, body: 'x' })).status).toBe(200);

      const reply = expectStatus(await rt.http.patch(`/members/${email}`, { auth: a.owner, json: { role: 'viewer' } }), 200);
      expect(reply.json()).toMatchObject({ email, role: 'viewer' });
      const me = await eventually(
        async () => (await rt.http.get('/auth/me', { auth: session })).json<IdentityBody>(),
        (m) => m.role === 'viewer' && !m.scopes.includes('fw:write'),
        { timeoutMs: 30_000 },
      );
      expect(sorted(me.scopes)).toEqual(sorted(READ));
      // The token keeps its record but never more than its person: writes stop, reads go on.
      const write = await eventually(
        () => rt.http.put(`/logdata/${randomLogName()}`, { auth: token.token, body: 'x' }),
        (r) => r.status === 403,
        { timeoutMs: 30_000 },
      );
      expect(write.text).toContain('missing scope logdata:write');
      expect((await rt.http.get('/logdata', { auth: token.token })).status).toBe(200);
      expectProblem(await rt.http.post('/tokens', { auth: session, json: { name: 'x', bundle: 'uploader' } }), 403, {
        detail: 'bundle exceeds your scopes',
        code: 'token_bundle_exceeds_scopes',
      });

      const entry = await waitForAudit(rt, a.domain, (e) => e.action === 'member.update' && e.target_id === email);
      expect(entry).toMatchObject({ before: { email, role: 'editor' }, after: { email, role: 'viewer' } });
      expectProblem(await rt.http.patch(`/members/${randomPerson()}`, { auth: a.owner, json: { role: 'viewer' } }), 404, {
        detail: 'member not found',
        code: 'member_not_found',
      });
      expectProblem(await rt.http.patch(`/members/${email}`, { auth: a.owner, json: { role: 'boss' } }), 400);
    });

    it('never leaves a customer without an owner: the last owner cannot be demoted or removed (409)', async () => {
      const c = await customerWithOwner(rt);
      expectProblem(await rt.http.patch(`/members/${c.ownerEmail}`, { auth: c.owner, json: { role: 'editor' } }), 409, {
        detail: /last owner cannot be demoted/,
        code: 'last_owner_demote',
      });
      expectProblem(await rt.http.delete(`/members/${c.ownerEmail}`, { auth: c.owner }), 409, {
        detail: /last owner cannot be removed/,
        code: 'last_owner_remove',
      });
      const second = randomPerson();
      expectStatus(await rt.http.post('/members', { auth: c.owner, json: { email: second, role: 'owner' } }), 201);
      expectStatus(await rt.http.patch(`/members/${c.ownerEmail}`, { auth: c.owner, json: { role: 'editor' } }), 200);
      const admin = await rt.adminToken();
      expectProblem(await rt.http.patch(`/members/${second}`, { auth: admin, query: { customer: c.domain }, json: { role: 'viewer' } }), 409, {
        code: 'last_owner_demote',
      });
      expectProblem(await rt.http.delete(`/members/${second}`, { auth: admin, query: { customer: c.domain } }), 409, { code: 'last_owner_remove' });
    });
  });

  describe('DELETE /members/{email}', () => {
    it("204: the person's sessions on this customer end and the tokens they created for it are revoked; elsewhere nothing changes", async () => {
      const b = await customerWithOwner(rt);
      const email = randomPerson();
      await invite(email, 'editor');
      expectStatus(await rt.http.post('/members', { auth: b.owner, json: { email, role: 'editor' } }), 201);
      // Two sessions: one on a, one on b.
      const onA = await rt.loginAs(email);
      if (onA.identity.customer !== a.domain) expectStatus(await rt.http.post('/auth/switch', { auth: onA, json: { domain: a.domain } }), 200);
      const onB = await rt.loginAs(email);
      if (onB.identity.customer !== b.domain) expectStatus(await rt.http.post('/auth/switch', { auth: onB, json: { domain: b.domain } }), 200);
      const tokenA = await rt.createToken(onA, 'uploader');
      const tokenB = await rt.createToken(onB, 'uploader');

      expect((await rt.http.delete(`/members/${email}`, { auth: a.owner })).status).toBe(204);
      expect((await members()).map((m) => m.email)).not.toContain(email);
      const gone = await eventually(
        () => rt.http.get('/auth/me', { auth: onA }),
        (r) => r.status === 401,
        { timeoutMs: 30_000 },
      );
      expect(gone.status).toBe(401);
      expectProblem(await rt.http.get('/logdata', { auth: tokenA.token }), 401, { detail: 'token revoked, expired or unknown', code: 'token_revoked' });
      const record = (await rt.http.get('/tokens', { auth: a.owner }))
        .json<{ items: Array<{ id: string; status: string }> }>()
        .items.find((t) => t.id === tokenA.id);
      expect(record?.status).toBe('revoked');

      expect((await rt.http.get('/auth/me', { auth: onB })).json<IdentityBody>()).toMatchObject({ customer: b.domain, email });
      expect((await rt.http.get('/logdata', { auth: tokenB.token })).status).toBe(200);

      const removal = await waitForAudit(rt, a.domain, (e) => e.action === 'member.remove' && e.target_id === email);
      expect(removal).toMatchObject({ before: { email, role: 'editor' }, after: {} });
      await waitForAudit(rt, a.domain, (e) => e.action === 'token.revoke' && e.target_id === tokenA.id);
      expectProblem(await rt.http.delete(`/members/${email}`, { auth: a.owner }), 404, { detail: 'member not found', code: 'member_not_found' });
    });
  });

  describe('sandbox', () => {
    it('member management is not available to sandbox credentials', async () => {
      const full = (await sandboxTokensFromDocs(rt)).full;
      expect(full).toBeDefined();
      expectProblem(await rt.http.get('/members', { auth: full! }), 403, { detail: 'not available in the sandbox', code: 'not_in_sandbox' });
    });
  });

  describe('GET /people', () => {
    const people = (ids: readonly string[]) => `/people?${ids.map((id) => `id=${encodeURIComponent(id)}`).join('&')}`;

    it('names the members of the customer acted on by email, any person for administrators, and leaves everyone else out alike', async () => {
      const [c1, c2] = [await rt.newCustomer(), await rt.newCustomer()];
      const [owner1, owner2] = [c1.tokens.full.created_by, c2.tokens.full.created_by];
      expect(owner1).toMatch(/^user:[0-9a-f-]{36}$/);
      const nobody = 'user:00000000-0000-4000-8000-000000000000';
      const asked = people([owner1, owner2, nobody]);
      // A read-only token of c1 learns its own member, nothing about c2's or about nobody.
      expect(expectStatus(await rt.http.get(asked, { auth: c1.readOnly }), 200).json()).toEqual({ items: [{ id: owner1, email: c1.ownerEmail }] });
      expect(expectStatus(await rt.http.get(asked, { auth: c2.owner }), 200).json()).toEqual({ items: [{ id: owner2, email: c2.ownerEmail }] });
      // An administrator acting on c1 names both.
      const admin = await rt.adminToken();
      expect(expectStatus(await rt.http.get(asked, { auth: admin, query: { customer: c1.domain } }), 200).json()).toEqual({
        items: [
          { id: owner1, email: c1.ownerEmail },
          { id: owner2, email: c2.ownerEmail },
        ],
      });
    });

    it('refuses ids that are not user:<uuid>, none or more than 100 (400), and callers without credentials (401)', async () => {
      expectProblem(await rt.http.get(people(['token:6a1f0c2e-4b8d-4e3a-9c71-0d2f5b8e7a14']), { auth: a.owner }), 400, /id must be user:<uuid>/);
      expectProblem(await rt.http.get('/people', { auth: a.owner }), 400);
      const many = Array.from({ length: 101 }, (_, i) => `user:00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
      expectProblem(await rt.http.get(people(many), { auth: a.owner }), 400, /1 to 100 id parameters/);
      expectProblem(await rt.http.get(people(['user:00000000-0000-4000-8000-000000000000'])), 401);
    });
  });
});
