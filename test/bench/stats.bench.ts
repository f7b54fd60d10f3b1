// npm run bench:stats — the request log at fleet scale, on PostgreSQL (the medium tests' server:
// a throwaway database). Loads BENCH_ROWS (default 1000000,10000000: the table grows to each size
// in turn) request-log entries spread over 30 days, in time order, in gateway-sized batches
// (BENCH_BATCH, default 500 like a gateway's) through the admin app's own store, the code that
// takes a gateway's batch (StoreRequestLog, the handler's use case: entries checked, then in one transaction
// the batch id claimed, the batch noted for the usage fold, its successful update checks stored
// in bulk (a row per batch and day) and the other entries COPYed into the day partitions with
// every index; the fold summing the batches into the daily counters in the background), and
// measures at each size:
//   - ingest rows/s, against the same rows COPYed into an unindexed table right after each batch
//     (the baseline, in the same run); with BENCH_INDEXED=1 also a plain COPY of every entry into
//     a table partitioned and indexed as the request log's rows (growing with it), nothing else
//     (off by default: its indexes compete with the store's for the server's cache);
//   - p50/p99 of the 30-day summary (all customers, and one customer) read from the counters;
//   - p50/p99 of filtered event queries (every filter; 7 days, limit 100).
// BENCH_KEEP=1 keeps the throwaway database (its address printed) to look at query plans.
// Targets: summary < 50 ms and event query < 100 ms at p99 at both sizes; ingest >= half the baseline.
import { performance } from 'node:perf_hooks';
import { closeDatabases, configureLogging, copyRows, type CopyValue, openAppDatabase } from '@app/infra';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { ADMIN_DATABASE } from '../../apps/admin/src/admin.module.js';
import type { RequestLogRow } from '../../apps/admin/src/dtos/request-log-entry.js';
import { AdminStore } from '../../apps/admin/src/repositories/admin.store.js';
import { RequestLogPartitionRepository } from '../../apps/admin/src/repositories/request-log-partitions.repository.js';
import { type RequestLogFilter, StatsRepository } from '../../apps/admin/src/repositories/stats.repository.js';
import { UsageRollup } from '../../apps/admin/src/stats/usage-rollup.service.js';
import { FoldUsageCounters } from '../../apps/admin/src/use-cases/fold-usage-counters/fold-usage-counters.usecase.js';
import { StoreRequestLog } from '../../apps/admin/src/use-cases/store-request-log/store-request-log.usecase.js';
import { FakeJobQueue } from '../../apps/identity/test/fakes.js';
import { requestLogIngest } from '../medium/admin.support.js';
import { createThrowaway } from '../medium/logdata.support.js';

configureLogging({ sink: () => undefined });

const SIZES = (process.env.BENCH_ROWS ?? '1000000,10000000').split(',').map(Number);
const BATCH = Number(process.env.BENCH_BATCH ?? 500);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 50);
const INDEXED = process.env.BENCH_INDEXED === '1';
const DAYS = 30;
const DAY_MS = 86_400_000;
const CUSTOMERS = 1000;
const ADDRESSES = 200_000;
const END = Math.floor(Date.now() / DAY_MS) * DAY_MS + DAY_MS; // end of today (UTC)
const START = END - DAYS * DAY_MS;

const CHECK = '/firmware/{domain}/{hw_name}/{hw_version}/{fw_name}/{fw_version}/{hwid}';
const BASELINE = {
  schema: 'admin',
  table: 'request_log_baseline',
  columns: ['ts', 'domain', 'actor', 'method', 'route', 'path', 'status', 'ip', 'user_agent', 'bytes_in', 'bytes_out', 'duration_ms', 'request_id', 'refusal'],
} as const;

/** A cheap deterministic generator (the same rows every run). */
let seed = 42;
function random(): number {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
}
const domainOf = (i: number) => `c${i}.example`;
const ipOf = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

/** Entry `i` of a pass of `n` over the 30 days: mostly update checks, some API calls, a few refusals. */
function entry(i: number, n: number, pass: number): RequestLogRow {
  const ts = new Date(START + Math.floor(((i + random()) / n) * (DAYS * DAY_MS - 1))).toISOString();
  const customer = Math.floor(random() ** 2 * CUSTOMERS); // a few big customers, many small
  const r = random();
  const api = r < 0.1;
  const status = r < 0.005 ? 404 : r < 0.006 ? 429 : r < 0.0065 ? 500 : r < 0.3 ? 304 : 200;
  return {
    ts,
    domain: r < 0.003 ? null : domainOf(customer),
    actor: api ? `token:${customer}` : null,
    method: 'GET',
    route: api ? '/firmware/{id}/binary' : CHECK,
    path: api ? `/firmware/${i}/binary` : `/firmware/${domainOf(customer)}/hw/1/fw/1.0.${pass}/${i % 100000}`,
    status: api && status === 304 ? 302 : status,
    ip: ipOf(Math.floor(random() * ADDRESSES)),
    user_agent: 'device/1.0',
    bytes_in: 0,
    bytes_out: 512,
    duration_ms: 3,
    request_id: `${pass}-${i}`,
    refusal: null,
  };
}

/** A row's values in the order of BASELINE.columns. */
function baselineValues(r: RequestLogRow): CopyValue[] {
  return [
    r.ts,
    r.domain,
    r.actor,
    r.method,
    r.route,
    r.path,
    r.status,
    r.ip,
    r.user_agent,
    r.bytes_in,
    r.bytes_out,
    r.duration_ms,
    r.request_id,
    r.refusal ?? null,
  ];
}

/** The ms a plain COPY of `rows` into admin.`table` (BASELINE's columns) takes. */
async function timedCopy(dataSource: DataSource, table: string, rows: readonly RequestLogRow[]): Promise<number> {
  const started = performance.now();
  await copyRows(dataSource, { ...BASELINE, table }, rows.map(baselineValues));
  return performance.now() - started;
}

function percentiles(ms: number[]): { p50: number; p99: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { p50: at(0.5), p99: at(0.99) };
}

async function timed(run: (i: number) => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  await run(0); // warm
  const ms: number[] = [];
  for (let i = 0; i < QUERIES; i++) {
    const t = performance.now();
    await run(i);
    ms.push(performance.now() - t);
  }
  return percentiles(ms);
}

const fmt = (n: number) => n.toFixed(1).padStart(7);

async function main(): Promise<void> {
  const throwaway = await createThrowaway('benchstats');
  const dataSource = await openAppDatabase(throwaway.config, ADMIN_DATABASE);
  try {
    const rollup = new UsageRollup(new FoldUsageCounters(new AdminStore(dataSource)), new FakeJobQueue());
    const store = requestLogIngest(new StoreRequestLog(new AdminStore(dataSource), rollup));
    const stats = new StatsRepository(dataSource.manager);
    const partitions = new RequestLogPartitionRepository(dataSource.manager);
    for (let d = 0; d <= DAYS + 1; d++) await partitions.create(new Date(START + d * DAY_MS));
    await dataSource.query(`CREATE TABLE admin.request_log_baseline (LIKE admin.request_log INCLUDING DEFAULTS)`);
    if (INDEXED) {
      await dataSource.query(`CREATE TABLE admin.request_log_indexed (LIKE admin.request_log INCLUDING DEFAULTS INCLUDING INDEXES) PARTITION BY RANGE (ts)`);
      for (let d = 0; d <= DAYS + 1; d++) {
        const [from, to] = [new Date(START + d * DAY_MS).toISOString(), new Date(START + (d + 1) * DAY_MS).toISOString()];
        await dataSource.query(`CREATE TABLE admin.request_log_indexed_${d} PARTITION OF admin.request_log_indexed FOR VALUES FROM ('${from}') TO ('${to}')`);
      }
    }
    const [{ server_version: version }] = await dataSource.query<Array<{ server_version: string }>>(`SHOW server_version`);
    console.log(`bench:stats  PostgreSQL ${version}, batches of ${BATCH}, ${DAYS} days, ${CUSTOMERS} customers, ${QUERIES} queries each`);

    let stored = 0;
    let pass = 0;
    for (const size of SIZES) {
      const n = size - stored;
      if (n <= 0) continue;
      pass++;
      let ingestMs = 0;
      let baselineMs = 0;
      let indexedMs = 0;
      for (let i = 0; i < n; i += BATCH) {
        const rows: RequestLogRow[] = [];
        for (let j = i; j < Math.min(n, i + BATCH); j++) rows.push(entry(j, n, pass));
        const t = performance.now();
        await store.storeOnce({ batch_id: randomUUID(), entries: rows });
        ingestMs += performance.now() - t;
        baselineMs += await timedCopy(dataSource, BASELINE.table, rows);
        if (INDEXED) indexedMs += await timedCopy(dataSource, 'request_log_indexed', rows);
      }
      const tail = performance.now();
      await rollup.run(); // the last second's counters, as the next batch or the scheduled job would
      ingestMs += performance.now() - tail;
      stored = size;
      // What the server's autovacuum and the hourly retention job do to the days that are over.
      await dataSource.query(`ANALYZE admin.request_log, admin.request_log_bulk`);
      await partitions.settleBulkIndexes(new Date(END - DAY_MS));
      await dataSource.query(`TRUNCATE admin.request_log_baseline`); // only its ingest rate matters

      const ingest = n / (ingestMs / 1000);
      const baseline = n / (baselineMs / 1000);
      const indexed = n / (indexedMs / 1000);
      const from = new Date(END - DAYS * DAY_MS).toISOString().slice(0, 10);
      const to = new Date(END - 1).toISOString().slice(0, 10);
      const week = (extra: Partial<RequestLogFilter>): RequestLogFilter => ({
        from: new Date(END - 7 * DAY_MS),
        to: new Date(END),
        limit: 100,
        offset: 0,
        ...extra,
      });
      const results: Array<[string, { p50: number; p99: number }, number]> = [
        ['summary, 30 days, all customers', await timed(() => stats.summary(from, to)), 50],
        ['summary, 30 days, one customer', await timed((i) => stats.days(from, to, domainOf(i % CUSTOMERS))), 50],
        ['events: domain (biggest customer)', await timed(() => stats.events(week({ domain: domainOf(0) }))), 100],
        ['events: domain (any customer)', await timed((i) => stats.events(week({ domain: domainOf((i * 37) % CUSTOMERS) }))), 100],
        ['events: ip', await timed((i) => stats.events(week({ ip: ipOf((i * 7919) % ADDRESSES) }))), 100],
        ['events: route + status', await timed(() => stats.events(week({ route: '/firmware/{id}/binary', status: 404 }))), 100],
        ['events: status (rare)', await timed(() => stats.events(week({ status: 500 }))), 100],
        ['events: status (bulk, 200)', await timed((i) => stats.events(week({ status: 200, offset: (i % 5) * 100 }))), 100],
        ['events: route (bulk, update check)', await timed(() => stats.events(week({ route: CHECK }))), 100],
        ['events: route + status (bulk)', await timed(() => stats.events(week({ route: CHECK, status: 304 }))), 100],
        ['events: time range only', await timed(() => stats.events(week({}))), 100],
        ['events: (none)', await timed(() => stats.events(week({ domain: '(none)' }))), 100],
        ['events: domain + status, page 3', await timed((i) => stats.events(week({ domain: domainOf(i % 20), status: 200, offset: 200 }))), 100],
      ];
      console.log(`\n  ${size.toLocaleString('en')} rows`);
      console.log(
        `    ingest  ${Math.round(ingest).toLocaleString('en')} rows/s   baseline (COPY, unindexed) ${Math.round(baseline).toLocaleString('en')} rows/s   ratio ${(ingest / baseline).toFixed(2)} (target >= 0.50)`,
      );
      if (INDEXED)
        console.log(
          `    the indexes alone: COPY into the same partitions and indexes ${Math.round(indexed).toLocaleString('en')} rows/s   ratio ${(indexed / baseline).toFixed(2)} of the baseline`,
        );
      for (const [label, { p50, p99 }, target] of results) {
        console.log(`    ${label.padEnd(38)} p50 ${fmt(p50)} ms   p99 ${fmt(p99)} ms   ${p99 < target ? 'ok' : 'OVER'} (< ${target} ms)`);
      }
    }
  } finally {
    await dataSource.destroy().catch(() => undefined);
    await closeDatabases();
    if (process.env.BENCH_KEEP) console.log('kept', throwaway.config.databaseUrl ?? throwaway.config);
    else await throwaway.dispose();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
