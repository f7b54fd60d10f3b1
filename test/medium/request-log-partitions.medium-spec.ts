import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { closeDatabases, configureLogging, openAppDatabase, revertLastMigration } from '@app/infra';
import { DataSource } from 'typeorm';
import { ADMIN_DATABASE } from '../../apps/admin/src/admin.module.js';
import { AdminStore } from '../../apps/admin/src/repositories/admin.store.js';
import { RequestLogRetention } from '../../apps/admin/src/stats/request-log-retention.service.js';
import { UsageRollup } from '../../apps/admin/src/stats/usage-rollup.service.js';
import { StoreRequestLog } from '../../apps/admin/src/use-cases/store-request-log/store-request-log.usecase.js';
import { makeRequestLogEntry } from '../../apps/admin/test/factories.js';
import { createThrowaway, type Throwaway } from './logdata.support.js';
import { compileAdminModule, requestLogIngest } from './admin.support.js';

/**
 * The request log partitioned by day on real PostgreSQL (docs/operations.md "Request log"): the
 * migration turns the existing table into the legacy partition (rows and ids kept) and back,
 * the retention run makes day partitions ahead (moving what the default partition caught) and
 * drops whole partitions past REQUEST_LOG_RETENTION_DAYS, leaving the usage counters alone.
 */

configureLogging({ sink: () => undefined });

const DAY_MS = 86_400_000;
const RETENTION_DAYS = 30;
const startOfDay = (t: number) => new Date(Math.floor(t / DAY_MS) * DAY_MS);
const TODAY = startOfDay(Date.now());
const day = (offset: number, hour = 12) => new Date(TODAY.getTime() + offset * DAY_MS + hour * 3600_000).toISOString();

let throwaway: Throwaway;
let dataSource: DataSource;
let moduleRef: TestingModule;
let clockNow = new Date();
const clock = { now: () => clockNow };

/** The migrations after the partitioning, reverted first (their own medium tests check what their downs do). */
async function revertLaterMigrations(): Promise<void> {
  const later = ADMIN_DATABASE.migrations.slice(ADMIN_DATABASE.migrations.findIndex((m) => m.name === 'RequestLogPartitions1764600000000') + 1);
  for (const migration of later.reverse()) expect(await revertLastMigration(throwaway.config, ADMIN_DATABASE)).toBe(migration.name);
}

async function partitionOf(requestId: string): Promise<string | null> {
  const rows = await dataSource.query<Array<{ p: string }>>(`SELECT tableoid::regclass::text AS p FROM admin.request_log WHERE request_id = $1`, [requestId]);
  return rows[0]?.p ?? null;
}

beforeAll(async () => {
  throwaway = await createThrowaway('admin');
  // The table as it was before partitioning, with entries in it.
  await openAppDatabase(throwaway.config, ADMIN_DATABASE);
  await closeDatabases();
  await revertLaterMigrations();
  expect(await revertLastMigration(throwaway.config, ADMIN_DATABASE)).toBe('RequestLogPartitions1764600000000');
  const before = await openAppDatabase(throwaway.config, { ...ADMIN_DATABASE, migrate: false });
  await before.query(
    `INSERT INTO admin.request_log (ts, method, route, path, status, ip, user_agent, bytes_in, bytes_out, duration_ms, request_id)
     VALUES ($1, 'GET', '/healthz', '/healthz', 200, '192.0.2.1', 'ua', 0, 0, 1, 'legacy-old'), ($2, 'GET', '/healthz', '/healthz', 200, '192.0.2.1', 'ua', 0, 0, 1, 'legacy-new')`,
    [day(-60), day(0, 1)],
  );
  await closeDatabases();
  dataSource = await openAppDatabase(throwaway.config, ADMIN_DATABASE);
  moduleRef = await compileAdminModule({ dataSource, config: { ...throwaway.config, requestLogRetentionDays: RETENTION_DAYS }, clock, controllers: false });
});

afterAll(async () => {
  await moduleRef?.close();
  await closeDatabases();
  await throwaway?.dispose();
});

describe('request log partitions', () => {
  it('keeps the entries of the table it replaced, as the legacy partition, with their ids', async () => {
    const rows = await dataSource.query<Array<{ id: string; request_id: string; p: string }>>(
      `SELECT id::text, request_id, tableoid::regclass::text AS p FROM admin.request_log WHERE request_id LIKE 'legacy-%' ORDER BY id`,
    );
    expect(rows).toEqual([
      { id: '1', request_id: 'legacy-old', p: 'admin.request_log_legacy' },
      { id: '2', request_id: 'legacy-new', p: 'admin.request_log_legacy' },
    ]);
    const [{ kind }] = await dataSource.query<Array<{ kind: string }>>(`SELECT relkind::text AS kind FROM pg_class WHERE oid = 'admin.request_log'::regclass`);
    expect(kind).toBe('p');
  });

  it('makes the next days partitions; new entries go there with new ids, and the counters are kept with them', async () => {
    clockNow = new Date(day(0));
    const run = await moduleRef.get(RequestLogRetention).run();
    // The legacy partition ends where today does; the next days get their own.
    expect(run.created).toEqual([day(1).slice(0, 10), day(2).slice(0, 10), day(3).slice(0, 10)]);
    expect(run.dropped).toEqual([]);
    const entry = makeRequestLogEntry({ ts: day(2), domain: 'part.example' });
    await moduleRef.get(AdminStore).repos.requestLog.insertBatch([entry]);
    expect(await partitionOf(entry.request_id)).toBe(`admin.request_log_p${day(2).slice(0, 10).replaceAll('-', '')}`);
    const [{ id }] = await dataSource.query<Array<{ id: string }>>(`SELECT id::text FROM admin.request_log WHERE request_id = $1`, [entry.request_id]);
    expect(Number(id)).toBeGreaterThan(2);
    await moduleRef.get(UsageRollup).run();
    const [{ requests }] = await dataSource.query<Array<{ requests: string }>>(`SELECT requests::text FROM admin.usage_daily WHERE domain = 'part.example'`);
    expect(requests).toBe('1');
    // The event filters read across partitions.
    const found = await moduleRef
      .get(AdminStore)
      .repos.stats.events({ domain: 'part.example', from: new Date(day(-90)), to: new Date(day(10)), limit: 10, offset: 0 });
    expect(found.map((e) => e.request_id)).toEqual([entry.request_id]);
  });

  it('counts a batch at once (unfolded) and once more only when sent again never, folded or not, whatever its domain holds', async () => {
    const odd = `odd"\\dom,ain{}'\t.example`;
    const batch = {
      batch_id: randomUUID(),
      entries: [makeRequestLogEntry({ ts: day(1), domain: odd }), makeRequestLogEntry({ ts: day(1), domain: odd, status: 500 })],
    };
    const service = requestLogIngest(moduleRef.get(StoreRequestLog));
    expect(await service.storeOnce(batch)).toEqual({ stored: 2 });
    const counted = async () =>
      (await moduleRef.get(AdminStore).repos.stats.days(day(1).slice(0, 10), day(1).slice(0, 10), odd)).map((d) => [d.requests, d.errors]);
    expect(await counted()).toEqual([[2, 1]]); // unfolded or folded: the summary reads both
    expect(await service.storeOnce(batch)).toEqual({ stored: 0 });
    await moduleRef.get(UsageRollup).run();
    const [{ unfolded }] = await dataSource.query<Array<{ unfolded: number }>>(`SELECT count(*)::int AS unfolded FROM admin.usage_unfolded`);
    expect(unfolded).toBe(0);
    expect(await counted()).toEqual([[2, 1]]);
  });

  it('takes an entry no day partition covers into the default partition, and moves it when its day is made', async () => {
    const early = makeRequestLogEntry({ ts: day(10), domain: 'skew.example' });
    await moduleRef.get(AdminStore).repos.requestLog.insertBatch([early]);
    expect(await partitionOf(early.request_id)).toBe('admin.request_log_default');
    clockNow = new Date(day(9));
    const run = await moduleRef.get(RequestLogRetention).run();
    expect(run.created).toContain(day(10).slice(0, 10));
    expect(await partitionOf(early.request_id)).toBe(`admin.request_log_p${day(10).slice(0, 10).replaceAll('-', '')}`);
    // A second run changes nothing.
    expect(await moduleRef.get(RequestLogRetention).run()).toEqual({ created: [], dropped: [], trimmed: 0 });
  });

  it('drops whole partitions older than the retention, never the counters', async () => {
    clockNow = new Date(day(RETENTION_DAYS + 2));
    const run = await moduleRef.get(RequestLogRetention).run();
    // Kept: the last RETENTION_DAYS days (today counted): the legacy partition and those of days 1 and 2 go.
    expect(run.dropped).toEqual(expect.arrayContaining(['request_log_legacy', `request_log_p${day(2).slice(0, 10).replaceAll('-', '')}`]));
    expect(run.dropped).not.toContain(`request_log_p${day(3).slice(0, 10).replaceAll('-', '')}`);
    expect(await partitionOf('legacy-new')).toBeNull();
    expect(await partitionOf(makeRequestLogEntry().request_id)).toBeNull();
    const [{ n }] = await dataSource.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM admin.usage_daily WHERE domain = 'part.example'`);
    expect(n).toBe(1);
    const [{ skew }] = await dataSource.query<Array<{ skew: number }>>(`SELECT count(*)::int AS skew FROM admin.request_log WHERE domain = 'skew.example'`);
    expect(skew).toBe(1);
  });

  it('reverts to one table with every remaining entry and its id (down) — runs last', async () => {
    // Batches not yet counted when the later migrations are reverted are folded into the daily counters, not lost.
    await moduleRef.get(AdminStore).repos.requestLog.insertBatch([makeRequestLogEntry({ ts: day(3), domain: 'pending.example' })]);
    const [{ remaining }] = await dataSource.query<Array<{ remaining: number }>>(`SELECT count(*)::int AS remaining FROM admin.request_log`);
    await moduleRef.close();
    await closeDatabases();
    await revertLaterMigrations();
    const folded = await openAppDatabase(throwaway.config, { ...ADMIN_DATABASE, migrate: false });
    try {
      const rows = await folded.query<Array<{ requests: string; pending: string | null }>>(
        `SELECT requests::text, to_regclass('admin.usage_pending')::text AS pending FROM admin.usage_daily WHERE domain = 'pending.example'`,
      );
      expect(rows).toEqual([{ requests: '1', pending: null }]);
    } finally {
      await folded.destroy();
    }
    expect(await revertLastMigration(throwaway.config, ADMIN_DATABASE)).toBe('RequestLogPartitions1764600000000');
    const check = await openAppDatabase(throwaway.config, { ...ADMIN_DATABASE, migrate: false });
    try {
      const [row] = await check.query<Array<{ kind: string; n: number; pkey: string | null }>>(
        `SELECT (SELECT relkind::text FROM pg_class WHERE oid = 'admin.request_log'::regclass) AS kind,
                (SELECT count(*)::int FROM admin.request_log) AS n,
                to_regclass('admin.request_log_pkey')::text AS pkey`,
      );
      expect(row).toEqual({ kind: 'r', n: remaining, pkey: 'admin.request_log_pkey' });
      const [{ id }] = await check.query<Array<{ id: string }>>(
        `INSERT INTO admin.request_log (ts, method, route, path, status, ip, user_agent, bytes_in, bytes_out, duration_ms, request_id)
         VALUES (now(), 'GET', '/healthz', '/healthz', 200, '192.0.2.1', 'ua', 0, 0, 1, 'after-down') RETURNING id::text`,
      );
      const [{ max }] = await check.query<Array<{ max: string }>>(`SELECT max(id)::text AS max FROM admin.request_log WHERE request_id <> 'after-down'`);
      expect(Number(id)).toBeGreaterThan(Number(max));
    } finally {
      await check.destroy();
    }
  });
});
