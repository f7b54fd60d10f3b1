import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from './support/factories.js';
import { binaryWith, createBuild, type FirmwareBuild, productLine, uploadFirmware } from './support/firmware.js';
import { startRuntime, type CustomerFixture, type Runtime } from './support/runtime.js';

/** docs/api.md "Builds": list (filters, order, paging), get with ETag, PATCH with If-Match, build tags. */

describe('firmware records', () => {
  let rt: Runtime;
  let c: CustomerFixture;
  let other: CustomerFixture;
  const line = productLine();
  const line2 = productLine();
  let builds: Record<string, FirmwareBuild>;

  const list = async (query: Record<string, string | number | boolean> = {}, token?: string) => {
    const reply = await rt.http.get('/firmware', { auth: token ?? c.readOnly, query });
    expect(reply.status).toBe(200);
    return reply.json<{ items: FirmwareBuild[]; next_offset: number | null }>();
  };
  const ids = (page: { items: FirmwareBuild[] }) => page.items.map((b) => b.id);
  const patch = (id: string, json: unknown, headers: Record<string, string> = {}, token?: string) =>
    rt.http.request('PATCH', `/firmware/${id}`, { auth: token ?? c.uploader, json, headers });

  beforeAll(async () => {
    rt = await startRuntime();
    c = await rt.newCustomer();
    other = await rt.newCustomer();
    // build dates decide the order first, then the version, then the id.
    builds = {
      a: await createBuild(rt, c.uploader, line, '1.0', { buildDate: '2026-01-01T00:00:00Z', general: true }),
      b: await createBuild(rt, c.uploader, line, '1.1-rc1', { buildDate: '2026-02-01T00:00:00Z', tags: ['beta'] }),
      c: await createBuild(rt, c.uploader, line, '1.1', { buildDate: '2026-02-01T00:00:00Z', general: true, tags: ['beta', 'stable'] }),
      d: await createBuild(rt, c.uploader, line, '1.10', { buildDate: '2026-02-01T00:00:00Z', fwType: 'EFI' }),
      e: await createBuild(rt, c.uploader, line2, '2.0', { buildDate: '2026-03-01T00:00:00Z', fwType: 'MFI', tags: ['lab'] }),
    };
    await createBuild(rt, other.uploader, line, '9.9', { general: true });
  });
  afterAll(async () => {
    await rt?.stop();
  });

  describe('list', () => {
    it('sorts by build_date, then version, then id: descending by default, ascending with order=asc', async () => {
      const b = builds;
      expect(ids(await list())).toEqual([b.e.id, b.d.id, b.c.id, b.b.id, b.a.id]);
      expect(ids(await list({ order: 'asc' }))).toEqual([b.a.id, b.b.id, b.c.id, b.d.id, b.e.id]);
      expect(ids(await list({ order: 'desc' }))).toEqual([b.e.id, b.d.id, b.c.id, b.b.id, b.a.id]);
    });

    it('filters: fw_name, hw_name, hw_version, fw_type, tag, status, general', async () => {
      const b = builds;
      expect(ids(await list({ hw_name: line.hw, order: 'asc' }))).toEqual([b.a.id, b.b.id, b.c.id, b.d.id]);
      expect(ids(await list({ hw_version: line2.rev, hw_name: line2.hw }))).toEqual([b.e.id]);
      expect(ids(await list({ fw_name: line2.fw }))).toEqual([b.e.id]);
      expect(ids(await list({ fw_type: 'EFI' }))).toEqual([b.d.id]);
      expect(ids(await list({ fw_type: 'AFI', order: 'asc' }))).toEqual([b.a.id, b.b.id, b.c.id]);
      expect(ids(await list({ tag: 'beta', order: 'asc' }))).toEqual([b.b.id, b.c.id]);
      expect(ids(await list({ tag: 'nothing' }))).toEqual([]);
      expect(ids(await list({ general: true, order: 'asc' }))).toEqual([b.a.id, b.c.id]);
      expect(ids(await list({ general: false, order: 'asc' }))).toEqual([b.b.id, b.d.id, b.e.id]);
      expect(ids(await list({ status: 'active' }))).toHaveLength(5);
      expect(ids(await list({ status: 'withdrawn' }))).toEqual([]);
      expect(ids(await list({ hw_name: line.hw, tag: 'stable', general: true }))).toEqual([b.c.id]);
    });

    it('pages with limit and offset; next_offset is null on the last page', async () => {
      const all = ids(await list({ order: 'asc' }));
      const first = await list({ order: 'asc', limit: 2 });
      expect(ids(first)).toEqual(all.slice(0, 2));
      expect(first.next_offset).toBe(2);
      const second = await list({ order: 'asc', limit: 2, offset: 2 });
      expect(ids(second)).toEqual(all.slice(2, 4));
      expect(second.next_offset).toBe(4);
      const last = await list({ order: 'asc', limit: 2, offset: 4 });
      expect(ids(last)).toEqual(all.slice(4));
      expect(last.next_offset).toBeNull();
      expect((await list({ offset: 10 })).items).toEqual([]);
    });

    it('refuses bad parameters with 400', async () => {
      for (const query of [{ limit: 0 }, { limit: 501 }, { offset: -1 }, { order: 'up' }, { status: 'gone' }, { general: 'maybe' }, { fw_type: 'XFI' }]) {
        const reply = await rt.http.get('/firmware', { auth: c.readOnly, query });
        expect([JSON.stringify(query), reply.status]).toEqual([JSON.stringify(query), 400]);
      }
      expect((await rt.http.get('/firmware', { auth: c.readOnly, query: { limit: 500 } })).status).toBe(200);
    });

    it('needs fw:read and a token; another customer sees only its own builds', async () => {
      expect((await rt.http.get('/firmware')).status).toBe(401);
      const others = await list({}, other.readOnly);
      expect(others.items.map((b) => b.fw_version)).toEqual(['9.9']);
    });
  });

  describe('get and PATCH', () => {
    it('GET answers the record with an ETag; PATCH with that If-Match changes it and answers a new ETag', async () => {
      const build = await createBuild(rt, c.uploader, productLine(), '3.0');
      const get = await rt.http.get(`/firmware/${build.id}`, { auth: c.readOnly });
      expect(get.status).toBe(200);
      const etag = get.header('etag')!;
      expect(etag).toMatch(/^"[^"]+"$/);
      const changed = await patch(build.id, { tag_filter_disabled: true, tags: ['b', 'a', 'a'] }, { 'If-Match': etag });
      expect(changed.status).toBe(200);
      expect(changed.json<FirmwareBuild>()).toMatchObject({ tag_filter_disabled: true, tags: ['a', 'b'], status: 'active' });
      const newEtag = changed.header('etag')!;
      expect(newEtag).not.toBe(etag);
      expect((await rt.http.get(`/firmware/${build.id}`, { auth: c.readOnly })).header('etag')).toBe(newEtag);
      // a stale If-Match: 412, nothing changes
      const stale = await patch(build.id, { status: 'withdrawn' }, { 'If-Match': etag });
      expect(stale.status).toBe(412);
      expect(stale.contentType).toMatch(/^application\/problem\+json/);
      expect(stale.json()).toMatchObject({ code: 'build_etag_mismatch', detail: expect.stringMatching(/^If-Match does not match the current ETag /) });
      expect((await rt.http.get(`/firmware/${build.id}`, { auth: c.readOnly })).json<FirmwareBuild>().status).toBe('active');
      // a list of tags containing the current one, and *, match
      expect((await patch(build.id, { tags: ['a'] }, { 'If-Match': `"nope", ${newEtag}` })).status).toBe(200);
      expect((await patch(build.id, { tags: ['a', 'c'] }, { 'If-Match': '*' })).status).toBe(200);
      // a weak tag never matches If-Match
      const current = (await rt.http.get(`/firmware/${build.id}`, { auth: c.readOnly })).header('etag')!;
      expect((await patch(build.id, { tags: [] }, { 'If-Match': `W/${current}` })).status).toBe(412);
    });

    it('PATCH without If-Match applies; a change that changes nothing keeps the ETag', async () => {
      const build = await createBuild(rt, c.uploader, productLine(), '3.1');
      const first = await patch(build.id, { tags: ['x'] });
      expect(first.status).toBe(200);
      const same = await patch(build.id, { tags: ['x'] });
      expect(same.status).toBe(200);
      expect(same.header('etag')).toBe(first.header('etag'));
      const empty = await patch(build.id, {});
      expect(empty.status).toBe(200);
      expect(empty.header('etag')).toBe(first.header('etag'));
    });

    it('status: withdraw and reactivate; builds are never deleted', async () => {
      const build = await createBuild(rt, c.uploader, productLine(), '3.2');
      const withdrawn = await patch(build.id, { status: 'withdrawn' });
      expect(withdrawn.json<FirmwareBuild>().status).toBe('withdrawn');
      expect(ids(await list({ status: 'withdrawn' }))).toContain(build.id);
      expect((await rt.http.get(`/firmware/${build.id}/binary`, { auth: c.readOnly })).status).toBe(302);
      const active = await patch(build.id, { status: 'active' });
      expect(active.json<FirmwareBuild>().status).toBe('active');
      expect((await rt.http.request('DELETE', `/firmware/${build.id}`, { auth: c.full })).status).toBe(405);
    });

    it('other properties and bad values are 400; fw:write is needed; unknown builds are 404', async () => {
      const build = await createBuild(rt, c.uploader, productLine(), '3.3');
      for (const body of [
        { fw_version: '9' },
        { general_release: true },
        { status: 'deleted' },
        { tags: ['not valid'] },
        { tags: 'a' },
        { tag_filter_disabled: 'yes' },
        [],
      ]) {
        const reply = await patch(build.id, body);
        expect([JSON.stringify(body), reply.status]).toEqual([JSON.stringify(body), 400]);
      }
      expect((await patch(build.id, { fw_version: '9' })).json().detail).toBe('unknown body property fw_version');
      expect((await patch(build.id, { status: 'withdrawn' }, {}, c.readOnly)).status).toBe(403);
      const unknown = await patch('00000000-0000-4000-8000-000000000000', { status: 'withdrawn' });
      expect([unknown.status, unknown.json()]).toMatchObject([404, { detail: 'firmware build not found', code: 'build_not_found' }]);
      expect((await patch(build.id, { status: 'withdrawn' }, {}, other.full)).status).toBe(404);
    });

    it('every change is in the audit log with before and after', async () => {
      const build = await createBuild(rt, c.uploader, productLine(), '3.4');
      await patch(build.id, { status: 'withdrawn', tags: ['audit'] });
      const admin = await rt.adminToken();
      const entry = await eventually(
        async () =>
          (await rt.http.get('/admin/audit', { auth: admin, query: { domain: c.domain, limit: 100 } })).json<{ items: Record<string, unknown>[] }>().items,
        (items) => items.some((e) => e.action === 'firmware.update' && e.target_id === build.id),
      );
      expect(entry.find((e) => e.action === 'firmware.update' && e.target_id === build.id)).toMatchObject({
        domain: c.domain,
        actor: `token:${c.tokens.uploader.id}`,
        target_type: 'firmware',
        before: { status: 'active', tags: [], tag_filter_disabled: false },
        after: { status: 'withdrawn', tags: ['audit'], tag_filter_disabled: false },
      });
      expect(entry.some((e) => e.action === 'firmware.create' && e.target_id === build.id)).toBe(true);
    });
  });

  describe('build tags', () => {
    it('GET, PUT (replace), PUT /{tag} (add, idempotent), DELETE /{tag} (remove, idempotent)', async () => {
      const build = await createBuild(rt, c.uploader, productLine(), '4.0');
      const path = `/firmware/${build.id}/tags`;
      expect((await rt.http.get(path, { auth: c.readOnly })).json()).toEqual({ tags: [] });
      const put = await rt.http.put(path, { auth: c.full, json: { tags: ['zeta', 'alpha', 'alpha'] } });
      expect(put.status).toBe(200);
      expect(put.json()).toEqual({ tags: ['alpha', 'zeta'] });
      for (let i = 0; i < 2; i++) {
        const add = await rt.http.put(`${path}/mid.dle:1`, { auth: c.full });
        expect(add.status).toBe(204);
        expect(add.body.length).toBe(0);
      }
      expect((await rt.http.get(path, { auth: c.readOnly })).json()).toEqual({ tags: ['alpha', 'mid.dle:1', 'zeta'] });
      for (let i = 0; i < 2; i++) expect((await rt.http.delete(`${path}/alpha`, { auth: c.full })).status).toBe(204);
      expect((await rt.http.delete(`${path}/never%20a%20tag`, { auth: c.full })).status).toBe(204);
      expect((await rt.http.get(path, { auth: c.readOnly })).json()).toEqual({ tags: ['mid.dle:1', 'zeta'] });
      expect((await rt.http.get(`/firmware/${build.id}`, { auth: c.readOnly })).json<FirmwareBuild>().tags).toEqual(['mid.dle:1', 'zeta']);
    });

    it('400 for bad tags on PUT, 403 without tags:write, 404 for unknown builds', async () => {
      const build = await createBuild(rt, c.uploader, productLine(), '4.1');
      const path = `/firmware/${build.id}/tags`;
      expect((await rt.http.put(`${path}/-bad`, { auth: c.full })).status).toBe(400);
      expect((await rt.http.put(path, { auth: c.full, json: { tags: ['ok', 'not ok'] } })).status).toBe(400);
      expect((await rt.http.put(path, { auth: c.full, json: {} })).status).toBe(400);
      expect((await rt.http.put(`${path}/x`, { auth: c.uploader })).status).toBe(403);
      expect((await rt.http.put(`${path}/x`, { auth: c.uploader })).json().detail).toBe('missing scope tags:write');
      expect((await rt.http.put('/firmware/00000000-0000-4000-8000-000000000000/tags/x', { auth: c.full })).status).toBe(404);
      expect((await rt.http.get('/firmware/00000000-0000-4000-8000-000000000000/tags', { auth: c.readOnly })).status).toBe(404);
    });

    it('PUT /firmware/{id}/tags/{tag} with a build id is the tag route, not an upload', async () => {
      const build = await createBuild(rt, c.uploader, productLine(), '4.2');
      const reply = await uploadFirmware(rt, c.full, { path: `/firmware/${build.id}/tags/newtag`, firmware: binaryWith(['1.0, 2026-11-20, AFI']) });
      expect(reply.status).toBe(204);
      expect((await rt.http.get(`/firmware/${build.id}/tags`, { auth: c.readOnly })).json()).toEqual({ tags: ['newtag'] });
    });
  });
});
