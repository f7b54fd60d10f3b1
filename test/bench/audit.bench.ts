import { performance } from 'node:perf_hooks';
import { closeDatabases, configureLogging, copyRows, type CopyValue, openAppDatabase } from '@app/infra';
import { type AuditPage, type AuditQuery, type CustomerAuditQuery, type CustomerRef, IdentityMessages, SERVICE_ADMINISTRATOR } from '@app/contracts';
import { randomUUID } from 'node:crypto';
import { ADMIN_DATABASE } from '../../apps/admin/src/admin.module.js';
import { AdminStore } from '../../apps/admin/src/repositories/admin.store.js';
import { AuditLogFilters1765060000000 } from '../../apps/admin/src/migrations/1765060000000-audit-log-filters.js';
import { ListAuditCommand } from '../../apps/admin/src/use-cases/list-audit/list-audit.command.js';
import { ListAudit } from '../../apps/admin/src/use-cases/list-audit/list-audit.usecase.js';
import { FakeBus } from '../../apps/identity/test/fakes.js';
import { createThrowaway } from '../medium/logdata.support.js';

/**
 * bench:audit: a filtered page of the audit log (GET /admin/audit, GET /audit) at
 * BENCH_ENTRIES entries (default 10,000,000), through the ListAudit use case on real PostgreSQL
 * (identity's email look-up answered in-process). Loads the entries with COPY into the table
 * without indexes, builds the indexes (the ones before the filter migration, then the
 * migration's own: both timed), then prints p50/p99 of BENCH_QUERIES pages of 100 for each
 * filter, and of deep pages by offset and by cursor. Figures only: nothing is asserted.
 */

configureLogging({ sink: () => undefined });

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 10_000_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 50);
const CHUNK = 100_000;
const DAYS = 365;
const DAY_MS = 86_400_000;
const CUSTOMERS = 1000;
const END = Math.floor(Date.now() / DAY_MS) * DAY_MS;
const START = END - DAYS * DAY_MS;

const COLUMNS = { schema: 'admin', table: 'audit_log', columns: ['ts', 'domain', 'actor', 'action', 'target_type', 'target_id', 'before', 'after'] } as const;

/** Actions by share of the log: [action, target type, share]. A busy service is mostly device changes. */
const ACTIONS: ReadonlyArray<readonly [string, string, number]> = [
  ['device.update', 'device', 0.42],
  ['device.create', 'device', 0.15],
  ['device.tags', 'device', 0.12],
  ['firmware.create', 'firmware', 0.1],
  ['firmware.update', 'firmware', 0.06],
  ['logdata.create', 'logdata', 0.08],
  ['tag.update', 'tag', 0.03],
  ['token.create', 'token', 0.02],
  ['token.revoke', 'token', 0.01],
  ['member.invite', 'member', 0.004],
  ['member.update', 'member', 0.003],
  ['customer.update', 'customer', 0.002],
  ['ip_block.create', 'ip_block', 0.001],
];
const ADMINS = Array.from({ length: 10 }, () => randomUUID());
const PEOPLE_PER_CUSTOMER = 5;
const peopleOf = new Map<number, string[]>();
const person = (customer: number, k: number): string => {
  let people = peopleOf.get(customer);
  if (!people) peopleOf.set(customer, (people = Array.from({ length: PEOPLE_PER_CUSTOMER }, () => randomUUID())));
  return people[k % PEOPLE_PER_CUSTOMER];
};

/** A deterministic generator (mulberry32: consecutive values uncorrelated, the same log every run). */
let seed = 42;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const domainOf = (i: number) => `c${i}.example`;

function pickAction(): readonly [string, string] {
  let r = random();
  for (const [action, type, share] of ACTIONS) {
    if ((r -= share) < 0) return [action, type];
  }
  return ['device.update', 'device'];
}

/** Entry `i` of `n`, in time order over DAYS: a few big customers, many small; 2 % by administrators, 1 % of no customer. */
function entry(i: number, n: number): CopyValue[] {
  const ts = new Date(START + Math.floor(((i + random()) / n) * (DAYS * DAY_MS - 1))).toISOString();
  const customer = Math.floor(random() ** 2 * CUSTOMERS);
  const r = random();
  const [action, targetType] = pickAction();
  const actor =
    r < 0.02
      ? `admin:user:${ADMINS[Math.floor(random() * ADMINS.length)]}`
      : r < 0.3
        ? `token:${customer}-${Math.floor(random() * 3)}`
        : `user:${person(customer, Math.floor(random() * 5))}`;
  const targetId = targetType === 'device' ? `hw-${customer}-${Math.floor(random() * 20_000)}` : `${targetType}-${customer}-${Math.floor(random() * 500)}`;
  return [
    ts,
    r > 0.99 ? null : domainOf(customer),
    actor,
    action,
    targetType,
    targetId,
    action.endsWith('.create') ? null : JSON.stringify({ n: i % 1000 }),
    JSON.stringify({ n: i }),
  ];
}

function percentiles(ms: number[]): { p50: number; p99: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { p50: at(0.5), p99: at(0.99) };
}

async function timed(run: (i: number) => Promise<AuditPage>): Promise<{ p50: number; p99: number; items: number }> {
  const first = await run(0); // warm
  const ms: number[] = [];
  for (let i = 0; i < QUERIES; i++) {
    const t = performance.now();
    await run(i);
    ms.push(performance.now() - t);
  }
  return { ...percentiles(ms), items: first.items.length };
}

const fmt = (n: number) => n.toFixed(1).padStart(8);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function main(): Promise<void> {
  const throwaway = await createThrowaway('benchaudit');
  const dataSource = await openAppDatabase(throwaway.config, ADMIN_DATABASE);
  try {
    const [{ server_version: version }] = await dataSource.query<Array<{ server_version: string }>>(`SHOW server_version`);
    console.log(
      `bench:audit  PostgreSQL ${version}, ${ENTRIES.toLocaleString('en')} entries over ${DAYS} days, ${CUSTOMERS} customers, ${QUERIES} pages of 100 each`,
    );

    // Load without indexes (as a restore would), then build them: the earlier ones, then the migration's.
    const filters = new AuditLogFilters1765060000000();
    const runner = dataSource.createQueryRunner();
    await filters.down(runner);
    const earlier = await dataSource.query<Array<{ name: string; definition: string }>>(
      `SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
        WHERE i.schemaname = 'admin' AND i.tablename = 'audit_log' AND i.indexname <> 'audit_log_pkey'`,
    );
    for (const { name } of earlier) await dataSource.query(`DROP INDEX admin.${name}`);
    const loadStarted = performance.now();
    for (let i = 0; i < ENTRIES; i += CHUNK) {
      const rows: CopyValue[][] = [];
      for (let j = i; j < Math.min(ENTRIES, i + CHUNK); j++) rows.push(entry(j, ENTRIES));
      await copyRows(dataSource, COLUMNS, rows);
    }
    const loadMs = performance.now() - loadStarted;
    await dataSource.query(`SET maintenance_work_mem = '512MB'`);
    let started = performance.now();
    for (const { definition } of earlier) await dataSource.query(definition);
    const earlierMs = performance.now() - started;
    started = performance.now();
    await filters.up(runner);
    const migrationMs = performance.now() - started;
    await runner.release();
    await dataSource.query(`VACUUM ANALYZE admin.audit_log`);
    const [{ table, indexes }] = await dataSource.query<Array<{ table: string; indexes: string }>>(
      `SELECT pg_size_pretty(pg_table_size('admin.audit_log')) AS table, pg_size_pretty(pg_indexes_size('admin.audit_log')) AS indexes`,
    );
    console.log(
      `  loaded with COPY in ${seconds(loadMs)}; the ${earlier.length} earlier indexes built in ${seconds(earlierMs)}, the filter migration's 8 in ${seconds(migrationMs)}; table ${table}, indexes ${indexes}`,
    );

    const bus = new FakeBus();
    bus.respond(IdentityMessages.userEmails, ({ ids }) => ({ emails: Object.fromEntries(ids.map((id) => [id, `${id.slice(0, 8)}@people.example`])) }));
    const audit = new ListAudit(new AdminStore(dataSource), bus);
    const admin = (query: Partial<AuditQuery>) => audit.execute(ListAuditCommand.forAdministrators({ limit: 100, offset: 0, ...query }));
    const customer = (domain: string, query: Partial<CustomerAuditQuery>) =>
      audit.execute(ListAuditCommand.forCustomer({ id: randomUUID(), domain, isSandbox: false } as CustomerRef, { limit: 100, offset: 0, ...query }));
    const any = (i: number) => domainOf((i * 37) % CUSTOMERS);
    const day = (i: number) => new Date(START + ((i * 7) % DAYS) * DAY_MS).toISOString().slice(0, 10);
    /** The next_cursor of the page that ends `depth` entries into a list: what a client paging with cursors holds at that depth. */
    const cursorAt = async (depth: number, query: Partial<AuditQuery>) => (await admin({ ...query, limit: 1, offset: depth - 1 })).next_cursor ?? undefined;
    const deep: Array<[number, string | undefined]> = [];
    for (const depth of [10_000, 100_000, 1_000_000]) deep.push([depth, await cursorAt(depth, {})]);
    // Targets that exist: device ids of the 20 biggest customers, sampled from the log.
    const devices = (
      await dataSource.query<Array<{ target_id: string }>>(
        `SELECT target_id FROM admin.audit_log TABLESAMPLE SYSTEM (1) WHERE target_type = 'device' AND domain = ANY($1) LIMIT ${QUERIES + 1}`,
        [Array.from({ length: 20 }, (_, i) => domainOf(i))],
      )
    ).map((row) => row.target_id);
    const device = (i: number) => devices[i % devices.length];
    const domainOfDevice = (i: number) => domainOf(Number(device(i).split('-')[1]));
    const [busiest] = await dataSource.query<Array<{ actor: string }>>(
      `SELECT actor FROM admin.audit_log WHERE domain = $1 AND actor LIKE 'user:%' GROUP BY actor ORDER BY count(*) DESC LIMIT 1`,
      [domainOf(0)],
    );

    const results: Array<[string, { p50: number; p99: number; items: number }]> = [
      ['GET /admin/audit, no filter (newest page)', await timed(() => admin({}))],
      ['domain (the biggest customer)', await timed(() => admin({ domain: domainOf(0) }))],
      ['domain (any customer)', await timed((i) => admin({ domain: any(i) }))],
      ['action (common: device.update)', await timed(() => admin({ action: 'device.update' }))],
      ['action (rare: ip_block.create)', await timed(() => admin({ action: 'ip_block.create' }))],
      ['actor (a person of the biggest customer)', await timed(() => admin({ actor: busiest.actor }))],
      ['actor (an administrator)', await timed((i) => admin({ actor: `admin:user:${ADMINS[i % ADMINS.length]}` }))],
      ['target_type (rare: customer)', await timed(() => admin({ target_type: 'customer' }))],
      ['target_id (one device)', await timed((i) => admin({ target_id: device(i) }))],
      ['target_type + target_id', await timed((i) => admin({ target_type: 'device', target_id: device(i) }))],
      ['from + to (one day)', await timed((i) => admin({ from: day(i), to: day(i) }))],
      ['domain + action (rare)', await timed((i) => admin({ domain: domainOf(i % 20), action: 'member.invite' }))],
      ['domain + actor', await timed(() => admin({ domain: domainOf(0), actor: busiest.actor }))],
      ['domain + target_type (rare)', await timed((i) => admin({ domain: domainOf(i % 20), target_type: 'member' }))],
      ['domain + from + to (one day)', await timed((i) => admin({ domain: domainOf(i % 20), from: day(i), to: day(i) }))],
      ['action + actor', await timed(() => admin({ action: 'token.create', actor: busiest.actor }))],
      ['GET /audit, no filter (biggest customer)', await timed(() => customer(domainOf(0), {}))],
      ['GET /audit, action (any customer)', await timed((i) => customer(any(i), { action: 'device.create' }))],
      ['GET /audit, actor=service administrator', await timed((i) => customer(domainOf(i % 20), { actor: SERVICE_ADMINISTRATOR }))],
      ['GET /audit, target_id', await timed((i) => customer(domainOfDevice(i), { target_id: device(i) }))],
    ];
    for (const [depth, cursor] of deep) {
      results.push([`deep page by offset (${depth.toLocaleString('en')})`, await timed(() => admin({ offset: depth }))]);
      results.push([`deep page by cursor (${depth.toLocaleString('en')})`, await timed(() => admin({ cursor }))]);
    }
    const deepFiltered = await cursorAt(100_000, { action: 'device.update' });
    results.push(['action, deep page by offset (100,000)', await timed(() => admin({ action: 'device.update', offset: 100_000 }))]);
    results.push(['action, deep page by cursor (100,000)', await timed(() => admin({ action: 'device.update', cursor: deepFiltered }))]);

    console.log(`\n  a page of 100 (ms)${' '.repeat(30)}p50        p99   entries`);
    for (const [label, { p50, p99, items }] of results) console.log(`    ${label.padEnd(44)} ${fmt(p50)}   ${fmt(p99)}   ${String(items).padStart(5)}`);
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
