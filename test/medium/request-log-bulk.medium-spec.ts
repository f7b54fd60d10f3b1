import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { REFUSAL_CUSTOMER_NOT_FOUND, type RequestLogEntry, type RequestLogEntryView } from '@app/contracts';
import { closeDatabases, configureLogging, openAppDatabase } from '@app/infra';
import { DataSource } from 'typeorm';
import { ADMIN_DATABASE } from '../../apps/admin/src/admin.module.js';
import { AdminStore } from '../../apps/admin/src/repositories/admin.store.js';
import { partitionName, RequestLogPartitionRepository } from '../../apps/admin/src/repositories/request-log-partitions.repository.js';
import { type RequestLogFilter, StatsRepository } from '../../apps/admin/src/repositories/stats.repository.js';
import { BULK_ENTRY_AS_COUNTED, CELL_OF_ENTRIES, COUNTER_NAMES, NO_CUSTOMER, UPDATE_CHECK_ROUTES } from '../../apps/admin/src/stats/usage-counters.js';
import { UsageRollup } from '../../apps/admin/src/stats/usage-rollup.service.js';
import { FoldUsageCounters } from '../../apps/admin/src/use-cases/fold-usage-counters/fold-usage-counters.usecase.js';
import { StoreRequestLog } from '../../apps/admin/src/use-cases/store-request-log/store-request-log.usecase.js';
import { FakeJobQueue } from '../../apps/identity/test/fakes.js';
import { requestLogIngest } from './admin.support.js';
import { createThrowaway, type Throwaway } from './logdata.support.js';

/**
 * The request log's bulk (docs/operations.md "Request log"): successful update checks are kept
 * a row per batch and UTC day in admin.request_log_bulk, every other entry a row of
 * admin.request_log; what the service reads from the log (events, counters, retention) sees
 * both as one log.
 */

configureLogging({ sink: () => undefined });

const DAY_MS = 86_400_000;
const TODAY = Math.floor(Date.now() / DAY_MS) * DAY_MS;
const [CHECK, CHECK_HWID] = UPDATE_CHECK_ROUTES;
const API = '/firmware/{id}/binary';
const HOSTILE_AGENT = `it's "quoted" $bulk$ \\ back\tslash\nnew ünïcødé 🚀 \u2028`;

let throwaway: Throwaway;
let dataSource: DataSource;
let store: ReturnType<typeof requestLogIngest>;
let stats: StatsRepository;
let rollup: UsageRollup;
let partitions: RequestLogPartitionRepository;

beforeAll(async () => {
  throwaway = await createThrowaway('bulk');
  dataSource = await openAppDatabase(throwaway.config, ADMIN_DATABASE);
  rollup = new UsageRollup(new FoldUsageCounters(new AdminStore(dataSource)), new FakeJobQueue());
  store = requestLogIngest(new StoreRequestLog(new AdminStore(dataSource), rollup));
  stats = new StatsRepository(dataSource.manager);
  partitions = new RequestLogPartitionRepository(dataSource.manager);
  for (let d = -3; d <= 1; d++) await partitions.create(new Date(TODAY + d * DAY_MS));
});

afterAll(async () => {
  await dataSource?.destroy().catch(() => undefined);
  await closeDatabases();
  await throwaway?.dispose();
});

let seq = 0;
function entry(ms: number, overrides: Partial<RequestLogEntry> = {}): RequestLogEntry {
  seq++;
  return {
    ts: new Date(ms).toISOString(),
    domain: 'a.example',
    actor: null,
    method: 'GET',
    route: CHECK_HWID,
    path: `/firmware/a.example/hw/1/fw/1.0/dev-${seq}`,
    status: 200,
    ip: `192.0.2.${seq % 7}`,
    user_agent: 'device/1.0',
    bytes_in: 0,
    bytes_out: 10 + seq,
    duration_ms: seq % 50,
    request_id: `bulk-${seq}-${randomUUID()}`,
    ...overrides,
  };
}

const viewOf = (e: RequestLogEntry): RequestLogEntryView => ({
  ts: e.ts,
  domain: e.domain ?? null,
  actor: e.actor ?? null,
  method: e.method,
  route: e.route,
  path: e.path,
  status: e.status,
  ip: e.ip,
  user_agent: e.user_agent,
  bytes_in: e.bytes_in,
  bytes_out: e.bytes_out,
  duration_ms: e.duration_ms,
  request_id: e.request_id,
});

async function clear(): Promise<void> {
  await dataSource.query('TRUNCATE admin.request_log, admin.request_log_bulk, admin.usage_unfolded, admin.usage_daily, admin.request_log_batch');
}

describe('the request log in bulk', () => {
  it('keeps successful update checks of a customer in bulk (a row per batch and UTC day) and every other entry as a row; every field comes back', async () => {
    await clear();
    const midnight = TODAY;
    const bulk = [
      entry(midnight - 2, { user_agent: HOSTILE_AGENT, path: `/firmware/a.example/hw/1/fw/1.0/${encodeURIComponent('ü')}` }),
      entry(midnight - 1, { domain: 'b.example', status: 304, route: CHECK, actor: 'device:x' }),
      entry(midnight + 1, { domain: 'c.example' }),
      entry(midnight + 2, { status: 304 }),
    ];
    const rows = [
      entry(midnight - 3, { status: 404 }),
      entry(midnight + 3, { method: 'HEAD' }),
      entry(midnight + 4, { domain: null, status: 404, user_agent: HOSTILE_AGENT }),
      entry(midnight + 5, { refusal: REFUSAL_CUSTOMER_NOT_FOUND, status: 404 }),
      entry(midnight + 6, { route: API, status: 302, actor: 'token:t' }),
      entry(midnight + 7, { status: 500 }),
    ];
    await store.storeOnce({ batch_id: randomUUID(), entries: [...bulk, ...rows] });
    const stored = await dataSource.query<Array<{ request_id: string }>>(`SELECT request_id FROM admin.request_log ORDER BY ts`);
    expect(stored.map((r) => r.request_id)).toEqual(rows.map((e) => e.request_id));
    const bulkRows = await dataSource.query<Array<{ domains: string[]; counts: number[]; ips: string[]; ip_counts: number[] }>>(
      `SELECT domains, counts, ips, ip_counts FROM admin.request_log_bulk ORDER BY first_ts`,
    );
    const ipCounts = (entries: RequestLogEntry[]) => {
      const counted = new Map<string, number>();
      for (const e of entries) counted.set(e.ip, (counted.get(e.ip) ?? 0) + 1);
      return { ips: [...counted.keys()], ip_counts: [...counted.values()] };
    };
    expect(bulkRows).toEqual([
      { domains: ['a.example', 'b.example'], counts: [1, 1], ...ipCounts([bulk[0], bulk[1]]) },
      { domains: ['a.example', 'c.example'], counts: [1, 1], ...ipCounts([bulk[3], bulk[2]]) },
    ]);
    // Every field as stored, through the events and through the view admin.request_log_entries.
    const all = [...bulk, ...rows].sort((x, y) => (x.ts < y.ts ? 1 : -1));
    const events = await stats.events({ from: new Date(midnight - DAY_MS), to: new Date(midnight + DAY_MS), limit: 100, offset: 0 });
    expect(events).toEqual(all.map(viewOf));
    const viewed = await dataSource.query<Array<Record<string, unknown>>>(
      `SELECT to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ts, domain, actor, method, route, path, status, ip, user_agent,
              bytes_in::int, bytes_out::int, duration_ms, request_id, refusal
         FROM admin.request_log_entries ORDER BY ts DESC`,
    );
    expect(viewed).toEqual(all.map((e) => ({ ...viewOf(e), refusal: e.refusal ?? null })));
  });

  it('answers every filter from rows and bulk together, newest first, and pages through both without a gap or a repeat', async () => {
    await clear();
    // Six batches sent as a gateway would, their times interleaved (a later batch may hold older entries).
    const start = TODAY - DAY_MS / 2;
    const entries: RequestLogEntry[] = [];
    const kinds: Array<Partial<RequestLogEntry>> = [
      {},
      { domain: 'b.example', status: 304 },
      { domain: 'rare.example', route: CHECK },
      { status: 404 },
      { route: API, status: 200, actor: 'token:t' },
      { domain: null, status: 404 },
      { refusal: REFUSAL_CUSTOMER_NOT_FOUND, status: 404, domain: 'gone.example' },
      { domain: 'b.example' },
      { status: 304, ip: '198.51.100.1' },
      {},
    ];
    for (let i = 0; i < 240; i++) entries.push(entry(start + i * 997, i % 31 === 0 ? kinds[2] : kinds[i % kinds.length]));
    const batches = Array.from({ length: 6 }, (_, b) => entries.filter((_, i) => i % 6 === (b * 5) % 6));
    for (const batch of batches) await store.storeOnce({ batch_id: randomUUID(), entries: batch });

    const newestFirst = [...entries].sort((x, y) => (x.ts < y.ts ? 1 : -1));
    const filters: Array<Partial<RequestLogFilter>> = [
      {},
      { domain: 'a.example' },
      { domain: 'rare.example' },
      { domain: NO_CUSTOMER },
      { ip: '198.51.100.1' },
      { ip: '192.0.2.3' },
      { status: 304 },
      { status: 404 },
      { route: CHECK },
      { route: API },
      { domain: 'b.example', status: 200 },
      { domain: 'a.example', route: CHECK_HWID, status: 304, ip: '198.51.100.1' },
    ];
    const from = new Date(start + 5 * 997);
    const to = new Date(start + 200 * 997);
    for (const filter of filters) {
      const expected = newestFirst.filter(
        (e) =>
          e.ts >= from.toISOString() &&
          e.ts <= to.toISOString() &&
          (filter.domain === undefined ||
            (filter.domain === NO_CUSTOMER ? e.domain === null || e.refusal === REFUSAL_CUSTOMER_NOT_FOUND : e.domain === filter.domain)) &&
          (filter.ip === undefined || e.ip === filter.ip) &&
          (filter.route === undefined || e.route === filter.route) &&
          (filter.status === undefined || e.status === filter.status),
      );
      const paged: RequestLogEntryView[] = [];
      for (let offset = 0; ; offset += 7) {
        const page = await stats.events({ from, to, limit: 7, offset, ...filter });
        expect(page.length).toBeLessThanOrEqual(8); // the page and one more (a next page exists)
        paged.push(...page.slice(0, 7));
        if (page.length <= 7) break;
      }
      expect({ filter, requestIds: paged.map((e) => e.request_id) }).toEqual({ filter, requestIds: expected.map((e) => e.request_id) });
    }
  });

  it('counts an entry kept in bulk as its row would be counted, in every counter', async () => {
    const counted = async (method: string, route: string, status: number) => {
      const [cell] = await dataSource.query<Array<Record<string, unknown>>>(
        `SELECT ${CELL_OF_ENTRIES} FROM (SELECT now() AS ts, 'a.example'::text AS domain, $1::text AS method, $2::text AS route, $3::int AS status,
                NULL::text AS refusal, 1 AS n) AS entry GROUP BY 1, 2`,
        [method, route, status],
      );
      return Object.fromEntries(COUNTER_NAMES.map((name) => [name, Number(cell[name])]));
    };
    const asCounted = await counted(BULK_ENTRY_AS_COUNTED.method, BULK_ENTRY_AS_COUNTED.route, BULK_ENTRY_AS_COUNTED.status);
    expect(asCounted).toMatchObject({ requests: 1, update_checks: 1, errors: 0 });
    for (const route of UPDATE_CHECK_ROUTES) for (const status of [200, 304]) expect(await counted('GET', route, status)).toEqual(asCounted);

    await clear();
    const day = TODAY - DAY_MS;
    await store.storeOnce({
      batch_id: randomUUID(),
      entries: [entry(day + 1), entry(day + 2, { status: 304 }), entry(day + 3, { status: 404 }), entry(day + 4, { domain: 'b.example' })],
    });
    const iso = new Date(day).toISOString().slice(0, 10);
    const expected = { day: iso, requests: 3, errors: 1, update_checks: 2 };
    expect(await stats.days(iso, iso, 'a.example')).toEqual([expect.objectContaining(expected)]); // unfolded yet
    await rollup.run();
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM admin.usage_unfolded`)).toEqual([{ n: 0 }]);
    expect(await stats.days(iso, iso, 'a.example')).toEqual([expect.objectContaining(expected)]);
    expect(await stats.days(iso, iso, 'b.example')).toEqual([expect.objectContaining({ requests: 1, update_checks: 1 })]);
  });

  it('settles the indexes of a day that is over, drops its bulk with its day partition, and keeps bulk outside every day partition until trimmed', async () => {
    await clear();
    const old = TODAY - 3 * DAY_MS;
    const far = Date.UTC(2001, 0, 1);
    await store.storeOnce({ batch_id: randomUUID(), entries: [entry(old + 1), entry(old + 2, { status: 404 }), entry(far)] });
    const name = partitionName(new Date(old));
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM admin.${name.replace('request_log_', 'request_log_bulk_')}`)).toEqual([{ n: 1 }]);
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM admin.request_log_bulk_default`)).toEqual([{ n: 1 }]);
    // A day that is over: its GIN indexes' pending entries merged once, then nothing is pending.
    expect(await partitions.settleBulkIndexes(new Date(TODAY))).toBeGreaterThan(0);
    expect(await partitions.settleBulkIndexes(new Date(TODAY))).toBe(0);
    await partitions.drop(name);
    expect(await dataSource.query(`SELECT to_regclass($1)::text AS t`, [`admin.${name.replace('request_log_', 'request_log_bulk_')}`])).toEqual([{ t: null }]);
    expect(await partitions.trimDefault(new Date(far + DAY_MS))).toBe(1);
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM admin.request_log_entries`)).toEqual([{ n: 0 }]);
  });
});
