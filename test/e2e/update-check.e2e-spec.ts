import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UPDATE_CHECK_RATE_PER_MINUTE } from './support/constants.js';
import { eventually, letters } from './support/factories.js';
import {
  clientAddress,
  createBuild,
  createDevice,
  freshClientAddress,
  type FirmwareBuild,
  productLine,
  sha256,
  updateCheckPath,
  type UpdateItem,
} from './support/firmware.js';
import type { HttpReply } from './support/http.js';
import { startRuntime, type CustomerFixture, type Runtime } from './support/runtime.js';

/** docs/api.md "The update check (public)": its rules, type/latest, 304, 400/404/429, the update item and tag_filter_disabled. */

describe('update check', () => {
  let rt: Runtime;
  let c: CustomerFixture;
  const line = productLine();
  const builds: Record<string, FirmwareBuild & { binary: Buffer }> = {};
  const reserved = `dev/1?x#y%z&w=v+${letters(4)}`;

  const check = (
    path: string,
    options: { headers?: Record<string, string>; query?: Record<string, string>; acceptJson?: boolean; localAddress?: string } = {},
  ) =>
    rt.http.get(path, {
      localAddress: options.localAddress ?? clientAddress(),
      headers: options.headers,
      query: options.query,
      acceptJson: options.acceptJson,
    });
  const versionsOf = (reply: HttpReply) => {
    expect(reply.status).toBe(200);
    return reply.json<UpdateItem[]>().map((item) => `${item.fw_version}/${item.fw_type}`);
  };
  const offered = async (fwVersion: string, hwid?: string, query: Record<string, string> = {}) =>
    versionsOf(await check(updateCheckPath(c.domain, line, fwVersion, hwid), { query }));

  beforeAll(async () => {
    rt = await startRuntime();
    c = await rt.newCustomer();
    builds.g10 = await createBuild(rt, c.uploader, line, '1.0', { general: true });
    builds.rc = await createBuild(rt, c.uploader, line, '1.1-rc1', { tags: ['beta'] });
    builds.g11 = await createBuild(rt, c.uploader, line, '1.1', { general: true, notes: 'What is new in 1.1' });
    builds.t12 = await createBuild(rt, c.uploader, line, '1.2', { tags: ['beta', 'lab'] });
    builds.tfd = await createBuild(rt, c.uploader, line, '1.3', { tagFilterDisabled: true });
    builds.w14 = await createBuild(rt, c.uploader, line, '1.4', { general: true, tags: ['beta'] });
    builds.efi = await createBuild(rt, c.uploader, line, '1.5', { general: true, fwType: 'EFI' });
    builds.mfi = await createBuild(rt, c.uploader, line, '1.6', { tags: ['lab'], fwType: 'MFI' });
    const withdraw = await rt.http.request('PATCH', `/firmware/${builds.w14.id}`, { auth: c.uploader, json: { status: 'withdrawn' } });
    expect(withdraw.status).toBe(200);
    await createDevice(rt, c.full, 'dev-beta', ['beta']);
    await createDevice(rt, c.full, 'dev-lab', ['lab']);
    await createDevice(rt, c.full, 'dev-none', []);
    await createDevice(rt, c.full, 'dev-gone', ['beta']);
    await createDevice(rt, c.full, reserved, ['beta']);
    expect((await rt.http.post('/devices/dev-gone/withdraw', { auth: c.full })).status).toBe(200);
  });
  afterAll(async () => {
    await rt?.stop();
  });

  describe('rules', () => {
    it('1, 2: without a HW id, the general releases newer than fw_version, oldest first (withdrawn builds never)', async () => {
      expect(await offered('1.0')).toEqual(['1.1/AFI']);
      expect(await offered('0.1')).toEqual(['1.0/AFI', '1.1/AFI']);
      expect(await offered('1.1')).toEqual([]); // equal is not newer
      expect(await offered('1.1-rc1')).toEqual(['1.1/AFI']);
      expect(await offered('9')).toEqual([]);
    });

    it('3: a known, active device also gets the builds sharing a tag with it, and tag_filter_disabled builds whatever its tags', async () => {
      expect(await offered('1.0', 'dev-beta')).toEqual(['1.1-rc1/AFI', '1.1/AFI', '1.2/AFI', '1.3/AFI']);
      expect(await offered('1.0', 'dev-lab')).toEqual(['1.1/AFI', '1.2/AFI', '1.3/AFI']);
      expect(await offered('1.0', 'dev-none')).toEqual(['1.1/AFI', '1.3/AFI']);
      expect(await offered('1.1', 'dev-beta')).toEqual(['1.2/AFI', '1.3/AFI']);
    });

    it('4: an unknown or withdrawn device is treated as if no HW id were given (also for tag_filter_disabled)', async () => {
      expect(await offered('1.0', 'dev-gone')).toEqual(['1.1/AFI']);
      expect(await offered('1.0', `unknown-${letters(8)}`)).toEqual(['1.1/AFI']);
    });

    it('type: AFI by default, all, or a comma list; latest: only the newest', async () => {
      expect(await offered('1.0', 'dev-lab', { type: 'all' })).toEqual(['1.1/AFI', '1.2/AFI', '1.3/AFI', '1.5/EFI', '1.6/MFI']);
      expect(await offered('1.0', 'dev-lab', { type: 'MFI' })).toEqual(['1.6/MFI']);
      expect(await offered('1.0', 'dev-lab', { type: 'EFI,MFI' })).toEqual(['1.5/EFI', '1.6/MFI']);
      expect(await offered('1.0', undefined, { type: 'all' })).toEqual(['1.1/AFI', '1.5/EFI']);
      expect(await offered('1.0', 'dev-beta', { latest: 'true' })).toEqual(['1.3/AFI']);
      expect(await offered('1.0', undefined, { type: 'all', latest: 'true' })).toEqual(['1.5/EFI']);
      expect(await offered('1.0', 'dev-beta', { latest: 'false' })).toHaveLength(4);
    });

    it('HW ids with percent-encoded reserved characters name the device', async () => {
      expect(await offered('1.0', reserved)).toEqual(['1.1-rc1/AFI', '1.1/AFI', '1.2/AFI', '1.3/AFI']);
    });

    it('other product lines and other customers see nothing of these builds', async () => {
      expect(versionsOf(await check(updateCheckPath(c.domain, { ...line, fw: 'other' }, '0')))).toEqual([]);
      const stranger = await rt.newCustomer({ tokens: false });
      expect(versionsOf(await check(updateCheckPath(stranger.domain, line, '0')))).toEqual([]);
    });

    it('device changes are seen: a tag added to a device, a device withdrawn', async () => {
      const hwid = `dev-${letters(8)}`;
      await createDevice(rt, c.full, hwid, []);
      expect(await offered('1.0', hwid)).toEqual(['1.1/AFI', '1.3/AFI']);
      expect((await rt.http.put(`/devices/${hwid}/tags/beta`, { auth: c.full })).status).toBe(204);
      expect(
        await eventually(
          () => offered('1.0', hwid),
          (v) => v.length === 4,
        ),
      ).toEqual(['1.1-rc1/AFI', '1.1/AFI', '1.2/AFI', '1.3/AFI']);
      expect((await rt.http.post(`/devices/${hwid}/withdraw`, { auth: c.full })).status).toBe(200);
      expect(
        await eventually(
          () => offered('1.0', hwid),
          (v) => v.length === 1,
        ),
      ).toEqual(['1.1/AFI']);
    });

    it('build changes are seen at once: withdrawn, reactivated, tagged, made tag_filter_disabled', async () => {
      const extra = productLine();
      const build = await createBuild(rt, c.uploader, extra, '2.0', { tags: ['gamma'] });
      await createDevice(rt, c.full, `dev-gamma-${extra.hw}`, ['gamma']);
      const ask = () => offered2(extra, '1', `dev-gamma-${extra.hw}`);
      const offered2 = async (l: typeof extra, v: string, hwid?: string) => versionsOf(await check(updateCheckPath(c.domain, l, v, hwid)));
      expect(await ask()).toEqual(['2.0/AFI']);
      await rt.http.request('PATCH', `/firmware/${build.id}`, { auth: c.uploader, json: { status: 'withdrawn' } });
      expect(await ask()).toEqual([]);
      await rt.http.request('PATCH', `/firmware/${build.id}`, { auth: c.uploader, json: { status: 'active', tags: [] } });
      expect(await ask()).toEqual([]);
      await rt.http.request('PATCH', `/firmware/${build.id}`, { auth: c.uploader, json: { tag_filter_disabled: true } });
      expect(await ask()).toEqual(['2.0/AFI']);
      expect(await offered2(extra, '1')).toEqual([]);
      await rt.http.request('PATCH', `/firmware/${build.id}`, { auth: c.uploader, json: { tag_filter_disabled: false } });
      expect((await rt.http.put(`/firmware/${build.id}/tags/gamma`, { auth: c.full })).status).toBe(204);
      expect(await ask()).toEqual(['2.0/AFI']);
    });

    it('general_release changed after upload (PUT /firmware/{id}/general-release): offered to every caller from the next check, then only by tags again', async () => {
      const extra = productLine();
      const build = await createBuild(rt, c.uploader, extra, '3.0', { tags: ['delta'] });
      const anyone = async () => versionsOf(await check(updateCheckPath(c.domain, extra, '1')));
      const setting = (body: unknown, headers: Record<string, string> = {}) =>
        rt.http.request('PUT', `/firmware/${build.id}/general-release`, { auth: c.uploader, json: body, headers });
      expect(await anyone()).toEqual([]);
      const made = await setting({ general_release: true });
      expect(made.status).toBe(200);
      expect(made.json<FirmwareBuild>()).toMatchObject({ general_release: true, tags: ['delta'] });
      expect(await anyone()).toEqual(['3.0/AFI']);
      // If-Match as PATCH takes it: a stale ETag changes nothing.
      expect((await setting({ general_release: false }, { 'If-Match': 'W/"0"' })).status).toBe(412);
      const unmade = await setting({ general_release: false }, { 'If-Match': made.header('etag')! });
      expect(unmade.json<FirmwareBuild>()).toMatchObject({ general_release: false });
      expect(await anyone()).toEqual([]);
      expect((await setting({ general_release: 'yes' })).status).toBe(400);
      expect((await setting({ general_release: true, tags: [] })).status).toBe(400);
      expect((await setting({})).status).toBe(400);
      expect((await rt.http.request('PUT', `/firmware/${build.id}/general-release`, { auth: c.readOnly, json: { general_release: true } })).status).toBe(403);
      // PATCH's body is as the contract fixes it: general_release is not one of its properties.
      expect((await rt.http.request('PATCH', `/firmware/${build.id}`, { auth: c.uploader, json: { general_release: true } })).status).toBe(400);
      expect((await rt.http.get(`/firmware/${build.id}`, { auth: c.uploader })).json<FirmwareBuild>().general_release).toBe(false);
    });
  });

  describe('the answer', () => {
    it('update items: the documented fields with absolute 5-minute /dl links; the bytes match the SHA-256', async () => {
      const reply = await check(updateCheckPath(c.domain, line, '1.0', 'dev-beta'));
      expect(reply.status).toBe(200);
      expect(reply.contentType).toMatch(/^application\/json/);
      const items = reply.json<UpdateItem[]>();
      const g11 = items.find((i) => i.id === builds.g11.id)!;
      expect(Object.keys(g11).sort()).toEqual(
        ['build_date', 'fw_name', 'fw_type', 'fw_version', 'general_release', 'hw_name', 'hw_version', 'id', 'notes_url', 'sha256', 'size_bytes', 'url'].sort(),
      );
      expect(g11).toMatchObject({
        id: builds.g11.id,
        fw_name: line.fw,
        fw_version: '1.1',
        fw_type: 'AFI',
        hw_name: line.hw,
        hw_version: line.rev,
        build_date: '2026-11-20T10:00:00.000Z',
        general_release: true,
        size_bytes: builds.g11.binary.length,
        sha256: sha256(builds.g11.binary),
      });
      expect(g11.url).toMatch(new RegExp(`^${rt.baseUrl}/dl/[^/]+$`));
      expect(g11.notes_url).toMatch(new RegExp(`^${rt.baseUrl}/dl/[^/]+$`));
      for (const item of items) {
        const { reply: file } = await rt.http.follow(item.url);
        expect(file.status).toBe(200);
        expect(sha256(file.body)).toBe(item.sha256);
        expect(file.body.length).toBe(item.size_bytes);
      }
      const { reply: notes } = await rt.http.follow(g11.notes_url!);
      expect(notes.text).toBe('What is new in 1.1');
      expect(items.find((i) => i.id === builds.rc.id)!.notes_url).toBeNull();
    });

    it('carries an ETag and Cache-Control max-age; a matching If-None-Match gets 304 with no body', async () => {
      const path = updateCheckPath(c.domain, line, '1.0', 'dev-beta');
      const first = await check(path);
      const etag = first.header('etag')!;
      expect(etag).toMatch(/^W\/"[^"]+"$/);
      expect(first.header('cache-control')).toMatch(/max-age=\d+/);
      const again = await check(path, { headers: { 'If-None-Match': etag } });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
      expect(again.header('etag')).toBe(etag);
      expect(again.header('cache-control')).toBe(first.header('cache-control'));
      expect((await check(path, { headers: { 'If-None-Match': `"other", ${etag}` } })).status).toBe(304);
      expect((await check(path, { headers: { 'If-None-Match': '"other"' } })).status).toBe(200);
      // another answer has another ETag
      const other = await check(updateCheckPath(c.domain, line, '1.0', 'dev-lab'));
      expect(other.header('etag')).not.toBe(etag);
      expect((await check(updateCheckPath(c.domain, line, '1.0', 'dev-lab'), { headers: { 'If-None-Match': etag } })).status).toBe(200);
    });

    it('a change of the builds offered changes the ETag', async () => {
      const l = productLine();
      await createBuild(rt, c.uploader, l, '1.0', { general: true });
      const path = updateCheckPath(c.domain, l, '0.1');
      const before = await check(path);
      expect(before.json<UpdateItem[]>()).toHaveLength(1);
      const added = await createBuild(rt, c.uploader, l, '1.1', { general: true });
      const after = await check(path, { headers: { 'If-None-Match': before.header('etag')! } });
      expect(after.status).toBe(200);
      expect(after.json<UpdateItem[]>().map((i) => i.id)).toContain(added.id);
      expect((await check(path, { headers: { 'If-None-Match': after.header('etag')! } })).status).toBe(304);
    });

    it('is public: no credentials needed, a bad credential is ignored', async () => {
      const reply = await rt.http.get(updateCheckPath(c.domain, line, '1.0'), { auth: 'not-a-token', localAddress: clientAddress() });
      expect(reply.status).toBe(200);
    });

    it('a device named by an update check gets last_seen_at and last_fw_version', async () => {
      const hwid = `seen-${letters(8)}`;
      await createDevice(rt, c.full, hwid, []);
      await check(updateCheckPath(c.domain, line, '1.0.7', hwid));
      const device = await eventually(
        async () =>
          (await rt.http.get(`/devices/${encodeURIComponent(hwid)}`, { auth: c.readOnly })).json<{
            last_seen_at: string | null;
            last_fw_version: string | null;
          }>(),
        (d) => d.last_seen_at !== null,
        { timeoutMs: 20_000, intervalMs: 500 },
      );
      expect(device.last_fw_version).toBe('1.0.7');
    });
  });

  describe('errors', () => {
    it('404 for an unknown customer, as a text line (problem+json with Accept: application/json)', async () => {
      const path = updateCheckPath(`nobody-${letters(10)}.test`, line, '1.0');
      const text = await check(path);
      expect(text.status).toBe(404);
      expect(text.contentType).toMatch(/^text\/plain/);
      expect(text.text.trimEnd()).toBe('404 Not Found: customer not found');
      const json = await check(path, { acceptJson: true });
      expect(json.status).toBe(404);
      expect(json.json()).toMatchObject({ status: 404, title: 'Not Found', detail: 'customer not found', instance: path, code: 'customer_not_found' });
    });

    it('5: a suspended customer answers 404; reactivated, it answers again', async () => {
      const s = await rt.newCustomer();
      const l = productLine();
      await createBuild(rt, s.uploader, l, '1.0', { general: true });
      const path = updateCheckPath(s.domain, l, '0');
      expect((await check(path)).status).toBe(200);
      const admin = await rt.adminToken();
      expect((await rt.http.request('PATCH', `/admin/customers/${s.domain}`, { auth: admin, json: { status: 'suspended' } })).status).toBe(200);
      expect(
        (
          await eventually(
            () => check(path),
            (r) => r.status === 404,
            { timeoutMs: 40_000, intervalMs: 500 },
          )
        ).status,
      ).toBe(404);
      expect((await rt.http.request('PATCH', `/admin/customers/${s.domain}`, { auth: admin, json: { status: 'active' } })).status).toBe(200);
      expect(
        (
          await eventually(
            () => check(path),
            (r) => r.status === 200,
            { timeoutMs: 40_000, intervalMs: 500 },
          )
        ).json(),
      ).toHaveLength(1);
    });

    it('400 for bad parameters', async () => {
      const bad = [
        updateCheckPath(c.domain, line, '1.0').replace('/1.0', '/1%200'),
        updateCheckPath('bad_domain!', line, '1.0'),
        updateCheckPath(c.domain, line, '1.0', 'x'.repeat(65)),
        `${updateCheckPath(c.domain, line, '1.0')}?type=XFI`,
        `${updateCheckPath(c.domain, line, '1.0')}?type=AFI,`,
        `${updateCheckPath(c.domain, line, '1.0')}?latest=maybe`,
      ];
      for (const path of bad) {
        const reply = await check(path);
        expect([path, reply.status]).toEqual([path, 400]);
        expect(reply.contentType).toMatch(/^text\/plain/);
      }
    });

    it(`429 with Retry-After past ${UPDATE_CHECK_RATE_PER_MINUTE} checks per minute from one address; other addresses go on`, async () => {
      const address = freshClientAddress(); // it spends the whole rate: never one of the shared 230 that other suites pick
      const path = updateCheckPath(c.domain, line, '9.9');
      let limited: HttpReply | null = null;
      for (let i = 0; i < UPDATE_CHECK_RATE_PER_MINUTE + 1; i++) {
        const reply = await check(path, { localAddress: address });
        if (reply.status === 429) {
          limited = reply;
          break;
        }
        expect(reply.status).toBe(200);
      }
      expect(limited).not.toBeNull();
      expect(Number(limited!.header('retry-after'))).toBeGreaterThan(0);
      expect(limited!.text).toMatch(/^429 Too Many Requests: /);
      let other = clientAddress();
      while (other === address) other = clientAddress();
      expect((await check(path, { localAddress: other })).status).toBe(200);
    });
  });

  it('the request log counts update checks, uploads and downloads by route pattern (metrics by route)', async () => {
    const metrics = await rt.http.get('/metrics', { auth: rt.metricsToken });
    expect(metrics.status).toBe(200);
    for (const route of [
      'method="GET",route="/firmware/{domain}/{hw_name}/{hw_version}/{fw_name}/{fw_version}",status="200"',
      'method="GET",route="/firmware/{domain}/{hw_name}/{hw_version}/{fw_name}/{fw_version}/{hwid}",status="200"',
      'method="GET",route="/firmware/{domain}/{hw_name}/{hw_version}/{fw_name}/{fw_version}/{hwid}",status="304"',
      'method="PUT",route="/firmware/{hw_name}/{hw_version}/{fw_name}",status="201"',
    ]) {
      expect(metrics.text).toContain(`fds_http_requests_total{${route}}`);
    }
  });
});
