import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually, letters } from './support/factories.js';
import { clientAddress, createBuild, createDevice, type FirmwareBuild, productLine, updateCheckPath, type UpdateItem } from './support/firmware.js';
import { startRuntime, type CustomerFixture, type Runtime } from './support/runtime.js';

/** docs/api.md "Tags API": counts over builds and devices, rename with merge, delete everywhere. */

interface TagCount {
  tag: string;
  firmware: number;
  devices: number;
}

describe('tags API', () => {
  let rt: Runtime;
  let c: CustomerFixture;

  const counts = async (customer = c) => {
    const reply = await rt.http.get('/tags', { auth: customer.readOnly });
    expect(reply.status).toBe(200);
    return reply.json<{ items: TagCount[] }>().items;
  };
  const buildTags = async (id: string) => (await rt.http.get(`/firmware/${id}`, { auth: c.readOnly })).json<FirmwareBuild>().tags;
  const deviceTags = async (hwid: string) =>
    (await rt.http.get(`/devices/${encodeURIComponent(hwid)}/tags`, { auth: c.readOnly })).json<{ tags: string[] }>().tags;

  beforeAll(async () => {
    rt = await startRuntime();
    c = await rt.newCustomer();
  });
  afterAll(async () => {
    await rt?.stop();
  });

  it('GET /tags counts builds and devices per tag, sorted by tag; another customer sees its own', async () => {
    const line = productLine();
    await createBuild(rt, c.uploader, line, '1.0', { tags: ['beta', 'lab'] });
    await createBuild(rt, c.uploader, line, '1.1', { tags: ['beta'] });
    await createDevice(rt, c.full, 'count-1', ['beta', 'field']);
    await createDevice(rt, c.full, 'count-2', ['field']);
    expect(await counts()).toEqual([
      { tag: 'beta', firmware: 2, devices: 1 },
      { tag: 'field', firmware: 0, devices: 2 },
      { tag: 'lab', firmware: 1, devices: 0 },
    ]);
    const other = await rt.newCustomer();
    expect(await counts(other)).toEqual([]);
  });

  it('rename applies to every build and device and merges onto an existing tag (200 with the new counts)', async () => {
    const line = productLine();
    const from = `old-${letters(6)}`;
    const to = `new-${letters(6)}`;
    const both = await createBuild(rt, c.uploader, line, '2.0', { tags: [from, to] });
    const onlyOld = await createBuild(rt, c.uploader, line, '2.1', { tags: [from, 'keep'] });
    await createDevice(rt, c.full, `ren-${from}`, [from]);
    await createDevice(rt, c.full, `ren-${to}`, [to, from]);
    const etag = (await rt.http.get(`/firmware/${onlyOld.id}`, { auth: c.readOnly })).header('etag');

    const reply = await rt.http.post(`/tags/${from}/rename`, { auth: c.full, json: { to } });
    expect(reply.status).toBe(200);
    expect(reply.json()).toEqual({ tag: to, firmware: 2, devices: 2, pending: false });
    expect(await buildTags(both.id)).toEqual([to]);
    expect(await buildTags(onlyOld.id)).toEqual(['keep', to]);
    expect(await deviceTags(`ren-${from}`)).toEqual([to]);
    expect(await deviceTags(`ren-${to}`)).toEqual([to]);
    const tags = await counts();
    expect(tags.find((t) => t.tag === from)).toBeUndefined();
    expect(tags.find((t) => t.tag === to)).toEqual({ tag: to, firmware: 2, devices: 2 });
    // the renamed build changed: its ETag too
    expect((await rt.http.get(`/firmware/${onlyOld.id}`, { auth: c.readOnly })).header('etag')).not.toBe(etag);
    // renaming onto itself changes nothing
    expect((await rt.http.post(`/tags/${to}/rename`, { auth: c.full, json: { to } })).json()).toEqual({ tag: to, firmware: 2, devices: 2, pending: false });
  });

  it('the update check follows a rename at once (builds and devices)', async () => {
    const line = productLine();
    const tag = `t-${letters(6)}`;
    await createBuild(rt, c.uploader, line, '3.0', { tags: [tag] });
    const hwid = `upd-${letters(6)}`;
    await createDevice(rt, c.full, hwid, [tag]);
    const offered = async () =>
      (await rt.http.get(updateCheckPath(c.domain, line, '1', hwid), { localAddress: clientAddress() })).json<UpdateItem[]>().map((i) => i.fw_version);
    expect(await offered()).toEqual(['3.0']);
    expect((await rt.http.post(`/tags/${tag}/rename`, { auth: c.full, json: { to: `${tag}-2` } })).status).toBe(200);
    expect(await eventually(offered, (v) => v.length === 1)).toEqual(['3.0']);
    expect((await rt.http.delete(`/tags/${tag}-2`, { auth: c.full })).status).toBe(204);
    expect(await eventually(offered, (v) => v.length === 0)).toEqual([]);
  });

  it('delete removes the tag from every build and device (204)', async () => {
    const line = productLine();
    const tag = `del-${letters(6)}`;
    const build = await createBuild(rt, c.uploader, line, '4.0', { tags: [tag, 'stays'] });
    await createDevice(rt, c.full, `del-${tag}`, [tag, 'stays']);
    const reply = await rt.http.delete(`/tags/${tag}`, { auth: c.full });
    expect(reply.status).toBe(204);
    expect(reply.body.length).toBe(0);
    expect(await buildTags(build.id)).toEqual(['stays']);
    expect(await deviceTags(`del-${tag}`)).toEqual(['stays']);
    expect((await counts()).find((t) => t.tag === tag)).toBeUndefined();
    // idempotent
    expect((await rt.http.delete(`/tags/${tag}`, { auth: c.full })).status).toBe(204);
  });

  it('scopes and validation: tags:read to list, tags:write to change; bad tag names are 400', async () => {
    expect((await rt.http.get('/tags')).status).toBe(401);
    expect((await rt.http.post('/tags/x/rename', { auth: c.readOnly, json: { to: 'y' } })).status).toBe(403);
    expect((await rt.http.delete('/tags/x', { auth: c.uploader })).json().detail).toBe('missing scope tags:write');
    expect((await rt.http.post('/tags/-x/rename', { auth: c.full, json: { to: 'y' } })).status).toBe(400);
    expect((await rt.http.post('/tags/x/rename', { auth: c.full, json: { to: 'not ok' } })).status).toBe(400);
    expect((await rt.http.post('/tags/x/rename', { auth: c.full, json: { to: 'y', also: 1 } })).status).toBe(400);
    expect((await rt.http.post('/tags/x/rename', { auth: c.full, json: {} })).status).toBe(400);
    expect((await rt.http.delete('/tags/-x', { auth: c.full })).status).toBe(400);
  });

  it('renames and deletes are in the audit log', async () => {
    const tag = `aud-${letters(6)}`;
    await rt.http.post(`/tags/${tag}/rename`, { auth: c.full, json: { to: `${tag}-b` } });
    const admin = await rt.adminToken();
    const items = await eventually(
      async () => (await rt.http.get('/admin/audit', { auth: admin, query: { domain: c.domain } })).json<{ items: Record<string, unknown>[] }>().items,
      (list) => list.some((e) => e.action === 'tag.rename' && e.target_id === tag),
    );
    expect(items.find((e) => e.action === 'tag.rename' && e.target_id === tag)).toMatchObject({
      before: { tag },
      after: { tag: `${tag}-b` },
      actor: `token:${c.tokens.full.id}`,
    });
  });
});
