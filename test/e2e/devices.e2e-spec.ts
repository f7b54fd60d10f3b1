import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AWKWARD_HWIDS, DeviceApi, type DeviceRecord, HWID_RULE, rawRequest, segment, TAG_RULE } from './support/devices.js';
import { expectProblem } from './support/problems.js';
import { waitForAudit } from './support/auth.js';
import { eventually, letters, sleep } from './support/factories.js';
import { startRuntime, type CustomerFixture, type Runtime } from './support/runtime.js';

/** docs/api.md "Devices": records, tags on devices and their scopes (everything but list filters and import). */

const RFC3339_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function publicKeys(): { pem: string; jwk: string; privatePem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    pem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    jwk: JSON.stringify(publicKey.export({ format: 'jwk' })),
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

describe('devices', () => {
  let rt: Runtime;
  let a: CustomerFixture;
  let b: CustomerFixture;
  /** Customer a with the full token (every :read and :write scope). */
  let api: DeviceApi;

  beforeAll(async () => {
    rt = await startRuntime();
    a = await rt.newCustomer();
    b = await rt.newCustomer();
    api = new DeviceApi(rt.baseUrl, a.full);
  });
  afterAll(async () => {
    await rt?.stop();
  });

  const hwid = (prefix = 'dev') => `${prefix}-${letters(10)}`;

  describe('create and get', () => {
    it('POST /devices answers 201 with the record and a Location that GET answers', async () => {
      const id = hwid();
      const { pem } = publicKeys();
      const reply = await api.create({ hwid: id, tags: ['beta', 'Alpha', 'beta'], attributes: { site: 'Oslo', rack: 7, tags: ['not', 'tags'] }, keys: [pem] });
      expect(reply.status).toBe(201);
      expect(reply.contentType).toMatch(/^application\/json\b/);
      const device = reply.json<DeviceRecord>();
      expect(device).toEqual({
        hwid: id,
        status: 'active',
        tags: ['Alpha', 'beta'],
        attributes: { site: 'Oslo', rack: 7, tags: ['not', 'tags'] },
        keys: [pem],
        has_keys: true,
        created_at: expect.stringMatching(RFC3339_MS),
        updated_at: device.created_at,
        last_seen_at: null,
        last_fw_version: null,
      });
      expect(reply.header('location')).toBe(`${rt.baseUrl}/devices/${encodeURIComponent(id)}`);
      const got = await api.get(id);
      expect(got.status).toBe(200);
      expect(got.json()).toEqual(device);
      const viaLocation = await rt.http.get(reply.header('location')!, { auth: a.readOnly });
      expect(viaLocation.json()).toEqual(device);
    });

    it('a device without tags, attributes or keys gets empty ones; the same HW id again is 409, in another customer it is fine', async () => {
      const id = hwid();
      expect(await api.created({ hwid: id })).toMatchObject({ hwid: id, tags: [], attributes: {}, keys: [], has_keys: false, status: 'active' });
      expectProblem(await api.create({ hwid: id, tags: ['x'] }), 409, { detail: 'device already exists', code: 'device_conflict' });
      expect((await api.get(id)).json<DeviceRecord>().tags).toEqual([]);
      expect((await api.as(b.full).create({ hwid: id })).status).toBe(201);
    });

    it('refuses bodies that break a rule with 400 naming it', async () => {
      expectProblem(await api.create({ hwid: 'has space' }), 400, HWID_RULE);
      expectProblem(await api.create({ hwid: '' }), 400, HWID_RULE);
      expectProblem(await api.create({ hwid: 'x'.repeat(65) }), 400, HWID_RULE);
      expectProblem(await api.create({ hwid: 'caf\u00e9' }), 400, HWID_RULE);
      expectProblem(await api.create({ hwid: 'tab\there' }), 400, HWID_RULE);
      expectProblem(await api.create({}), 400, 'body property hwid is required');
      expectProblem(await api.create({ hwid: hwid(), status: 'withdrawn' }), 400, 'unknown body property status');
      expectProblem(await api.create({ hwid: hwid(), tags: ['-x'] }), 400, TAG_RULE);
      expectProblem(
        await api.create({ hwid: hwid(), tags: Array.from({ length: 65 }, (_, i) => `t${i}`) }),
        400,
        'tags must be an array of at most 64 tag names',
      );
      expectProblem(await api.create({ hwid: hwid(), attributes: ['x'] }), 400, 'attributes must be a JSON object of at most 8192 bytes');
      expectProblem(await api.create({ hwid: hwid(), attributes: { big: 'x'.repeat(8200) } }), 400, {
        detail: 'attributes must be a JSON object of at most 8192 bytes',
        code: 'device_attributes_invalid',
      });
      expectProblem(await api.create({ hwid: hwid(), keys: ['not a key'] }), 400, {
        detail: 'keys[0] is not a public key (PEM or JWK JSON text)',
        code: 'device_key_not_public',
      });
      expectProblem(await api.create({ hwid: hwid(), keys: [publicKeys().privatePem] }), 400, {
        detail: 'keys[0] is not a public key (PEM or JWK JSON text)',
        code: 'device_key_not_public',
      });
      expectProblem(await api.create({ hwid: hwid(), keys: 'x' }), 400, /^keys must be at most 8 public keys/);
      expectProblem(
        await rawRequest(rt.baseUrl, 'POST', '/devices', { auth: a.full, body: '{"hwid":', contentType: 'application/json' }),
        400,
        'body is not valid JSON',
      );
    });
  });

  describe('update', () => {
    it('PATCH replaces attributes and/or keys, moves updated_at, and a no-op changes nothing', async () => {
      const id = hwid();
      const { pem, jwk } = publicKeys();
      const created = await api.created({ hwid: id, tags: ['t'], attributes: { a: 1 } });
      await sleep(5);
      const same = await api.update(id, { attributes: { a: 1 } });
      expect(same.status).toBe(200);
      expect(same.json()).toEqual(created);
      const withKeys = (await api.update(id, { keys: [pem, jwk] })).json<DeviceRecord>();
      expect(withKeys).toMatchObject({ attributes: { a: 1 }, keys: [pem, jwk], has_keys: true, tags: ['t'], created_at: created.created_at });
      expect(withKeys.updated_at > created.updated_at).toBe(true);
      const replaced = (await api.update(id, { attributes: { b: { c: [1, 2] } }, keys: [] })).json<DeviceRecord>();
      expect(replaced).toMatchObject({ attributes: { b: { c: [1, 2] } }, keys: [], has_keys: false, tags: ['t'] });
      expect((await api.update(id, {})).json()).toEqual(replaced);
    });

    it('PATCH refuses tags, status and broken values with 400, and an unknown device with 404', async () => {
      const id = hwid();
      await api.created({ hwid: id });
      expectProblem(await api.update(id, { tags: ['x'] }), 400, 'unknown body property tags');
      expectProblem(await api.update(id, { status: 'withdrawn' }), 400, 'unknown body property status');
      expectProblem(await api.update(id, { attributes: null }), 400, 'attributes must be a JSON object of at most 8192 bytes');
      expectProblem(await api.update(id, { keys: Array.from({ length: 9 }, () => publicKeys().pem) }), 400, /^keys must be at most 8 public keys/);
      expectProblem(await api.update(hwid('nobody'), { attributes: {} }), 404, { detail: 'device not found', code: 'device_not_found' });
    });
  });

  describe('withdraw and reactivate', () => {
    it('a withdrawn device keeps its data, is still listed and readable, and can be reactivated; both are idempotent', async () => {
      const id = hwid();
      const { pem } = publicKeys();
      const created = await api.created({ hwid: id, tags: ['keep-me'], attributes: { serial: 42 }, keys: [pem] });
      const withdrawn = await api.withdraw(id);
      expect(withdrawn.status).toBe(200);
      const record = withdrawn.json<DeviceRecord>();
      expect(record).toEqual({ ...created, status: 'withdrawn', updated_at: expect.stringMatching(RFC3339_MS) });
      expect((await api.withdraw(id)).json()).toEqual(record);
      expect((await api.get(id)).json()).toEqual(record);
      expect((await api.tags(id)).json()).toEqual({ tags: ['keep-me'] });
      expect((await api.list({ status: 'withdrawn', q: id })).json().items).toEqual([record]);
      // tags and attributes of a withdrawn device can still change
      expect((await api.addTag(id, 'more')).status).toBe(204);
      expect((await api.update(id, { attributes: { serial: 43 } })).json()).toMatchObject({
        status: 'withdrawn',
        attributes: { serial: 43 },
        tags: ['keep-me', 'more'],
      });
      const active = await api.reactivate(id);
      expect(active.status).toBe(200);
      expect(active.json()).toMatchObject({
        hwid: id,
        status: 'active',
        tags: ['keep-me', 'more'],
        attributes: { serial: 43 },
        keys: [pem],
        created_at: created.created_at,
      });
      expect((await api.reactivate(id)).json<DeviceRecord>().status).toBe('active');
      expect((await api.list({ status: 'active', q: id })).json().items.map((d: DeviceRecord) => d.hwid)).toEqual([id]);
    });

    it('answers 404 for an unknown device, and devices are never deleted (no DELETE route)', async () => {
      expectProblem(await api.withdraw(hwid('nobody')), 404, { detail: 'device not found', code: 'device_not_found' });
      expectProblem(await api.reactivate(hwid('nobody')), 404, { detail: 'device not found', code: 'device_not_found' });
      const id = hwid();
      await api.created({ hwid: id });
      const del = await rt.http.delete(`/devices/${id}`, { auth: a.full });
      expect(del.status).toBe(405);
      expect(del.header('allow')).toBe('GET, PATCH');
      expect((await api.get(id)).status).toBe(200);
    });
  });

  describe('tags on devices', () => {
    it('GET, PUT (replace), PUT tag (add) and DELETE tag (remove), the last two idempotent 204s', async () => {
      const id = hwid();
      await api.created({ hwid: id });
      expect((await api.tags(id)).json()).toEqual({ tags: [] });
      const put = await api.putTags(id, { tags: ['zeta', 'Alpha', 'beta', 'zeta'] });
      expect(put.status).toBe(200);
      expect(put.json()).toEqual({ tags: ['Alpha', 'beta', 'zeta'] });
      for (let i = 0; i < 2; i++) {
        const add = await api.addTag(id, 'gamma');
        expect(add.status).toBe(204);
        expect(add.body.length).toBe(0);
      }
      expect((await api.tags(id)).json()).toEqual({ tags: ['Alpha', 'beta', 'gamma', 'zeta'] });
      for (let i = 0; i < 2; i++) expect((await api.removeTag(id, 'beta')).status).toBe(204);
      expect((await api.removeTag(id, 'never-there')).status).toBe(204);
      expect((await api.tags(id)).json()).toEqual({ tags: ['Alpha', 'gamma', 'zeta'] });
      expect((await api.get(id)).json<DeviceRecord>().tags).toEqual(['Alpha', 'gamma', 'zeta']);
      expect((await api.putTags(id, { tags: [] })).json()).toEqual({ tags: [] });
      // tags are case-sensitive
      await api.addTag(id, 'Case');
      await api.addTag(id, 'case');
      expect((await api.tags(id)).json()).toEqual({ tags: ['Case', 'case'] });
    });

    it('refuses broken tags with 400, too many with 400, an unknown device with 404', async () => {
      const id = hwid();
      await api.created({ hwid: id });
      expectProblem(await api.putTags(id, { tags: ['ok', 'not ok'] }), 400, TAG_RULE);
      expectProblem(await api.putTags(id, {}), 400, 'body property tags is required');
      expectProblem(await api.putTags(id, { tags: 'x' }), 400, 'tags must be an array of at most 64 tag names');
      expectProblem(await api.putTags(id, { tags: Array.from({ length: 65 }, (_, i) => `t${i}`) }), 400, 'tags must be an array of at most 64 tag names');
      expectProblem(await api.addTag(id, { raw: 'a%2Fb' }), 400, TAG_RULE);
      expectProblem(await api.addTag(id, '-lead'), 400, TAG_RULE);
      expectProblem(await api.addTag(id, 'x'.repeat(65)), 400, TAG_RULE);
      expectProblem(await api.removeTag(id, { raw: '%20' }), 400, TAG_RULE);
      await api.putTags(id, { tags: Array.from({ length: 64 }, (_, i) => `t${i}`) });
      expectProblem(await api.addTag(id, 'one-more'), 400, { detail: 'a device has at most 64 tags', code: 'device_tags_too_many' });
      expect((await api.addTag(id, 't5')).status).toBe(204); // already there: no change, no limit
      const nobody = hwid('nobody');
      expectProblem(await api.tags(nobody), 404, { detail: 'device not found', code: 'device_not_found' });
      expectProblem(await api.putTags(nobody, { tags: ['x'] }), 404, { detail: 'device not found', code: 'device_not_found' });
      expectProblem(await api.addTag(nobody, 'x'), 404, { detail: 'device not found', code: 'device_not_found' });
      expectProblem(await api.removeTag(nobody, 'x'), 404, { detail: 'device not found', code: 'device_not_found' });
    });
  });

  describe('HW ids in paths', () => {
    it('every route works for HW ids with reserved and unusual characters, percent-encoded (/ ? # % included), case-sensitive', async () => {
      for (const id of AWKWARD_HWIDS) {
        const created = await api.create({ hwid: id });
        expect({ id, status: created.status }).toEqual({ id, status: 201 });
        expect(created.header('location')).toBe(`${rt.baseUrl}/devices/${encodeURIComponent(id)}`);
        const routes = [
          ['get', await api.get(id), 200],
          ['patch', await api.update(id, { attributes: { id } }), 200],
          ['put tags', await api.putTags(id, { tags: ['a', 'b'] }), 200],
          ['add tag', await api.addTag(id, 'c'), 204],
          ['remove tag', await api.removeTag(id, 'a'), 204],
          ['tags', await api.tags(id), 200],
          ['withdraw', await api.withdraw(id), 200],
          ['reactivate', await api.reactivate(id), 200],
        ] as const;
        for (const [route, reply, status] of routes) expect({ id, route, status: reply.status }).toEqual({ id, route, status });
        expect((await api.tags(id)).json()).toEqual({ tags: ['b', 'c'] });
        expect((await api.get(id)).json()).toMatchObject({ hwid: id, attributes: { id }, status: 'active', tags: ['b', 'c'] });
      }
      // case-sensitive: Case and case are two devices
      expect((await api.get('Case')).json<DeviceRecord>().hwid).toBe('Case');
      expect((await api.get('case')).json<DeviceRecord>().hwid).toBe('case');
      // an encoding of an unreserved character is the same HW id
      expect((await api.get({ raw: '%43ase' })).json<DeviceRecord>().hwid).toBe('Case');
      // GET /devices/import is the device `import`, POST /devices/import the bulk import
      expect((await api.get({ raw: 'import' })).json<DeviceRecord>().hwid).toBe('import');
      expect((await api.get({ raw: '..' })).json<DeviceRecord>().hwid).toBe('..');
      expect((await api.get({ raw: '%2E' })).json<DeviceRecord>().hwid).toBe('.');
    });

    it('a path HW id outside the rule is a 400 naming the rule on every route', async () => {
      const bad = [{ raw: 'a%20b' }, { raw: '%7F' }, { raw: 'caf%C3%A9' }, { raw: '%09' }, { raw: 'x'.repeat(65) }, { raw: '' }];
      for (const id of bad) {
        const replies = [
          await api.get(id),
          await api.update(id, { attributes: {} }),
          await api.withdraw(id),
          await api.reactivate(id),
          await api.tags(id),
          await api.putTags(id, { tags: [] }),
          await api.addTag(id, 'x'),
          await api.removeTag(id, 'x'),
        ];
        for (const reply of replies) expectProblem(reply, 400, HWID_RULE);
      }
      expectProblem(await api.get({ raw: '%E0%A4%A' }), 400, 'path is not valid percent-encoding');
    });
  });

  describe('scopes and tenants', () => {
    it('reads need devices:read, device writes devices:write, tag writes tags:write (403 missing scope)', async () => {
      const id = hwid();
      await api.created({ hwid: id, tags: ['x'] });
      const readOnly = api.as(a.readOnly); // devices:read, no :write
      expect((await readOnly.get(id)).status).toBe(200);
      expect((await readOnly.tags(id)).status).toBe(200);
      expect((await readOnly.list()).status).toBe(200);
      expectProblem(await readOnly.create({ hwid: hwid() }), 403, 'missing scope devices:write');
      expectProblem(await readOnly.update(id, { attributes: {} }), 403, 'missing scope devices:write');
      expectProblem(await readOnly.withdraw(id), 403, 'missing scope devices:write');
      expectProblem(await readOnly.reactivate(id), 403, 'missing scope devices:write');
      expectProblem(await readOnly.importCsv('hwid\nx\n'), 403, 'missing scope devices:write');
      expectProblem(await readOnly.putTags(id, { tags: [] }), 403, 'missing scope tags:write');
      expectProblem(await readOnly.addTag(id, 'y'), 403, 'missing scope tags:write');
      expectProblem(await readOnly.removeTag(id, 'x'), 403, 'missing scope tags:write');
      const uploader = api.as(a.uploader); // read-only plus fw:write and logdata:write
      expectProblem(await uploader.create({ hwid: hwid() }), 403, 'missing scope devices:write');
      expectProblem(await uploader.addTag(id, 'y'), 403, 'missing scope tags:write');
      expect((await api.get(id)).json<DeviceRecord>()).toMatchObject({ status: 'active', tags: ['x'] });
      const anonymous = api.as(undefined);
      for (const reply of [await anonymous.list(), await anonymous.get(id), await anonymous.create({ hwid: hwid() }), await anonymous.addTag(id, 'y')]) {
        expect(reply.status).toBe(401);
        expect(reply.header('www-authenticate')).toBe('Bearer realm="service"');
      }
    });

    it("one customer never sees or changes another's devices (404), whatever the HW id", async () => {
      const id = hwid();
      await api.created({ hwid: id, tags: ['mine'] });
      const other = api.as(b.full);
      expectProblem(await other.get(id), 404, { detail: 'device not found', code: 'device_not_found' });
      expectProblem(await other.update(id, { attributes: {} }), 404, { detail: 'device not found', code: 'device_not_found' });
      expectProblem(await other.withdraw(id), 404, { detail: 'device not found', code: 'device_not_found' });
      expectProblem(await other.tags(id), 404, { detail: 'device not found', code: 'device_not_found' });
      expectProblem(await other.addTag(id, 'theirs'), 404, { detail: 'device not found', code: 'device_not_found' });
      expect((await other.list({ q: id })).json().items).toEqual([]);
      expect((await other.list({ tag: 'mine' })).json().items).toEqual([]);
      expectProblem(await api.as(b.full, a.domain).get(id), 404, 'customer not found');
      expect((await api.get(id)).json<DeviceRecord>().tags).toEqual(['mine']);
    });

    it('an administrator acts on any customer with customer=<domain>', async () => {
      const admin = await rt.adminToken();
      const asAdmin = api.as(admin, a.domain);
      const id = hwid('admin');
      expect((await asAdmin.create({ hwid: id, tags: ['by-admin'] })).status).toBe(201);
      expect((await api.get(id)).json<DeviceRecord>().tags).toEqual(['by-admin']);
      expect((await asAdmin.list({ q: id })).json().items.map((d: DeviceRecord) => d.hwid)).toEqual([id]);
      expect((await asAdmin.withdraw(id)).json<DeviceRecord>().status).toBe('withdrawn');
      expectProblem(await api.as(admin, `nobody-${letters(8)}.test`).get(id), 404, 'customer not found');
    });
  });

  it('audits every change with before and after (one entry per import), administrators as admin:', async () => {
    const id = hwid('audited');
    const actor = `token:${a.tokens.full.id}`;
    const created = await api.created({ hwid: id, tags: ['one'] });
    const updated = (await api.update(id, { attributes: { n: 1 } })).json<DeviceRecord>();
    const withdrawn = (await api.withdraw(id)).json<DeviceRecord>();
    await api.reactivate(id);
    await api.putTags(id, { tags: ['two', 'one'] });
    await api.addTag(id, 'three');
    await api.removeTag(id, 'one');
    const p = `${letters(6)}-`;
    await api.imported(api.importCsv(`hwid,tags\n${p}1,x\n${p}2,y\nbad id,z\n`));
    const find = (action: string, target = id) => waitForAudit(rt, a.domain, (e) => e.action === action && e.target_id === target);
    expect(await find('device.create')).toMatchObject({ domain: a.domain, actor, target_type: 'device', before: {}, after: created }); // the admin app stores an absent before as {}
    expect(await find('device.update')).toMatchObject({ actor, before: { attributes: {} }, after: { attributes: { n: 1 }, updated_at: updated.updated_at } });
    expect(await find('device.withdraw')).toMatchObject({ before: { status: 'active' }, after: withdrawn });
    expect(await find('device.reactivate')).toMatchObject({ before: { status: 'withdrawn' }, after: { status: 'active' } });
    expect(await find('device.tags.replace')).toMatchObject({ before: { tags: ['one'] }, after: { tags: ['one', 'two'] } });
    expect(await find('device.tags.add')).toMatchObject({ before: { tags: ['one', 'two'] }, after: { tags: ['one', 'three', 'two'] } });
    expect(await find('device.tags.remove')).toMatchObject({ before: { tags: ['one', 'three', 'two'] }, after: { tags: ['three', 'two'] } });
    const imported = await waitForAudit(rt, a.domain, (e) => e.action === 'device.import' && (e.after as { created?: number } | null)?.created === 2);
    expect(imported).toMatchObject({
      actor,
      target_type: 'device_import',
      before: {},
      after: { format: 'csv', rows: 3, created: 2, updated: 0, unchanged: 0, error_count: 1 },
    });
    const admin = await rt.adminToken();
    const byAdmin = hwid('by-admin');
    await api.as(admin, a.domain).created({ hwid: byAdmin });
    expect((await find('device.create', byAdmin)).actor).toMatch(/^admin:/);
  });

  it('update checks naming a device set last_seen_at and last_fw_version (batched, within seconds), nothing else', async () => {
    const ids = [hwid('seen'), `${hwid('seen')}/a?b#c%d`];
    const before = await Promise.all(ids.map((id) => api.created({ hwid: id, tags: ['t'] })));
    const started = Date.now();
    for (const [i, id] of ids.entries()) {
      for (const version of ['1.0.0', `1.${i + 1}.0`]) {
        const check = await rawRequest(rt.baseUrl, 'GET', `/firmware/${a.domain}/hw/1/fw/${version}/${segment(id)}`);
        expect(check.status).toBe(200);
      }
    }
    for (const [i, id] of ids.entries()) {
      const seen = await eventually(
        async () => (await api.get(id)).json<DeviceRecord>(),
        (d) => d.last_fw_version === `1.${i + 1}.0`,
        { timeoutMs: 20_000, intervalMs: 250 },
      );
      expect(seen).toEqual({ ...before[i], last_seen_at: expect.stringMatching(RFC3339_MS), last_fw_version: `1.${i + 1}.0` });
      expect(Date.parse(seen.last_seen_at!)).toBeGreaterThanOrEqual(started - 1000);
    }
  });

  it('is described in /openapi.json under the Devices tag with its scopes', async () => {
    const doc = (await rt.http.get('/openapi.json')).json<{
      paths: Record<string, Record<string, { tags: string[]; 'x-scope'?: string; requestBody?: { content: Record<string, unknown> } }>>;
    }>();
    const operations = [
      ['/devices', 'get', 'devices:read'],
      ['/devices', 'post', 'devices:write'],
      ['/devices/import', 'post', 'devices:write'],
      ['/devices/{hwid}', 'get', 'devices:read'],
      ['/devices/{hwid}', 'patch', 'devices:write'],
      ['/devices/{hwid}/withdraw', 'post', 'devices:write'],
      ['/devices/{hwid}/reactivate', 'post', 'devices:write'],
      ['/devices/{hwid}/tags', 'get', 'devices:read'],
      ['/devices/{hwid}/tags', 'put', 'tags:write'],
      ['/devices/{hwid}/tags/{tag}', 'put', 'tags:write'],
      ['/devices/{hwid}/tags/{tag}', 'delete', 'tags:write'],
    ] as const;
    for (const [path, method, scope] of operations)
      expect({ path, method, ...doc.paths[path]?.[method] }).toMatchObject({ tags: ['Devices'], 'x-scope': scope });
    expect(Object.keys(doc.paths['/devices/import'].post.requestBody!.content).sort()).toEqual(['application/json', 'text/csv']);
  });
});
