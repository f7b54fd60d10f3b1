import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectStatus } from './support/auth.js';
import { eventually, letters, randomDomain, randomLogName } from './support/factories.js';
import { UPDATE_CHECK_RATE_PER_MINUTE } from './support/constants.js';
import { createBuild, freshClientAddress, productLine, updateCheckPath } from './support/firmware.js';
import { startRuntime, type CustomerFixture, type Runtime } from './support/runtime.js';

/**
 * Usage statistics and the request log (docs/api.md "Usage statistics"): GET /admin/stats/summary,
 * /admin/stats/events, /stats/summary, /stats/events. Both runtimes run with
 * TRUSTED_PROXIES=127.0.1.0/30: requests sent from 127.0.1.1 carry their client in X-Forwarded-For.
 */

interface Entry {
  ts: string;
  domain: string | null;
  actor: string | null;
  method: string;
  route: string;
  path: string;
  status: number;
  ip: string;
  user_agent: string;
  bytes_in: number;
  bytes_out: number;
  duration_ms: number;
  request_id: string;
}
interface Page {
  items: Entry[];
  next_offset: number | null;
}
interface Day {
  day: string;
  requests: number;
  errors: number;
  firmware_uploads: number;
  logdata_uploads: number;
  firmware_downloads: number;
  notes_downloads: number;
  logdata_downloads: number;
  update_checks: number;
}
interface Summary {
  from: string;
  to: string;
  days: Day[];
  customers?: Array<{ domain: string; requests: number; errors: number; update_checks: number }>;
}

const PROXY = '127.0.1.1';
const today = () => new Date().toISOString().slice(0, 10);

describe('usage statistics and the request log', () => {
  let rt: Runtime;
  let admin: string;
  let c: CustomerFixture;
  const ids = { v4: `e2e-${letters(16)}`, v6: `e2e-${letters(16)}`, missing: `e2e-${letters(16)}`, check: `e2e-${letters(16)}`, unknown: `e2e-${letters(16)}` };
  const agent = `stats-e2e/${letters(8)}`;
  const line = productLine();

  beforeAll(async () => {
    rt = await startRuntime();
    admin = await rt.adminToken();
    c = await rt.newCustomer();
    const build = await createBuild(rt, c.full, line, '1.0.1', { general: true, notes: 'notes' });
    expectStatus(await rt.http.get(`/firmware/${build.id}/binary`, { auth: c.readOnly }), 302);
    expectStatus(await rt.http.get(`/firmware/${build.id}/notes`, { auth: c.readOnly }), 302);
    const v4 = await rt.http.get('/logdata', {
      auth: c.readOnly,
      localAddress: PROXY,
      headers: { 'X-Forwarded-For': '198.51.100.77', 'X-Request-Id': ids.v4, 'User-Agent': agent },
    });
    expectStatus(v4, 200);
    const v6 = await rt.http.get('/logdata', {
      auth: c.readOnly,
      localAddress: PROXY,
      headers: { 'X-Forwarded-For': '2001:db8:aa:bb::1', 'X-Request-Id': ids.v6, 'User-Agent': agent },
    });
    expectStatus(v6, 200);
    expectStatus(await rt.http.get(`/logdata/${randomLogName()}`, { auth: c.readOnly, headers: { 'X-Request-Id': ids.missing } }), 404);
    const from = freshClientAddress(); // unused in the last minute: a random one of 230 may have spent its rate in an earlier suite
    expectStatus(await rt.http.get(updateCheckPath(c.domain, line, '1.0.0'), { localAddress: from, headers: { 'X-Request-Id': ids.check } }), 200);
    expectStatus(await rt.http.get(updateCheckPath(randomDomain(), line, '1.0.0'), { localAddress: from, headers: { 'X-Request-Id': ids.unknown } }), 404);
  });
  afterAll(async () => {
    await rt?.stop();
  });

  /** The customer's entries as the operators see them, once all the requests above are there. */
  async function adminEntries(): Promise<Entry[]> {
    const page = await eventually(
      async () => expectStatus(await rt.http.get('/admin/stats/events', { auth: admin, query: { domain: c.domain, limit: 1000 } }), 200).json<Page>(),
      (p) => [ids.v4, ids.v6, ids.missing, ids.check].every((id) => p.items.some((e) => e.request_id === id)),
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    return page.items;
  }

  /** The customer's entries of today from status 400 up, as the request log lists them. */
  async function failedToday(): Promise<number> {
    const page = expectStatus(
      await rt.http.get('/admin/stats/events', { auth: admin, query: { domain: c.domain, from: today(), limit: 1000 } }),
      200,
    ).json<Page>();
    expect(page.next_offset).toBeNull();
    return page.items.filter((e) => e.status >= 400).length;
  }

  describe('GET /admin/stats/events', () => {
    it('lists the customer entries newest first with full addresses and user agents', async () => {
      const items = await adminEntries();
      const v4 = items.find((e) => e.request_id === ids.v4)!;
      expect(v4).toEqual({
        ts: expect.any(String),
        domain: c.domain,
        actor: expect.stringMatching(/^token:/),
        method: 'GET',
        route: '/logdata',
        path: '/logdata',
        status: 200,
        ip: '198.51.100.77',
        user_agent: agent,
        bytes_in: 0,
        bytes_out: expect.any(Number),
        duration_ms: expect.any(Number),
        request_id: ids.v4,
      });
      expect(items.find((e) => e.request_id === ids.v6)!.ip).toBe('2001:db8:aa:bb::1');
      expect(items.find((e) => e.request_id === ids.check)).toMatchObject({ domain: c.domain, actor: null, status: 200 });
      const times = items.map((e) => Date.parse(e.ts));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
    });

    it('filters by address, route, status and time, and pages with limit, offset and next_offset', async () => {
      await adminEntries();
      const get = async (query: Record<string, string | number>) =>
        expectStatus(await rt.http.get('/admin/stats/events', { auth: admin, query: { domain: c.domain, ...query } }), 200).json<Page>();

      expect((await get({ ip: '198.51.100.77' })).items.map((e) => e.request_id)).toEqual([ids.v4]);
      const byRoute = await get({ route: '/logdata' });
      expect(byRoute.items.map((e) => e.request_id).sort()).toEqual([ids.v4, ids.v6].sort());
      expect(byRoute.next_offset).toBeNull();
      const missing = await get({ status: 404 });
      expect(missing.items.map((e) => e.request_id)).toEqual([ids.missing]);
      expect(
        (await get({ route: '/logdata', from: new Date(Date.now() + 60_000).toISOString(), to: new Date(Date.now() + 120_000).toISOString() })).items,
      ).toEqual([]);
      expect((await get({ route: '/logdata', from: '2000-01-01', to: '2000-01-02' })).items).toEqual([]);

      const first = await get({ route: '/logdata', limit: 1 });
      expect(first.items).toHaveLength(1);
      expect(first.next_offset).toBe(1);
      const second = await get({ route: '/logdata', limit: 1, offset: 1 });
      expect(second.items).toHaveLength(1);
      expect(second.items[0].request_id).not.toBe(first.items[0].request_id);
      expect(second.next_offset).toBeNull();
    });

    it('lists a check of a domain that does not exist under (none)', async () => {
      const page = await eventually(
        async () =>
          expectStatus(await rt.http.get('/admin/stats/events', { auth: admin, query: { domain: '(none)', status: 404, limit: 1000 } }), 200).json<Page>(),
        (p) => p.items.some((e) => e.request_id === ids.unknown),
        { timeoutMs: 30_000, intervalMs: 500 },
      );
      expect(page.items.find((e) => e.request_id === ids.unknown)!.domain).toBeNull();
    });

    it('counts an update check refused before its customer is looked up (400, 429) under (none) unless its domain is a customer', async () => {
      const ghost = randomDomain();
      const from = freshClientAddress();
      const refused = { bad: `e2e-${letters(16)}`, limited: `e2e-${letters(16)}`, known: `e2e-${letters(16)}` };
      const bogusType = { query: { type: 'bogus' }, localAddress: from };
      // The same address until its rate is used up: every one a 400 (bad input), then a 429.
      expectStatus(await rt.http.get(updateCheckPath(ghost, line, '1.0.0'), { ...bogusType, headers: { 'X-Request-Id': refused.bad } }), 400);
      for (let i = 1; i < UPDATE_CHECK_RATE_PER_MINUTE; i++) expectStatus(await rt.http.get(updateCheckPath(ghost, line, '1.0.0'), bogusType), 400);
      expectStatus(await rt.http.get(updateCheckPath(ghost, line, '1.0.0'), { localAddress: from, headers: { 'X-Request-Id': refused.limited } }), 429);
      // The customer's domain answered an update check before (beforeAll): its refused check still counts for it.
      expectStatus(
        await rt.http.get(updateCheckPath(c.domain, line, '1.0.0'), {
          query: { type: 'bogus' },
          localAddress: freshClientAddress(),
          headers: { 'X-Request-Id': refused.known },
        }),
        400,
      );

      const none = await eventually(
        async () => expectStatus(await rt.http.get('/admin/stats/events', { auth: admin, query: { domain: '(none)', limit: 1000 } }), 200).json<Page>(),
        (p) => [refused.bad, refused.limited].every((id) => p.items.some((e) => e.request_id === id)),
        { timeoutMs: 30_000, intervalMs: 500 },
      );
      for (const id of [refused.bad, refused.limited]) expect(none.items.find((e) => e.request_id === id)).toMatchObject({ domain: null });
      expect(none.items.find((e) => e.request_id === refused.limited)!.status).toBe(429);
      const mine = await eventually(
        async () => expectStatus(await rt.http.get('/admin/stats/events', { auth: admin, query: { domain: c.domain, status: 400 } }), 200).json<Page>(),
        (p) => p.items.some((e) => e.request_id === refused.known),
        { timeoutMs: 30_000, intervalMs: 500 },
      );
      expect(mine.items.find((e) => e.request_id === refused.known)).toMatchObject({ domain: c.domain, status: 400 });
      const summary = expectStatus(await rt.http.get('/admin/stats/summary', { auth: admin }), 200).json<Summary>();
      expect(summary.customers!.map((x) => x.domain)).not.toContain(ghost);
      expect(summary.customers!.find((x) => x.domain === '(none)')!.errors).toBeGreaterThanOrEqual(UPDATE_CHECK_RATE_PER_MINUTE + 1);
    });

    it('refuses limits outside 1 to 1000, a reversed range, and customers', async () => {
      for (const limit of [0, 1001]) expectStatus(await rt.http.get('/admin/stats/events', { auth: admin, query: { limit } }), 400);
      expectStatus(await rt.http.get('/admin/stats/events', { auth: admin, query: { offset: -1 } }), 400);
      expectStatus(await rt.http.get('/admin/stats/events', { auth: admin, query: { status: 'x' } }), 400);
      expectStatus(await rt.http.get('/admin/stats/events', { auth: admin, query: { from: '2026-02-01', to: '2026-01-01' } }), 400);
      expectStatus(await rt.http.get('/admin/stats/events', { auth: c.full }), 403);
      expectStatus(await rt.http.get('/admin/stats/summary', { auth: c.full }), 403);
      expectStatus(await rt.http.get('/admin/stats/summary', {}), 401);
    });
  });

  describe('GET /stats/events', () => {
    it("is the customer's own access log with addresses cut to /24 and /48", async () => {
      await adminEntries();
      const page = expectStatus(await rt.http.get('/stats/events', { auth: c.readOnly, query: { route: '/logdata', limit: 1000 } }), 200).json<Page>();
      const byId = new Map(page.items.map((e) => [e.request_id, e]));
      expect(byId.get(ids.v4)).toMatchObject({ ip: '198.51.100.0/24', user_agent: agent, domain: c.domain });
      expect(byId.get(ids.v6)?.ip).toBe('2001:db8:aa::/48');
      expect(page.items.every((e) => e.domain === c.domain)).toBe(true);
      expect(page.items.every((e) => /\/(24|48)$/.test(e.ip))).toBe(true);
      const limited = expectStatus(await rt.http.get('/stats/events', { auth: c.readOnly, query: { route: '/logdata', limit: 1 } }), 200).json<Page>();
      expect(limited.next_offset).toBe(1);
      expectStatus(await rt.http.get('/stats/events', { auth: c.readOnly, query: { limit: 1001 } }), 400);
    });

    it("never shows another customer's entries", async () => {
      const other = await rt.newCustomer();
      const page = expectStatus(await rt.http.get('/stats/events', { auth: other.readOnly, query: { limit: 1000 } }), 200).json<Page>();
      expect(page.items.some((e) => Object.values(ids).includes(e.request_id))).toBe(false);
      expectStatus(await rt.http.get('/stats/events', { auth: other.readOnly, query: { customer: c.domain } }), 404);
    });
  });

  it('stores the log in day partitions made ahead (white-box)', async () => {
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
    const partitions = await eventually(
      () =>
        rt.query<{ name: string }>(
          `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'admin.request_log'::regclass`,
        ),
      (rows) => rows.some((r) => r.name === `request_log_p${tomorrow}`),
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    expect(partitions.map((r) => r.name)).toEqual(expect.arrayContaining(['request_log_default', `request_log_p${tomorrow}`]));
  });

  describe('summaries', () => {
    it("GET /stats/summary counts the customer's uploads, downloads, checks and errors per day", async () => {
      // errors: every entry of the customer from 400 up (the fixture's own set-up may add some: counted from the log, not
      // assumed). The summary's counters are folded from the log a little later: wait until both agree.
      const { summary, failed } = await eventually(
        async () => ({ summary: expectStatus(await rt.http.get('/stats/summary', { auth: c.readOnly }), 200).json<Summary>(), failed: await failedToday() }),
        ({ summary: s, failed: f }) => (s.days.find((d) => d.day === today())?.update_checks ?? 0) >= 1 && s.days.find((d) => d.day === today())?.errors === f,
        { timeoutMs: 30_000, intervalMs: 500 },
      );
      expect(failed).toBeGreaterThanOrEqual(1);
      expect(summary.days.find((d) => d.day === today())!.errors).toBe(failed);
      expect(summary.customers).toBeUndefined();
      expect(summary.to).toBe(today());
      expect(summary.days).toHaveLength(31);
      const day = summary.days.find((d) => d.day === today())!;
      expect(day).toMatchObject({ firmware_uploads: 1, firmware_downloads: 1, notes_downloads: 1, logdata_uploads: 0, logdata_downloads: 0, update_checks: 1 });
      expect(day.errors).toBeGreaterThanOrEqual(1);
      expect(day.requests).toBeGreaterThanOrEqual(6);
      const range = expectStatus(
        await rt.http.get('/stats/summary', { auth: c.readOnly, query: { from: '2026-01-01', to: '2026-01-03' } }),
        200,
      ).json<Summary>();
      expect(range).toEqual({ from: '2026-01-01', to: '2026-01-03', days: expect.any(Array) });
      expect(range.days.map((d) => d.day)).toEqual(['2026-01-01', '2026-01-02', '2026-01-03']);
      expectStatus(await rt.http.get('/stats/summary', { auth: c.readOnly, query: { from: 'yesterday' } }), 400);
    });

    it('GET /admin/stats/summary lists every customer and (none)', async () => {
      const summary = await eventually(
        async () => expectStatus(await rt.http.get('/admin/stats/summary', { auth: admin }), 200).json<Summary>(),
        (s) => (s.customers ?? []).some((x) => x.domain === c.domain && x.update_checks >= 1) && (s.customers ?? []).some((x) => x.domain === '(none)'),
        { timeoutMs: 30_000, intervalMs: 500 },
      );
      const mine = summary.customers!.find((x) => x.domain === c.domain)!;
      expect(mine).toEqual({ domain: c.domain, requests: expect.any(Number), errors: await failedToday(), update_checks: 1 });
      const none = summary.customers!.find((x) => x.domain === '(none)')!;
      expect(none.errors).toBeGreaterThanOrEqual(1);
      const day = summary.days.find((d) => d.day === today())!;
      expect(day.requests).toBeGreaterThanOrEqual(mine.requests + none.requests);
    });
  });
});
