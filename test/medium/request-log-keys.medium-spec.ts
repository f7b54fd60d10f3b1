import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { closeDatabases, configureLogging, openAppDatabase, revertLastMigration } from '@app/infra';
import { DataSource } from 'typeorm';
import { ADMIN_DATABASE } from '../../apps/admin/src/admin.module.js';
import { RequestLogRepository } from '../../apps/admin/src/repositories/request-log.repository.js';
import { RequestLogPartitionRepository } from '../../apps/admin/src/stats/request-log-partitions.repository.js';
import { type RequestLogFilter, StatsRepository } from '../../apps/admin/src/stats/stats.repository.js';
import { makeRequestLogEntry } from '../../apps/admin/test/factories.js';
import { createThrowaway, type Throwaway } from './logdata.support.js';

/**
 * The request log's domain and address filters through hashed keys (migration
 * RequestLogHashedKeys, docs/performance.md "The request-log ingest"): each reads its index
 * newest first, the real value is rechecked (no other domain's or address's entries), `(none)`
 * reads the key of a missing domain, and the migration's down brings the text indexes back.
 */

configureLogging({ sink: () => undefined });

const DAY_MS = 86_400_000;
const TODAY = Math.floor(Date.now() / DAY_MS) * DAY_MS;
const at = (minute: number) => new Date(TODAY + 12 * 3600_000 + minute * 60_000).toISOString();

let throwaway: Throwaway;
let dataSource: DataSource;
let stats: StatsRepository;

beforeAll(async () => {
  throwaway = await createThrowaway('rlkeys');
  dataSource = await openAppDatabase(throwaway.config, ADMIN_DATABASE);
  await new RequestLogPartitionRepository(dataSource).create(new Date(TODAY));
  const entries = [];
  for (let i = 0; i < 300; i++) {
    entries.push(makeRequestLogEntry({ ts: at(i % 200), domain: i % 3 === 0 ? null : `c${i % 7}.example`, ip: `192.0.2.${i % 50}`, request_id: `k-${i}` }));
  }
  await new RequestLogRepository(dataSource).insertBatch(entries);
  await dataSource.query(`ANALYZE admin.request_log`);
  stats = new StatsRepository(dataSource);
});

afterAll(async () => {
  await dataSource?.destroy().catch(() => undefined);
  await closeDatabases();
  await throwaway?.dispose();
});

const filter = (extra: Partial<RequestLogFilter>): RequestLogFilter => ({
  from: new Date(TODAY),
  to: new Date(TODAY + DAY_MS),
  limit: 1000,
  offset: 0,
  ...extra,
});

/** The plan of the events query for `extra`, with sequential scans and bitmap scans ruled out (a table this small would take them). */
async function planOf(extra: Partial<RequestLogFilter>): Promise<string> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    let captured: [string, unknown[]] | undefined;
    const probe = new StatsRepository({
      query: (sql: string, parameters: unknown[]) => {
        captured = [sql, parameters];
        return Promise.resolve([]);
      },
    } as unknown as DataSource);
    await probe.events(filter({ ...extra, limit: 10 }));
    const [sql, parameters] = captured!;
    await runner.query(`SET enable_seqscan = off`);
    await runner.query(`SET enable_bitmapscan = off`);
    const rows = (await runner.query(`EXPLAIN ${sql}`, parameters)) as Array<{ 'QUERY PLAN': string }>;
    await runner.query(`RESET ALL`);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  } finally {
    await runner.release();
  }
}

describe('request-log keys', () => {
  it('finds exactly the entries of a domain, an address and (none), newest first', async () => {
    const domain = await stats.events(filter({ domain: 'c1.example' }));
    expect(domain.length).toBeGreaterThan(0);
    expect(domain.every((e) => e.domain === 'c1.example')).toBe(true);
    expect(domain.map((e) => e.ts)).toEqual([...domain.map((e) => e.ts)].sort().reverse());
    const address = await stats.events(filter({ ip: '192.0.2.7' }));
    expect(address).toHaveLength(6);
    expect(address.every((e) => e.ip === '192.0.2.7')).toBe(true);
    const none = await stats.events(filter({ domain: '(none)' }));
    expect(none).toHaveLength(100);
    expect(none.every((e) => e.domain === null)).toBe(true);
    expect(await stats.events(filter({ domain: '' }))).toEqual([]);
  });

  it('reads the hashed-key index for the domain, the address and (none), rechecking the value', async () => {
    expect(await planOf({ domain: 'c1.example' })).toMatch(/Index Scan Backward using request_log_p\d{8}_hashtextextended_ts_idx on[\s\S]*Filter: \(domain = /);
    expect(await planOf({ ip: '192.0.2.7' })).toMatch(/Index Scan Backward using request_log_p\d{8}_hashtextextended_ts_idx1 on[\s\S]*Filter: \(ip = /);
    expect(await planOf({ domain: '(none)' })).toMatch(
      /Index Scan Backward using request_log_p\d{8}_hashtextextended_ts_idx on[\s\S]*Filter: \(domain IS NULL\)/,
    );
  });

  it('reverts to the text indexes (down) — runs last', async () => {
    await dataSource.destroy();
    await closeDatabases();
    expect(await revertLastMigration(throwaway.config, ADMIN_DATABASE)).toBe('RequestLogHashedKeys1764900000000');
    const check = await openAppDatabase(throwaway.config, { ...ADMIN_DATABASE, migrate: false });
    try {
      const [row] = await check.query<Array<Record<string, string | null>>>(
        `SELECT to_regclass('admin.request_log_domain_ts_idx')::text AS domain, to_regclass('admin.request_log_ip_ts_idx')::text AS ip,
                to_regclass('admin.request_log_domain_key_ts_idx')::text AS domain_key, to_regclass('admin.request_log_ip_key_ts_idx')::text AS ip_key`,
      );
      expect(row).toEqual({ domain: 'admin.request_log_domain_ts_idx', ip: 'admin.request_log_ip_ts_idx', domain_key: null, ip_key: null });
    } finally {
      await check.destroy();
    }
    dataSource = await openAppDatabase(throwaway.config, ADMIN_DATABASE); // and up again
    const [{ keys }] = await dataSource.query<Array<{ keys: string | null }>>(`SELECT to_regclass('admin.request_log_domain_key_ts_idx')::text AS keys`);
    expect(keys).toBe('admin.request_log_domain_key_ts_idx');
  });
});
