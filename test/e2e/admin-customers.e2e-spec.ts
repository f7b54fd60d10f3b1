import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { letters, randomContent, randomDomain, randomLogName } from './support/factories.js';
import { expectProblem } from './support/problems.js';
import { createBuild, createDevice, productLine } from './support/firmware.js';
import { startRuntime, type CustomerFixture, type Runtime } from './support/runtime.js';
import { RFC3339 } from './support/formats.js';

/** The administrator endpoints (docs/api.md "Members and administrators' operations"): /admin/customers (create, list with counts, get with members). */

interface CustomerView {
  domain: string;
  name: string;
  status: string;
  cors_origins: string[];
  is_sandbox: boolean;
  created_at: string;
  updated_at: string;
  counts?: Record<string, number>;
}

describe('admin: customers', () => {
  let rt: Runtime;
  let admin: string;
  let customer: CustomerFixture;

  beforeAll(async () => {
    rt = await startRuntime();
    admin = await rt.adminToken();
    customer = await rt.newCustomer();
  });
  afterAll(async () => {
    await rt?.stop();
  });

  const list = async (): Promise<CustomerView[]> => {
    const reply = await rt.http.get('/admin/customers', { auth: admin });
    expect(reply.status).toBe(200);
    return reply.json().items;
  };

  describe('POST /admin/customers', () => {
    it('answers 201 with the customer and invites owner_email as its first owner', async () => {
      const domain = randomDomain();
      const name = `Acme ${letters(6)}`;
      const ownerEmail = `boss-${letters(6)}@${domain}`;
      const since = Date.now();
      const reply = await rt.http.post('/admin/customers', {
        auth: admin,
        json: { domain, name, owner_email: ownerEmail, cors_origins: ['https://console.example.com'] },
      });
      expect(reply.status).toBe(201);
      expect(reply.json()).toEqual({
        customer: {
          domain,
          name,
          status: 'active',
          cors_origins: ['https://console.example.com'],
          is_sandbox: false,
          created_at: expect.stringMatching(RFC3339),
          updated_at: expect.stringMatching(RFC3339),
        },
      });
      const invitation = await rt.mailbox.waitForMailTo(ownerEmail, { since });
      expect(`${invitation.subject}\n${invitation.text}`).toContain(domain);
      // The invited owner can log in.
      const session = await rt.loginAs(ownerEmail);
      expect(session.identity).toMatchObject({ customer: domain, role: 'owner', email: ownerEmail });
    });

    it('works with the domain alone', async () => {
      const domain = randomDomain();
      const reply = await rt.http.post('/admin/customers', { auth: admin, json: { domain } });
      expect(reply.status).toBe(201);
      expect(reply.json().customer).toMatchObject({ domain, status: 'active', is_sandbox: false, cors_origins: [] });
    });

    it('answers 409 for a domain that exists', async () => {
      expectProblem(await rt.http.post('/admin/customers', { auth: admin, json: { domain: customer.domain } }), 409, { code: 'customer_exists' });
      expectProblem(await rt.http.post('/admin/customers', { auth: admin, json: { domain: rt.operatorDomain } }), 409);
    });

    it.each([['Upper-Case.test'], ['under_score.test'], ['-leading.test'], ['trailing-.test'], ['two..dots.test'], [`${'a'.repeat(64)}.test`], ['']])(
      'answers 400 for the invalid domain %j',
      async (domain) => {
        expectProblem(await rt.http.post('/admin/customers', { auth: admin, json: { domain } }), 400, {
          detail: 'domain must be a lower-case DNS name',
          code: 'invalid_request',
        });
      },
    );

    it('answers 400 for a missing domain, an unknown property or a bad owner_email', async () => {
      expectProblem(await rt.http.post('/admin/customers', { auth: admin, json: { name: 'x' } }), 400, 'body property domain is required');
      expectProblem(
        await rt.http.post('/admin/customers', { auth: admin, json: { domain: randomDomain(), color: 'red' } }),
        400,
        'unknown body property color',
      );
      expectProblem(
        await rt.http.post('/admin/customers', { auth: admin, json: { domain: randomDomain(), owner_email: 'nope' } }),
        400,
        'email must be a valid email address',
      );
    });

    it('answers 403 missing scope admin for non-administrators (token or session)', async () => {
      const domain = randomDomain();
      expectProblem(await rt.http.post('/admin/customers', { auth: customer.full, json: { domain } }), 403, 'missing scope admin');
      expectProblem(await rt.http.post('/admin/customers', { auth: customer.owner, json: { domain } }), 403, 'missing scope admin');
      expectProblem(await rt.http.get('/admin/customers', { auth: customer.full }), 403, 'missing scope admin');
      expectProblem(await rt.http.get(`/admin/customers/${customer.domain}`, { auth: customer.owner }), 403, 'missing scope admin');
      expect((await list()).map((c) => c.domain)).not.toContain(domain);
    });

    it('answers 401 without credentials', async () => {
      expectProblem(await rt.http.post('/admin/customers', { json: { domain: randomDomain() } }), 401);
    });
  });

  describe('GET /admin/customers', () => {
    it('lists every customer with counts; logdata count and stored_bytes follow uploads', async () => {
      const before = (await list()).find((c) => c.domain === customer.domain)!;
      expect(before).toBeDefined();
      expect(before.counts).toEqual({ firmware: 0, logdata: 0, devices: 0, tags: 0, active_tokens: 3, stored_bytes: 0 });

      for (const size of [100, 250]) {
        expect((await rt.http.put(`/logdata/${randomLogName()}`, { auth: customer.uploader, body: randomContent(size) })).status).toBe(200);
      }
      const after = (await list()).find((c) => c.domain === customer.domain)!;
      expect(after.counts).toEqual({ firmware: 0, logdata: 2, devices: 0, tags: 0, active_tokens: 3, stored_bytes: 350 });
      expect(after).toMatchObject({ domain: customer.domain, name: customer.name, status: 'active', is_sandbox: false, cors_origins: [] });
    });

    it('counts builds, devices and distinct tags from the apps that own them', async () => {
      const other = await rt.newCustomer();
      const line = productLine();
      await createBuild(rt, other.full, line, '1.0.0', { tags: ['beta', 'eu'] });
      await createBuild(rt, other.full, line, '1.1.0', { tags: ['beta'] });
      await createDevice(rt, other.full, `dev-${letters(6)}`, ['beta', 'lab']);
      const counts = (await list()).find((c) => c.domain === other.domain)!.counts;
      expect(counts).toMatchObject({ firmware: 2, devices: 1, tags: 3 });
    });

    it('stored_bytes counts firmware binaries and notes as well as log files', async () => {
      const other = await rt.newCustomer();
      const storedBytes = async (): Promise<number> => (await list()).find((c) => c.domain === other.domain)!.counts!.stored_bytes;
      expect(await storedBytes()).toBe(0);
      const notes = 'Fixed the bootloader.\nÄnderungen: keine.';
      const build = await createBuild(rt, other.full, productLine(), '2.0.0', { notes });
      const withBuild = build.binary.length + Buffer.byteLength(notes, 'utf8');
      expect(build.size_bytes).toBe(build.binary.length);
      expect(await storedBytes()).toBe(withBuild);
      await createBuild(rt, other.full, productLine(), '2.0.1');
      const withoutNotes = (await storedBytes()) - withBuild;
      expect(withoutNotes).toBeGreaterThan(0);
      expect((await rt.http.put(`/logdata/${randomLogName()}`, { auth: other.uploader, body: randomContent(123) })).status).toBe(200);
      expect(await storedBytes()).toBe(withBuild + withoutNotes + 123);
    });

    it('counts only active tokens', async () => {
      const extra = await rt.createToken(customer.owner, 'read-only');
      expect((await list()).find((c) => c.domain === customer.domain)!.counts!.active_tokens).toBe(4);
      expect((await rt.http.delete(`/tokens/${extra.id}`, { auth: customer.owner })).status).toBe(204);
      expect((await list()).find((c) => c.domain === customer.domain)!.counts!.active_tokens).toBe(3);
    });

    it("includes the operator's and the sandbox customer", async () => {
      const items = await list();
      expect(items.find((c) => c.domain === rt.operatorDomain)).toMatchObject({ status: 'active', is_sandbox: false });
      expect(items.find((c) => c.domain === rt.sandboxDomain)).toMatchObject({ status: 'active', is_sandbox: true });
      for (const item of items) {
        expect(Object.keys(item.counts!).sort()).toEqual(['active_tokens', 'devices', 'firmware', 'logdata', 'stored_bytes', 'tags']);
      }
    });
  });

  describe('GET /admin/customers/{domain}', () => {
    it('answers the customer and its members, the owner among them', async () => {
      const reply = await rt.http.get(`/admin/customers/${customer.domain}`, { auth: admin });
      expect(reply.status).toBe(200);
      const body = reply.json();
      expect(body.customer).toEqual({
        domain: customer.domain,
        name: customer.name,
        status: 'active',
        cors_origins: [],
        is_sandbox: false,
        created_at: expect.stringMatching(RFC3339),
        updated_at: expect.stringMatching(RFC3339),
      });
      expect(body.members).toEqual([
        {
          email: customer.ownerEmail,
          domain: customer.domain,
          role: 'owner',
          disabled: false,
          created_at: expect.stringMatching(RFC3339),
          last_login_at: expect.stringMatching(RFC3339), // the owner logged in
          user_disabled: false,
        },
      ]);
    });

    it("lists the operator's administrator as owner of the operator customer", async () => {
      const reply = await rt.http.get(`/admin/customers/${rt.operatorDomain}`, { auth: admin });
      expect(reply.status).toBe(200);
      expect(reply.json().members).toEqual(
        expect.arrayContaining([expect.objectContaining({ email: rt.adminEmail, role: 'owner', domain: rt.operatorDomain })]),
      );
    });

    it('answers 404 for an unknown domain', async () => {
      expectProblem(await rt.http.get(`/admin/customers/${randomDomain()}`, { auth: admin }), 404);
    });
  });
});
