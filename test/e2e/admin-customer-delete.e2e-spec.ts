import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DownloadLinkSigner } from '../../libs/infra/src/downloads/download-links.js';
import { waitForAudit } from './support/auth.js';
import { letters, randomContent, randomLogName } from './support/factories.js';
import type { HttpReply } from './support/http.js';
import { expectProblem } from './support/problems.js';
import { createBuild, createDevice, productLine } from './support/firmware.js';
import { startRuntime, type CustomerFixture, type Runtime } from './support/runtime.js';

/** DELETE /admin/customers/{domain}?confirm=<domain> (docs/api.md "Deleting a customer"). */

interface StoredObject {
  key: string;
  size: number;
  sha256: string;
}

describe('admin: deleting a customer', () => {
  let rt: Runtime;
  let admin: string;
  let signer: DownloadLinkSigner;

  beforeAll(async () => {
    rt = await startRuntime();
    admin = await rt.adminToken();
    signer = new DownloadLinkSigner(rt.downloadSecret);
  });
  afterAll(async () => {
    await rt?.stop();
  });

  const remove = (domain: string, confirm?: string): Promise<HttpReply> =>
    rt.http.delete(`/admin/customers/${domain}`, { auth: admin, ...(confirm === undefined ? {} : { query: { confirm } }) });

  /** A /dl link straight to a stored object (signed with the service key): served (directly or by a redirect to the object store) while the object exists. */
  const linkTo = (object: StoredObject): string =>
    `/dl/${signer.sign({ key: object.key, sizeBytes: object.size, sha256: object.sha256, contentType: 'application/octet-stream', lastModified: new Date().toISOString() } as never)}`;

  /** Every stored file of the customer (white box: the apps' rows name them). */
  const objectsOf = async (customerId: string): Promise<StoredObject[]> => [
    ...(await rt.query<StoredObject>(`SELECT object_key AS key, size_bytes::int AS size, sha256 FROM firmware.build WHERE customer_id = $1`, [customerId])),
    ...(await rt.query<StoredObject>(
      `SELECT notes_object_key AS key, notes_size_bytes::int AS size, notes_sha256 AS sha256 FROM firmware.build WHERE customer_id = $1 AND notes_object_key IS NOT NULL`,
      [customerId],
    )),
    ...(await rt.query<StoredObject>(`SELECT object_key AS key, size_bytes::int AS size, sha256 FROM logdata.log_file WHERE customer_id = $1`, [customerId])),
  ];

  /** Rows the customer has in every app's schema (white box). */
  const rowsOf = async (customerId: string): Promise<Record<string, number>> => {
    const counts: Record<string, number> = {};
    for (const table of [
      'firmware.build',
      'firmware.build_tag',
      'registry.device',
      'registry.device_tag',
      'logdata.log_file',
      'identity.api_tokens',
      'identity.memberships',
      'identity.sessions',
      'identity.customers',
    ]) {
      const column = table === 'identity.customers' ? 'id' : 'customer_id';
      const [row] = await rt.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`, [customerId]);
      counts[table] = Number(row.n);
    }
    return counts;
  };

  const customerIdOf = async (domain: string): Promise<string> => {
    const [row] = await rt.query<{ id: string }>(`SELECT id FROM identity.customers WHERE domain = $1`, [domain]);
    return row.id;
  };

  /** A customer with builds (one with notes), tagged devices, log files, tokens and a second member. */
  const populated = async (): Promise<{ customer: CustomerFixture; id: string; memberEmail: string; multiEmail: string; other: CustomerFixture }> => {
    const customer = await rt.newCustomer();
    const other = await rt.newCustomer();
    const line = productLine();
    await createBuild(rt, customer.full, line, '1.0.0', { notes: 'Release notes.', tags: ['beta'] });
    await createBuild(rt, customer.full, line, '1.1.0', { tags: ['eu'] });
    await createDevice(rt, customer.full, `dev-${letters(8)}`, ['beta', 'lab']);
    for (const size of [100, 2000]) {
      expect((await rt.http.put(`/logdata/${randomLogName()}`, { auth: customer.uploader, body: randomContent(size) })).status).toBe(200);
    }
    const memberEmail = `member-${letters(8)}@example.com`;
    expect((await rt.http.post('/members', { auth: admin, query: { customer: customer.domain }, json: { email: memberEmail, role: 'viewer' } })).status).toBe(
      201,
    );
    // A person in two customers stays a person of the other one.
    const multiEmail = other.ownerEmail;
    expect((await rt.http.post('/members', { auth: admin, query: { customer: customer.domain }, json: { email: multiEmail, role: 'editor' } })).status).toBe(
      201,
    );
    return { customer, id: await customerIdOf(customer.domain), memberEmail, multiEmail, other };
  };

  it('removes the customer and all its data in every app; its credentials fail at once; the domain can be opened again, empty', async () => {
    const { customer, id, memberEmail, multiEmail, other } = await populated();
    const objects = await objectsOf(id);
    expect(objects).toHaveLength(5); // two binaries, one notes file, two log files
    for (const object of objects) expect((await rt.http.follow(`${rt.baseUrl}${linkTo(object)}`)).reply.status).toBe(200);
    const before = await rowsOf(id);
    for (const table of [
      'firmware.build',
      'firmware.build_tag',
      'registry.device',
      'registry.device_tag',
      'logdata.log_file',
      'identity.api_tokens',
      'identity.memberships',
    ]) {
      expect({ table, n: before[table] }).toEqual({ table, n: expect.any(Number) });
      expect(before[table]).toBeGreaterThan(0);
    }
    // Warm the gateway's caches with the customer's credentials.
    expect((await rt.http.get('/firmware', { auth: customer.readOnly })).status).toBe(200);
    expect((await rt.http.get('/auth/me', { auth: customer.owner })).status).toBe(200);

    const reply = await remove(customer.domain, customer.domain);
    expect(reply.status).toBe(204);
    expect(reply.body.length).toBe(0);

    // Its credentials fail at once.
    expect((await rt.http.get('/firmware', { auth: customer.readOnly })).status).toBe(401);
    expect((await rt.http.get('/logdata', { auth: customer.full })).status).toBe(401);
    expect((await rt.http.get('/auth/me', { auth: customer.owner })).status).toBe(401);
    // The administrator's view: unknown everywhere.
    for (const path of ['/firmware', '/devices', '/logdata', '/tags', '/members', '/tokens']) {
      expectProblem(await rt.http.get(path, { auth: admin, query: { customer: customer.domain } }), 404);
    }
    expectProblem(await rt.http.get(`/admin/customers/${customer.domain}`, { auth: admin }), 404);
    const list = (await rt.http.get('/admin/customers', { auth: admin })).json<{ items: { domain: string }[] }>().items;
    expect(list.map((c) => c.domain)).not.toContain(customer.domain);
    // Update checks for the domain: unknown.
    expect((await rt.http.get(`/firmware/${customer.domain}/x/y/z/1.0.0`)).status).toBe(404);
    // Every row and every stored file is gone.
    expect(Object.values(await rowsOf(id)).every((n) => n === 0)).toBe(true);
    for (const object of objects) expect((await rt.http.follow(`${rt.baseUrl}${linkTo(object)}`)).reply.status).toBe(404);
    // People who belong to no other customer go; the others stay with their other membership.
    const people = await rt.query<{ email: string }>(`SELECT email FROM identity.users WHERE email = ANY($1)`, [
      [customer.ownerEmail, memberEmail, multiEmail],
    ]);
    expect(people.map((p) => p.email)).toEqual([multiEmail]);
    expect((await rt.http.get('/auth/me', { auth: other.owner })).status).toBe(200);
    expect((await rt.http.get('/firmware', { auth: other.readOnly })).status).toBe(200);

    // The audit entry outlives the customer.
    const entry = await waitForAudit(rt, customer.domain, (e) => e.action === 'customer.delete');
    expect(entry).toMatchObject({ target_type: 'customer', target_id: customer.domain, before: { domain: customer.domain, status: 'active' }, after: {} });
    expect(entry.actor).toMatch(/^admin:/);

    // Deleting again: it is gone (404).
    expectProblem(await remove(customer.domain, customer.domain), 404);

    // The domain can be opened again, and it is empty.
    expect((await rt.http.post('/admin/customers', { auth: admin, json: { domain: customer.domain } })).status).toBe(201);
    const again = (await rt.http.get('/admin/customers', { auth: admin })).json<{ items: { domain: string; counts: Record<string, number> }[] }>().items;
    expect(again.find((c) => c.domain === customer.domain)!.counts).toEqual({
      firmware: 0,
      logdata: 0,
      devices: 0,
      tags: 0,
      active_tokens: 0,
      stored_bytes: 0,
    });
    for (const path of ['/firmware', '/devices', '/logdata']) {
      const page = await rt.http.get(path, { auth: admin, query: { customer: customer.domain } });
      expect(page.status).toBe(200);
      expect(page.json<{ items: unknown[] }>().items).toEqual([]);
    }
    const members = (await rt.http.get(`/admin/customers/${customer.domain}`, { auth: admin })).json<{ members: unknown[] }>().members;
    expect(members).toEqual([]);
    // The old tokens stay dead for the new customer of the same domain.
    expect((await rt.http.get('/firmware', { auth: customer.full })).status).toBe(401);
  });

  it('answers 400 without confirm or with a confirm that does not repeat the domain, and deletes nothing', async () => {
    const customer = await rt.newCustomer();
    expectProblem(await remove(customer.domain), 400);
    expectProblem(await remove(customer.domain, `${customer.domain}x`), 400, { detail: 'confirm must repeat the domain', code: 'customer_delete_unconfirmed' });
    expectProblem(await remove(customer.domain, rt.operatorDomain), 400, { detail: 'confirm must repeat the domain', code: 'customer_delete_unconfirmed' });
    expect((await rt.http.get('/firmware', { auth: customer.readOnly })).status).toBe(200);
    expect((await rt.http.get(`/admin/customers/${customer.domain}`, { auth: admin })).status).toBe(200);
  });

  it('refuses the operator and the sandbox customer (400); an unknown domain is 404', async () => {
    expectProblem(await remove(rt.operatorDomain, rt.operatorDomain), 400, {
      detail: 'the operator customer cannot be deleted',
      code: 'operator_customer_undeletable',
    });
    expectProblem(await remove(rt.sandboxDomain, rt.sandboxDomain), 400);
    expect((await rt.http.get(`/admin/customers/${rt.operatorDomain}`, { auth: admin })).status).toBe(200);
    expect((await rt.http.get(`/admin/customers/${rt.sandboxDomain}`, { auth: admin })).status).toBe(200);
    const unknown = `gone-${letters(8)}.test`;
    expectProblem(await remove(unknown, unknown), 404);
  });

  it('is for full administrators only', async () => {
    const customer = await rt.newCustomer();
    expectProblem(await rt.http.delete(`/admin/customers/${customer.domain}`, { auth: customer.full, query: { confirm: customer.domain } }), 403);
    expectProblem(await rt.http.delete(`/admin/customers/${customer.domain}`, { query: { confirm: customer.domain } }), 401);
    expect((await rt.http.get(`/admin/customers/${customer.domain}`, { auth: admin })).status).toBe(200);
  });
});
