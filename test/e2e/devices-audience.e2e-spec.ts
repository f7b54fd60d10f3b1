import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectProblem } from './support/problems.js';
import { eventually } from './support/factories.js';
import { clientAddress, createBuild, createDevice, type FirmwareBuild, productLine, updateCheckPath, type UpdateItem } from './support/firmware.js';
import { startRuntime, type CustomerFixture, type Runtime } from './support/runtime.js';

/**
 * docs/api.md "Rollouts": a build's audience, a device's update preview and the fleet summary,
 * against what the update check itself answers.
 */

interface AudienceBody {
  build_id: string;
  rule: string;
  unknown_devices: boolean;
  tags: string[];
  devices: number;
  never_checked_in: number;
  items: { hwid: string; last_fw_version: string; last_seen_at: string }[];
  next_offset: number | null;
}

interface PreviewBody {
  hwid: string;
  status: string;
  check: { hw_name: string; hw_version: string; fw_name: string; fw_version: string; type: string; latest: boolean } | null;
  last_seen_at: string | null;
  reason: string | null;
  message: string | null;
  items: UpdateItem[];
}

interface SummaryBody {
  active: number;
  withdrawn: number;
  versions: { fw_version: string; devices: number }[];
  other_versions: number;
  never_reported: number;
  last_seen: Record<string, number>;
}

describe('rollouts: audience, update preview, fleet summary', () => {
  let rt: Runtime;
  let c: CustomerFixture;
  let stranger: CustomerFixture;
  const line = productLine();
  const otherLine = productLine();
  const builds: Record<string, FirmwareBuild> = {};

  const check = (lineOf: typeof line, version: string, hwid?: string, query?: Record<string, string>) =>
    rt.http.get(updateCheckPath(c.domain, lineOf, version, hwid), { localAddress: clientAddress(), query });
  const withoutLinks = (items: UpdateItem[]) => items.map(({ url: _url, notes_url: _notes, ...item }) => item);
  const audience = async (build: FirmwareBuild, query: Record<string, string> = {}, token = c.readOnly) => {
    const reply = await rt.http.get(`/firmware/${build.id}/audience`, { auth: token, query });
    expect(reply.status).toBe(200);
    return reply.json<AudienceBody>();
  };
  const preview = async (hwid: string, query: Record<string, string> = {}) => {
    const reply = await rt.http.get(`/devices/${encodeURIComponent(hwid)}/update-preview`, { auth: c.readOnly, query });
    expect(reply.status).toBe(200);
    return reply.json<PreviewBody>();
  };
  const summary = async (query: Record<string, string> = {}, token = c.readOnly) => {
    const reply = await rt.http.get('/fleet/summary', { auth: token, query });
    expect(reply.status).toBe(200);
    return reply.json<SummaryBody>();
  };

  beforeAll(async () => {
    rt = await startRuntime();
    c = await rt.newCustomer();
    stranger = await rt.newCustomer();
    builds.general = await createBuild(rt, c.uploader, line, '2.0', { general: true });
    builds.tagged = await createBuild(rt, c.uploader, line, '2.1', { tags: ['beta'] });
    builds.tfd = await createBuild(rt, c.uploader, line, '2.2', { tagFilterDisabled: true });
    builds.withdrawn = await createBuild(rt, c.uploader, line, '2.3', { general: true });
    expect((await rt.http.request('PATCH', `/firmware/${builds.withdrawn.id}`, { auth: c.uploader, json: { status: 'withdrawn' } })).status).toBe(200);
    for (const [hwid, tags] of [
      ['d-beta', ['beta']],
      ['d-plain', []],
      ['d-other-line', ['beta']],
      ['d-withdrawn', ['beta']],
      ['d-never', ['beta']],
      ['d-newer', ['beta']],
    ] as const)
      await createDevice(rt, c.full, hwid, [...tags]);
    // The devices check in (their sightings reach the registry in batches, within seconds).
    for (const [lineOf, version, hwid] of [
      [line, '1.0', 'd-beta'],
      [line, '1.0', 'd-plain'],
      [otherLine, '1.0', 'd-other-line'],
      [line, '1.0', 'd-withdrawn'],
      [line, '3.0', 'd-newer'],
    ] as const)
      expect((await check(lineOf, version, hwid)).status).toBe(200);
    for (const hwid of ['d-beta', 'd-plain', 'd-other-line', 'd-withdrawn', 'd-newer'])
      await eventually(
        () => rt.http.get(`/devices/${hwid}`, { auth: c.readOnly }),
        (reply) => reply.status === 200 && reply.json<{ last_seen_at: string | null }>().last_seen_at !== null,
        { timeoutMs: 30_000, intervalMs: 250 },
      );
    expect((await rt.http.post('/devices/d-withdrawn/withdraw', { auth: c.full })).status).toBe(200);
  });
  afterAll(async () => {
    await rt?.stop();
  });

  describe('GET /firmware/{id}/audience', () => {
    it('a general release: every caller, known active devices on its line with an older version counted, and those never seen', async () => {
      const body = await audience(builds.general);
      expect(body).toMatchObject({
        build_id: builds.general.id,
        rule: 'every_caller',
        unknown_devices: true,
        tags: [],
        devices: 2,
        never_checked_in: 1,
        next_offset: null,
      });
      expect(body.items.map((d) => d.hwid)).toEqual(['d-beta', 'd-plain']);
      expect(body.items[0]).toMatchObject({ last_fw_version: '1.0', last_seen_at: expect.any(String) });
    });

    it('a tagged build: known active devices sharing a tag; tag_filter_disabled: every known active device', async () => {
      expect(await audience(builds.tagged)).toMatchObject({
        rule: 'devices_sharing_tag',
        unknown_devices: false,
        tags: ['beta'],
        devices: 1,
        never_checked_in: 1,
      });
      expect((await audience(builds.tagged)).items.map((d) => d.hwid)).toEqual(['d-beta']);
      const tfd = await audience(builds.tfd);
      expect(tfd).toMatchObject({ rule: 'known_devices', unknown_devices: false, devices: 2, never_checked_in: 1 });
      expect(tfd.items.map((d) => d.hwid)).toEqual(['d-beta', 'd-plain']);
    });

    it('a withdrawn build: nobody', async () => {
      expect(await audience(builds.withdrawn)).toEqual({
        build_id: builds.withdrawn.id,
        rule: 'nobody',
        unknown_devices: false,
        tags: [],
        devices: 0,
        never_checked_in: 0,
        items: [],
        next_offset: null,
      });
    });

    it('is what the update check offers: each device listed gets the build, each device not listed does not', async () => {
      for (const build of [builds.general, builds.tagged, builds.tfd]) {
        const listed = (await audience(build)).items.map((d) => d.hwid);
        // A withdrawn device is unknown to the check: a general release reaches it as it reaches anyone (unknown_devices), not as a device.
        for (const hwid of build === builds.general ? ['d-beta', 'd-plain', 'd-newer'] : ['d-beta', 'd-plain', 'd-withdrawn', 'd-newer']) {
          const offered = (await preview(hwid)).items.map((item) => item.id);
          expect({ build: build.fw_version, hwid, offered: offered.includes(build.id) }).toEqual({
            build: build.fw_version,
            hwid,
            offered: listed.includes(hwid),
          });
        }
      }
    });

    it('pages with limit and offset', async () => {
      const first = await audience(builds.general, { limit: '1' });
      expect(first.items.map((d) => d.hwid)).toEqual(['d-beta']);
      expect(first.next_offset).toBe(1);
      const second = await audience(builds.general, { limit: '1', offset: '1' });
      expect(second.items.map((d) => d.hwid)).toEqual(['d-plain']);
      expect(second.next_offset).toBeNull();
      expectProblem(
        await rt.http.get(`/firmware/${builds.general.id}/audience`, { auth: c.readOnly, query: { limit: '0' } }),
        400,
        'limit must be an integer from 1 to 500',
      );
    });

    it("another customer's build is 404; an administrator sees it with customer=", async () => {
      expectProblem(await rt.http.get(`/firmware/${builds.general.id}/audience`, { auth: stranger.full }), 404, {
        detail: 'firmware build not found',
        code: 'build_not_found',
      });
      expectProblem(
        await rt.http.get(`/firmware/${builds.general.id}/audience`, { auth: stranger.full, query: { customer: c.domain } }),
        404,
        'customer not found',
      );
      const admin = await rt.adminToken();
      expect(await audience(builds.general, { customer: c.domain }, admin)).toMatchObject({ devices: 2, never_checked_in: 1 });
      expectProblem(await rt.http.get(`/firmware/${builds.general.id}/audience`), 401);
    });
  });

  describe('GET /fleet/summary', () => {
    it('counts active devices by last reported version and last-seen age; withdrawn apart', async () => {
      expect(await summary()).toMatchObject({
        active: 5,
        withdrawn: 1,
        versions: [
          { fw_version: '1.0', devices: 3 },
          { fw_version: '3.0', devices: 1 },
        ],
        other_versions: 0,
        never_reported: 1,
        last_seen: { never: 1, under_1h: 4, under_24h: 0, under_7d: 0, under_30d: 0, older: 0 },
      });
      expect(await summary({ versions: '1' })).toMatchObject({ versions: [{ fw_version: '1.0', devices: 3 }], other_versions: 1 });
    });

    it('filters by product line and by tag', async () => {
      expect(await summary({ hw_name: line.hw, hw_version: line.rev, fw_name: line.fw })).toMatchObject({ active: 3, withdrawn: 1, never_reported: 0 });
      expect(await summary({ tag: 'beta' })).toMatchObject({ active: 4, withdrawn: 1, never_reported: 1 });
      expectProblem(await rt.http.get('/fleet/summary', { auth: c.readOnly, query: { versions: '101' } }), 400, 'versions must be an integer from 1 to 100');
    });

    it('each bar is a device list: GET /devices filters by reported version, product line and last-seen age with the same counts', async () => {
      const hwids = async (query: Record<string, string>) => {
        const reply = await rt.http.get('/devices', { auth: c.readOnly, query: { status: 'active', ...query } });
        expect(reply.status).toBe(200);
        return reply.json<{ items: { hwid: string }[] }>().items.map((device) => device.hwid);
      };
      expect(await hwids({ fw_version: '1.0' })).toEqual(['d-beta', 'd-other-line', 'd-plain']);
      expect(await hwids({ fw_version: '1.0', hw_name: line.hw, hw_version: line.rev, fw_name: line.fw })).toEqual(['d-beta', 'd-plain']);
      expect(await hwids({ fw_version: '3.0', tag: 'beta' })).toEqual(['d-newer']);
      const counts = (await summary()).last_seen;
      for (const age of ['never', 'under_1h', 'under_24h', 'under_7d', 'under_30d', 'older'])
        expect((await hwids({ last_seen: age })).length).toBe(counts[age]);
      expect(await hwids({ last_seen: 'never' })).toEqual(['d-never']);
      expect(await hwids({ last_seen: 'under_1h', fw_version: '3.0' })).toEqual(['d-newer']);
      expectProblem(
        await rt.http.get('/devices', { auth: c.readOnly, query: { last_seen: 'yesterday' } }),
        400,
        'last_seen must be never, under_1h, under_24h, under_7d, under_30d or older',
      );
      expectProblem(
        await rt.http.get('/devices', { auth: c.readOnly, query: { fw_version: 'a b' } }),
        400,
        'fw_version must be 1 to 64 printable ASCII characters without spaces',
      );
    });

    it("never shows another customer's devices", async () => {
      expect(await summary({}, stranger.full)).toMatchObject({ active: 0, withdrawn: 0, versions: [], never_reported: 0 });
      expect(await summary({ customer: c.domain }, await rt.adminToken())).toMatchObject({ active: 5, withdrawn: 1 });
    });
  });

  describe('GET /devices/{hwid}/update-preview', () => {
    it('answers what the update check answers the device, for the line and version it last reported', async () => {
      const body = await preview('d-beta');
      expect(body).toMatchObject({
        hwid: 'd-beta',
        status: 'active',
        check: { hw_name: line.hw, hw_version: line.rev, fw_name: line.fw, fw_version: '1.0', type: 'AFI', latest: false },
        last_seen_at: expect.any(String),
        reason: null,
        message: null,
      });
      expect(body.items.map((item) => item.fw_version)).toEqual(['2.0', '2.1', '2.2']);
      // The device checks again as it did: the same answer (and the same sighting).
      expect(withoutLinks(body.items)).toEqual(withoutLinks((await check(line, '1.0', 'd-beta')).json<UpdateItem[]>()));
      expect(body.items[0].url).toMatch(/\/dl\//);
    });

    it('a withdrawn device gets what an unknown device gets (general releases only), with the reason', async () => {
      const body = await preview('d-withdrawn');
      expect(body).toMatchObject({ status: 'withdrawn', reason: 'device_withdrawn', message: expect.stringContaining('general releases only') });
      expect(withoutLinks(body.items)).toEqual(withoutLinks((await check(line, '1.0', 'd-withdrawn')).json<UpdateItem[]>()));
      expect(body.items.map((item) => item.fw_version)).toEqual(['2.0']);
    });

    it('a device that never checked in: an empty answer with the reason, or the answer for the line given in the query; no sighting recorded', async () => {
      expect(await preview('d-never')).toMatchObject({ check: null, reason: 'product_line_unknown', items: [], last_seen_at: null });
      const given = await preview('d-never', { hw_name: line.hw, hw_version: line.rev, fw_name: line.fw, fw_version: '1.0' });
      expect(given.reason).toBeNull();
      // d-beta carries the same tags: the check naming it answers what d-never would get.
      expect(withoutLinks(given.items)).toEqual(withoutLinks((await check(line, '1.0', 'd-beta')).json<UpdateItem[]>()));
      // Sightings reach the registry within 5 s: a preview is none.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      expect((await rt.http.get('/devices/d-never', { auth: c.readOnly })).json<{ last_seen_at: string | null }>().last_seen_at).toBeNull();
    });

    it('a device on another product line gets nothing of these builds', async () => {
      expect(await preview('d-other-line')).toMatchObject({ check: { hw_name: otherLine.hw }, reason: null, items: [] });
    });

    it('with type, latest and a version given: the same as the check (last: the check records d-beta at 2.0)', async () => {
      const latest = await preview('d-beta', { latest: 'true', type: 'all', fw_version: '2.0' });
      expect(latest.check).toMatchObject({ fw_version: '2.0', type: 'all', latest: true });
      expect(withoutLinks(latest.items)).toEqual(withoutLinks((await check(line, '2.0', 'd-beta', { latest: 'true', type: 'all' })).json<UpdateItem[]>()));
      expect(latest.items.map((item) => item.fw_version)).toEqual(['2.2']);
    });

    it("an unknown device or another customer's is 404; bad input is 400", async () => {
      expectProblem(await rt.http.get('/devices/nobody-here/update-preview', { auth: c.readOnly }), 404, {
        detail: 'device not found',
        code: 'device_not_found',
      });
      expectProblem(await rt.http.get('/devices/d-beta/update-preview', { auth: stranger.full }), 404, 'device not found');
      expectProblem(
        await rt.http.get('/devices/d-beta/update-preview', { auth: c.readOnly, query: { type: 'XYZ' } }),
        400,
        'type must be all or a comma list of AFI, EFI and MFI',
      );
      expectProblem(await rt.http.get('/devices/d-beta/update-preview', { auth: c.readOnly, query: { hw_name: 'a b' } }), 400);
    });
  });

  it('are in /openapi.json with both scopes where two are needed', async () => {
    const doc = (await rt.http.get('/openapi.json')).json<{ paths: Record<string, Record<string, Record<string, unknown>>> }>();
    expect(doc.paths['/firmware/{id}/audience']?.get).toMatchObject({
      operationId: 'getFirmwareAudience',
      'x-scope': 'fw:read',
      'x-also-scope': 'devices:read',
    });
    expect(doc.paths['/devices/{hwid}/update-preview']?.get).toMatchObject({
      operationId: 'previewDeviceUpdate',
      'x-scope': 'devices:read',
      'x-also-scope': 'fw:read',
    });
    expect(doc.paths['/fleet/summary']?.get).toMatchObject({ operationId: 'getFleetSummary', 'x-scope': 'devices:read' });
  });
});
