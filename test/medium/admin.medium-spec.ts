import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { REFUSAL_CUSTOMER_NOT_FOUND, type StatsDay } from '@app/contracts';
import { closeDatabases, configureLogging, openAppDatabase, revertLastMigration } from '@app/infra';
import { DataSource } from 'typeorm';
import { ADMIN_DATABASE } from '../../apps/admin/src/admin.module.js';
import { AdminController } from '../../apps/admin/src/controllers/admin.controller.js';
import { AdminStore } from '../../apps/admin/src/repositories/admin.store.js';
import { NO_CUSTOMER } from '../../apps/admin/src/stats/usage-counters.js';
import { UsageRollup } from '../../apps/admin/src/stats/usage-rollup.service.js';
import { RollUpHealth } from '../../apps/admin/src/use-cases/roll-up-health/roll-up-health.usecase.js';
import { StoreRequestLog } from '../../apps/admin/src/use-cases/store-request-log/store-request-log.usecase.js';
import { makeFixedClock, makeHealthSample, makeRequestLogEntry } from '../../apps/admin/test/factories.js';
import { createThrowaway, type Throwaway } from './logdata.support.js';
import { compileAdminModule, requestLogIngest } from './admin.support.js';

configureLogging({ sink: () => undefined });

const NOW = '2026-11-21T10:30:00.000Z';

let throwaway: Throwaway;
let dataSource: DataSource;
let moduleRef: TestingModule;
let admin: AdminController;

beforeAll(async () => {
  throwaway = await createThrowaway('admin');
  dataSource = await openAppDatabase(throwaway.config, ADMIN_DATABASE);
  moduleRef = await compileAdminModule({ dataSource, config: throwaway.config, clock: makeFixedClock(NOW) });
  admin = moduleRef.get(AdminController);
});

afterAll(async () => {
  await moduleRef?.close();
  await closeDatabases();
  await throwaway?.dispose();
});

async function storedRequestIds(ids: readonly string[]): Promise<Array<Record<string, unknown>>> {
  return dataSource.query(
    `SELECT ts, domain, actor, method, route, path, status, ip, user_agent, bytes_in::int, bytes_out::int, duration_ms, request_id
       FROM admin.request_log WHERE request_id = ANY($1) ORDER BY ts`,
    [ids],
  );
}

describe('request log', () => {
  it('stores a batch with one statement, every field intact', async () => {
    const entries = Array.from({ length: 300 }, (_, i) => makeRequestLogEntry({ status: i % 2 ? 200 : 404, bytes_in: i }));
    entries.push(
      makeRequestLogEntry({
        domain: null,
        actor: null,
        path: '/firmware/a"b\\c/{x,y}/NULL',
        user_agent: 'Mozilla/5.0 "quoted", {braces}, back\\slash, tab\there, \\N, ünïcødé ✓',
        ip: '2001:db8::1',
      }),
    );
    await admin.requestLog({ entries });
    const transactions = (await dataSource.query(`SELECT DISTINCT xmin::text FROM admin.request_log WHERE request_id = ANY($1)`, [
      entries.map((e) => e.request_id),
    ])) as unknown[];
    expect(transactions).toHaveLength(1);

    const rows = await storedRequestIds(entries.map((e) => e.request_id));
    expect(rows).toHaveLength(entries.length);
    expect(rows.map((r) => ({ ...r, ts: (r.ts as Date).toISOString() }))).toEqual(entries);
  });

  it('stores hostile values escaped and cut (lone surrogates, NUL, control characters, 1 MiB) without losing the rest of its batch', async () => {
    const mib = 'p'.repeat(1024 * 1024);
    const odd = makeRequestLogEntry({ user_agent: `agent \uD800 end\x1b${mib}`, path: `/logdata/\u0000\uDC00${mib}`, actor: '\x07bell' });
    const plain = makeRequestLogEntry();
    await admin.requestLog({ entries: [odd, plain] });
    const rows = await storedRequestIds([odd.request_id, plain.request_id]);
    const stored = rows.find((r) => r.request_id === odd.request_id)!;
    expect(stored).toMatchObject({
      user_agent: `agent \\ud800 end\x1b${mib}`.slice(0, 1024),
      path: `/logdata/\\u0000\\udc00${mib}`.slice(0, 4096),
      actor: '\x07bell',
    });
    expect(rows.find((r) => r.request_id === plain.request_id)).toMatchObject({ user_agent: plain.user_agent });
  });

  it('stores a batch larger than the bind-parameter limit of a VALUES list in one statement', async () => {
    const entries = Array.from({ length: 6000 }, () => makeRequestLogEntry({ domain: 'big.example' }));
    await admin.requestLog({ entries });
    const [{ n }] = (await dataSource.query(`SELECT count(*)::int AS n FROM admin.request_log WHERE domain = 'big.example'`)) as [{ n: number }];
    expect(n).toBe(6000);
  });

  it('drops only the unusable entries of a batch and ignores an empty one', async () => {
    const good = makeRequestLogEntry({ domain: 'partial.example' });
    await admin.requestLog({ entries: [good, makeRequestLogEntry({ domain: 'partial.example', ts: 'garbage' })] });
    await admin.requestLog({ entries: [] });
    const [{ n }] = (await dataSource.query(`SELECT count(*)::int AS n FROM admin.request_log WHERE domain = 'partial.example'`)) as [{ n: number }];
    expect(n).toBe(1);
  });
});

describe('health history', () => {
  const up = (overrides: Record<string, 'up' | 'down'> = {}) => ({
    gateway: 'up' as const,
    database: 'up' as const,
    object_store: 'up' as const,
    firmware: 'up' as const,
    logdata: 'up' as const,
    registry: 'up' as const,
    identity: 'up' as const,
    admin: 'up' as const,
    worker: 'up' as const,
    ...overrides,
  });
  const history = (days?: number) => admin.healthHistory({ ctx: {} as never, params: {}, query: days === undefined ? {} : { days }, body: undefined });
  const count = async (sql: string) => ((await dataSource.query(sql)) as [{ n: number }])[0].n;
  let jobs: RollUpHealth;
  let firstRun: { moved: number; removedDays: number };

  beforeAll(async () => {
    jobs = moduleRef.get(RollUpHealth);
    const samples = [
      // today (UTC): 3 ok, 1 degraded (the object store down)
      makeHealthSample('2026-11-21T00:00:00.000Z', 'ok', up()),
      makeHealthSample('2026-11-21T05:00:00.000Z', 'ok', up()),
      makeHealthSample('2026-11-21T10:00:00.000Z', 'ok', up()),
      makeHealthSample('2026-11-21T10:01:00.000Z', 'degraded', up({ object_store: 'down' })),
      // yesterday, counted by UTC day although sent with an offset: 1 ok, 1 down (no database)
      makeHealthSample('2026-11-20T23:59:59.999Z', 'ok', up()),
      makeHealthSample('2026-11-21T01:00:00+02:00', 'down', up({ database: 'down' })),
      // 2026-11-19: nothing; 2026-11-18: 2 down, from a gateway that did not send parts
      makeHealthSample('2026-11-18T12:00:00Z', 'down'),
      makeHealthSample('2026-11-18T12:01:00Z', 'down'),
      // long ago: outside short windows; and one past the 400 days kept
      makeHealthSample('2026-01-01T00:00:00Z', 'ok', up()),
      makeHealthSample('2025-01-01T00:00:00Z', 'ok', up()),
    ];
    await Promise.all(samples.map((s) => admin.healthSample(s)));
    await admin.healthSample(makeHealthSample('not-a-date'));
    expect(await count(`SELECT count(*)::int AS n FROM admin.health_sample`)).toBe(10);
    firstRun = await jobs.execute();
  });

  it('the roll-up moves every sample into the daily counts and drops the days past 400', async () => {
    expect(firstRun.moved).toBe(10);
    expect(firstRun.removedDays).toBe(10); // 2025-01-01: the service and its nine parts
    expect(await count(`SELECT count(*)::int AS n FROM admin.health_sample`)).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM admin.health_daily WHERE day < '2025-11-16'`)).toBe(0);
    const rows = (await dataSource.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, part, samples, up, degraded, down FROM admin.health_daily WHERE day = '2026-11-21' AND part IN ('service', 'object_store', 'database') ORDER BY part`,
    )) as unknown[];
    expect(rows).toEqual([
      { day: '2026-11-21', part: 'database', samples: 4, up: 4, degraded: 0, down: 0 },
      { day: '2026-11-21', part: 'object_store', samples: 4, up: 3, degraded: 0, down: 1 },
      { day: '2026-11-21', part: 'service', samples: 4, up: 3, degraded: 1, down: 0 },
    ]);
  });

  it('answers the last days newest first with per-day counts and uptime ratio, null without samples', async () => {
    const answer = await history(4);
    expect(answer.days).toEqual([
      { day: '2026-11-21', samples: 4, ok: 3, degraded: 1, down: 0, uptime_ratio: 0.75 },
      { day: '2026-11-20', samples: 2, ok: 1, degraded: 0, down: 1, uptime_ratio: 0.5 },
      { day: '2026-11-19', samples: 0, ok: 0, degraded: 0, down: 0, uptime_ratio: null },
      { day: '2026-11-18', samples: 2, ok: 0, degraded: 0, down: 2, uptime_ratio: 0 },
    ]);
    expect(answer.parts.find((p) => p.part === 'database')!.days).toEqual([
      { day: '2026-11-21', samples: 4, up: 4, down: 0, uptime_ratio: 1 },
      { day: '2026-11-20', samples: 2, up: 1, down: 1, uptime_ratio: 0.5 },
      { day: '2026-11-19', samples: 0, up: 0, down: 0, uptime_ratio: null },
      // the samples without parts count for the whole service only: no data per part
      { day: '2026-11-18', samples: 0, up: 0, down: 0, uptime_ratio: null },
    ]);
    expect(answer.parts.find((p) => p.part === 'object_store')!.days[0]).toEqual({ day: '2026-11-21', samples: 4, up: 3, down: 1, uptime_ratio: 0.75 });
  });

  it('is idempotent: a second run moves nothing and changes nothing; later samples are added to their day', async () => {
    const before = await history(400);
    expect(await jobs.execute()).toEqual({ moved: 0, removedDays: 0 });
    expect(await history(400)).toEqual(before);
    await admin.healthSample(makeHealthSample('2026-11-21T10:02:00.000Z', 'ok', up({ worker: 'down' })));
    expect(await jobs.execute()).toEqual({ moved: 1, removedDays: 0 });
    const after = await history(1);
    expect(after.days[0]).toMatchObject({ samples: 5, ok: 4 });
    expect(after.parts.find((p) => p.part === 'worker')!.days[0]).toEqual({ day: '2026-11-21', samples: 5, up: 4, down: 1, uptime_ratio: 0.8 });
  });

  it('defaults to 90 days and reaches back up to 400', async () => {
    const dflt = await history();
    expect(dflt.days).toHaveLength(90);
    expect(dflt.days.find((d) => d.day === '2026-01-01')).toBeUndefined();
    const long = await history(400);
    expect(long.days).toHaveLength(400);
    expect(long.days.find((d) => d.day === '2026-01-01')).toMatchObject({ samples: 1, ok: 1, uptime_ratio: 1 });
    expect(long.days.reduce((sum, d) => sum + d.samples, 0)).toBe(10);
    for (const part of long.parts) expect(part.days).toHaveLength(400);
  });
});

describe('usage counters', () => {
  const CHECK = '/firmware/{domain}/{hw_name}/{hw_version}/{fw_name}/{fw_version}';
  /** An entry on a day of its own in 2025 (no other test stores there), of customer `domain`. */
  const on = (ts: string, method: string, route: string, status: number, domain: string | null = 'count.example', refusal?: string) =>
    makeRequestLogEntry({ ts, method, route, status, domain, ...(refusal ? { refusal } : {}) });
  const DAY1 = '2025-03-10';
  const DAY2 = '2025-03-11';
  const counters = (days: StatsDay[]) => days.map(({ day, ...counts }) => [day, counts]);

  it('counts every request, errors from 400 up, and each kind of work only when it succeeded, per UTC day and customer, at once and once', async () => {
    const at = `${DAY1}T10:00:00.000Z`;
    const entries = [
      on(at, 'GET', '/firmware', 200),
      on(at, 'GET', '/firmware', 404),
      on(at, 'GET', '/firmware', 499),
      on(at, 'PUT', '/firmware/{hw_name}/{hw_version}/{fw_name}', 201),
      on(at, 'PUT', '/firmware', 200),
      on(at, 'PUT', '/firmware', 413),
      on(at, 'PUT', '/logdata/{name}', 201),
      on(at, 'GET', '/firmware/{id}/binary', 302),
      on(at, 'GET', '/firmware/{id}/notes', 302),
      on(at, 'GET', '/logdata/{name}', 302),
      on(at, 'HEAD', '/logdata/{name}', 200),
      on(at, 'GET', CHECK, 200),
      on(at, 'GET', `${CHECK}/{hwid}`, 304),
      on(at, 'GET', CHECK, 429),
      // the last millisecond of the day, and the first of the next (UTC)
      on(`${DAY1}T23:59:59.999Z`, 'GET', CHECK, 200),
      on(`${DAY2}T00:00:00.000Z`, 'GET', CHECK, 200),
    ];
    const batch = { batch_id: randomUUID(), entries };
    const service = requestLogIngest(moduleRef.get(StoreRequestLog));
    const stats = moduleRef.get(AdminStore).repos.stats;
    const expected = [
      [
        DAY1,
        { requests: 15, errors: 4, firmware_uploads: 2, logdata_uploads: 1, firmware_downloads: 1, notes_downloads: 1, logdata_downloads: 1, update_checks: 3 },
      ],
      [
        DAY2,
        { requests: 1, errors: 0, firmware_uploads: 0, logdata_uploads: 0, firmware_downloads: 0, notes_downloads: 0, logdata_downloads: 0, update_checks: 1 },
      ],
    ];
    expect(await service.storeOnce(batch)).toEqual({ stored: entries.length });
    // before the fold: the summaries sum the batch's stored entries
    expect(counters(await stats.days(DAY1, DAY2, 'count.example'))).toEqual(expected);
    await moduleRef.get(UsageRollup).run();
    const [{ unfolded }] = await dataSource.query<Array<{ unfolded: number }>>(`SELECT count(*)::int AS unfolded FROM admin.usage_unfolded`);
    expect(unfolded).toBe(0);
    expect(counters(await stats.days(DAY1, DAY2, 'count.example'))).toEqual(expected);
    // sent again (its reply lost): skipped, counted once
    expect(await service.storeOnce(batch)).toEqual({ stored: 0 });
    await moduleRef.get(UsageRollup).run();
    expect(counters(await stats.days(DAY1, DAY2, 'count.example'))).toEqual(expected);
  });

  it('notes a batch whose entries lie far apart as a time range each, and counts every entry once', async () => {
    const service = requestLogIngest(moduleRef.get(StoreRequestLog));
    const entries = [
      on(`${DAY1}T08:00:00.000Z`, 'GET', CHECK, 200, 'apart.example'),
      on(`${DAY1}T08:00:30.000Z`, 'GET', CHECK, 200, 'apart.example'),
      on(`${DAY2}T20:00:00.000Z`, 'GET', CHECK, 500, 'apart.example'), // a gateway clock that stepped
      on(`${DAY1}T08:01:00.000Z`, 'GET', CHECK, 304, 'apart.example'),
    ];
    await service.storeOnce({ batch_id: randomUUID(), entries });
    const notes = await dataSource.query<Array<{ first_ts: Date; last_ts: Date }>>(
      `SELECT first_ts, last_ts FROM admin.usage_unfolded u WHERE EXISTS (SELECT 1 FROM admin.request_log r WHERE r.batch = u.batch AND r.domain = 'apart.example') ORDER BY first_ts`,
    );
    expect(notes.map((n) => [n.first_ts.toISOString(), n.last_ts.toISOString()])).toEqual([
      [`${DAY1}T08:00:00.000Z`, `${DAY1}T08:01:00.000Z`],
      [`${DAY2}T20:00:00.000Z`, `${DAY2}T20:00:00.000Z`],
    ]);
    const stats = moduleRef.get(AdminStore).repos.stats;
    const of = async () => (await stats.days(DAY1, DAY2, 'apart.example')).map((d) => [d.day, d.requests, d.errors, d.update_checks]);
    const expected = [
      [DAY1, 3, 0, 3],
      [DAY2, 1, 1, 0],
    ];
    expect(await of()).toEqual(expected);
    await moduleRef.get(UsageRollup).run();
    expect(await of()).toEqual(expected);
  });

  it('charges no customer for requests without one or naming one refused as not found; a batch without an id counts too', async () => {
    const at = `${DAY1}T11:00:00.000Z`;
    const service = requestLogIngest(moduleRef.get(StoreRequestLog));
    await service.store({ entries: [on(at, 'GET', '/firmware', 200, 'charged.example'), on(at, 'GET', '/firmware', 401, null)] });
    await service.storeOnce({ batch_id: randomUUID(), entries: [on(at, 'GET', '/firmware', 404, 'gone.example', REFUSAL_CUSTOMER_NOT_FOUND)] });
    const stats = moduleRef.get(AdminStore).repos.stats;
    const of = async (domain: string) => (await stats.days(DAY1, DAY1, domain)).map((d) => [d.requests, d.errors]);
    for (const fold of [false, true]) {
      if (fold) await moduleRef.get(UsageRollup).run();
      expect(await of('charged.example')).toEqual([[1, 0]]);
      expect(await of(NO_CUSTOMER)).toEqual([[2, 2]]);
      expect(await of('gone.example')).toEqual([]);
    }
  });
});

describe('migrations', () => {
  it('reverts cleanly (down) — runs last', async () => {
    await moduleRef.close();
    await closeDatabases();
    // Every migration, newest first.
    for (const migration of [...ADMIN_DATABASE.migrations].reverse()) expect(await revertLastMigration(throwaway.config, ADMIN_DATABASE)).toBe(migration.name);
    const check = await openAppDatabase(throwaway.config, { ...ADMIN_DATABASE, migrate: false });
    const [row] = (await check.query(
      `SELECT to_regclass('admin.request_log')::text AS request_log, to_regclass('admin.health_sample')::text AS health_sample,
              to_regclass('admin.health_daily')::text AS health_daily`,
    )) as [Record<string, string | null>];
    expect(row).toEqual({ request_log: null, health_sample: null, health_daily: null });
  });
});
