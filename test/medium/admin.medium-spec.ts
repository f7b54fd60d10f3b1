import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { closeDatabases, configureLogging, JobQueue, MessageBus, openAppDatabase, revertLastMigration } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { DataSource } from 'typeorm';
import { ADMIN_CONTROLLERS, ADMIN_DATABASE, ADMIN_PROVIDERS } from '../../apps/admin/src/admin.module.js';
import { AdminController } from '../../apps/admin/src/controllers/admin.controller.js';
import { Clock } from '../../apps/admin/src/services/clock.js';
import { makeFixedClock, makeHealthSample, makeRequestLogEntry } from '../../apps/admin/test/factories.js';
import { FakeBus, FakeJobQueue } from '../../apps/identity/test/fakes.js';
import { createThrowaway, type Throwaway } from './logdata.support.js';

configureLogging({ sink: () => undefined });

const NOW = '2026-11-21T10:30:00.000Z';

let throwaway: Throwaway;
let dataSource: DataSource;
let moduleRef: TestingModule;
let admin: AdminController;

beforeAll(async () => {
  throwaway = await createThrowaway('admin');
  dataSource = await openAppDatabase(throwaway.config, ADMIN_DATABASE);
  moduleRef = await Test.createTestingModule({
    controllers: ADMIN_CONTROLLERS,
    providers: [
      ...ADMIN_PROVIDERS,
      { provide: DataSource, useValue: dataSource },
      { provide: MessageBus, useValue: new FakeBus() },
      { provide: JobQueue, useValue: new FakeJobQueue() },
      { provide: SERVICE_CONFIG, useValue: throwaway.config },
    ],
  })
    .overrideProvider(Clock)
    .useValue(makeFixedClock(NOW))
    .compile();
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
  beforeAll(async () => {
    const samples = [
      // today (UTC): 3 ok, 1 degraded
      makeHealthSample('2026-11-21T00:00:00.000Z'),
      makeHealthSample('2026-11-21T05:00:00.000Z'),
      makeHealthSample('2026-11-21T10:00:00.000Z'),
      makeHealthSample('2026-11-21T10:01:00.000Z', 'degraded'),
      // yesterday, counted by UTC day although sent with an offset: 1 ok, 1 down
      makeHealthSample('2026-11-20T23:59:59.999Z'),
      makeHealthSample('2026-11-21T01:00:00+02:00', 'down'),
      // 2026-11-19: nothing; 2026-11-18: 2 down
      makeHealthSample('2026-11-18T12:00:00Z', 'down'),
      makeHealthSample('2026-11-18T12:01:00Z', 'down'),
      // long ago: outside short windows
      makeHealthSample('2026-01-01T00:00:00Z'),
    ];
    await Promise.all(samples.map((s) => admin.healthSample(s)));
    await admin.healthSample(makeHealthSample('not-a-date'));
  });

  it('answers the last days newest first with per-day counts and uptime ratio, null without samples', async () => {
    const history = await admin.healthHistory({ ctx: {} as never, params: {}, query: { days: 4 }, body: undefined });
    expect(history).toEqual({
      days: [
        { day: '2026-11-21', samples: 4, ok: 3, degraded: 1, down: 0, uptime_ratio: 0.75 },
        { day: '2026-11-20', samples: 2, ok: 1, degraded: 0, down: 1, uptime_ratio: 0.5 },
        { day: '2026-11-19', samples: 0, ok: 0, degraded: 0, down: 0, uptime_ratio: null },
        { day: '2026-11-18', samples: 2, ok: 0, degraded: 0, down: 2, uptime_ratio: 0 },
      ],
    });
  });

  it('defaults to 90 days and reaches back up to 400', async () => {
    const dflt = await admin.healthHistory({ ctx: {} as never, params: {}, query: {}, body: undefined });
    expect(dflt.days).toHaveLength(90);
    expect(dflt.days.find((d) => d.day === '2026-01-01')).toBeUndefined();
    const long = await admin.healthHistory({ ctx: {} as never, params: {}, query: { days: 400 }, body: undefined });
    expect(long.days).toHaveLength(400);
    expect(long.days.find((d) => d.day === '2026-01-01')).toMatchObject({ samples: 1, ok: 1, uptime_ratio: 1 });
    expect(long.days.reduce((sum, d) => sum + d.samples, 0)).toBe(9);
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
      `SELECT to_regclass('admin.request_log')::text AS request_log, to_regclass('admin.health_sample')::text AS health_sample`,
    )) as [Record<string, string | null>];
    expect(row).toEqual({ request_log: null, health_sample: null });
  });
});
