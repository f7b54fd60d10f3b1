// npm run bench:devices — the device registry at fleet scale. In a throwaway database on the
// local PostgreSQL (BENCH_PG_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres) the
// service's own migrations create the schema (the standalone service is started on it, on a
// private NATS server), then 1,000,000 devices with tags are seeded for one customer (plus
// 200,000 for a neighbour) with set-based SQL. Measured: an import of 100,000 CSV rows through
// HTTP (new, unchanged, changed), the list filters through HTTP, and the lookup messages
// (RegistryMessages.lookupDevice, and lookupDevices with 50 HW ids, as the update check's
// DeviceDirectory sends its misses) through the MessageBus over NATS against the registry app,
// p50 and p99. The rollout views at that size: GET /firmware/{id}/audience (a general release, a
// tagged build, a tag_filter_disabled build) and GET /fleet/summary (whole fleet, one tag, one
// product line) through HTTP, p50 and p99, and the sightings' UPDATE with device_line_idx against
// the same UPDATE with the index dropped. Prints figures only (no thresholds). Drops the database
// and its files at the end.
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { RegistryMessages } from '@app/contracts';
import { closeMessageBuses, configureLogging, createMessageBus, loadConfig } from '@app/infra';
import { DeviceDirectory } from '@app/platform';
import { versionKey } from '../../apps/firmware/src/domain/version-order.js';
import { rssOf, sampleRss, tokenViaOutbox, waitForHttp } from './bench-support.js';
import {
  BENCH_EMAIL,
  fmt,
  http,
  ms,
  percentile,
  REPORTED_VERSIONS,
  seed,
  startFleetBenchService,
  timed,
  timedGets,
  uploadBuild,
} from './fleet-bench-support.js';

const DEVICES = Number(process.env.BENCH_DEVICES ?? 1_000_000);
const NEIGHBOUR_DEVICES = Number(process.env.BENCH_NEIGHBOUR_DEVICES ?? 200_000);
const IMPORT_ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);
const LIST_REPEAT = Number(process.env.BENCH_LIST_REPEAT ?? 20);
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 5_000);
/** HW ids per lookupDevices message in its own measurement (the update check sends what one turn missed, up to 500). */
const LOOKUP_BATCH = 50;
const ROLLOUT_REPEAT = Number(process.env.BENCH_ROLLOUT_REPEAT ?? 30);
const EMAIL = BENCH_EMAIL;

configureLogging({ sink: () => undefined });

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));

interface Scenario {
  readonly name: string;
  readonly query: Record<string, string | string[] | number | boolean>;
}

function queryString(query: Scenario['query']): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) for (const item of Array.isArray(v) ? v : [v]) search.append(k, String(item));
  return search.toString();
}

/** GET /firmware/{id}/audience and GET /fleet/summary at fleet size. */
async function rollouts(baseUrl: string, token: string): Promise<void> {
  const general = await uploadBuild(baseUrl, token, '2.0', 'general_release=true', null);
  const beta = await uploadBuild(baseUrl, token, '2.0-rc1', '', { tags: ['beta'] });
  const region = await uploadBuild(baseUrl, token, '2.0-rc2', '', { tags: ['region-3'] });
  const known = await uploadBuild(baseUrl, token, '2.0-rc3', '', { tag_filter_disabled: true });
  console.log(`  rollouts through HTTP, ${ROLLOUT_REPEAT} sequential requests each (p50 / p99, ms):`);
  for (const [name, id] of [
    ['audience: general release 2.0 (board/rev1/main)', general],
    ['audience: tag_filter_disabled 2.0-rc3', known],
    ['audience: tagged region-3 (10%) 2.0-rc2', region],
    ['audience: tagged beta (0.1%) 2.0-rc1', beta],
  ] as const) {
    for (const page of ['', '&offset=100000']) {
      const run = await timedGets(`${baseUrl}/firmware/${id}/audience?limit=100${page}`, token, ROLLOUT_REPEAT);
      const b = run.body as { devices: number; never_checked_in: number; items: unknown[] };
      console.log(
        `    ${pad(name + (page ? ', offset 100,000' : ''), 60)} ${pad(fmt(run.p50), 6)} / ${pad(fmt(run.p99), 6)}  (devices ${b.devices.toLocaleString('en')}, never checked in ${b.never_checked_in.toLocaleString('en')}, ${b.items.length} items)`,
      );
    }
  }
  for (const [name, query] of [
    ['fleet summary: whole fleet', ''],
    ['fleet summary: tag=region-3 (10%)', 'tag=region-3'],
    ['fleet summary: tag=beta (0.1%)', 'tag=beta'],
    ['fleet summary: board/rev1/main (1/3)', 'hw_name=board&hw_version=rev1&fw_name=main'],
  ] as const) {
    const run = await timedGets(`${baseUrl}/fleet/summary?${query}`, token, ROLLOUT_REPEAT);
    const b = run.body as { active: number; versions: unknown[] };
    console.log(
      `    ${pad(name, 60)} ${pad(fmt(run.p50), 6)} / ${pad(fmt(run.p99), 6)}  (active ${b.active.toLocaleString('en')}, ${b.versions.length} versions)`,
    );
  }
}

/**
 * What device_line_idx costs the sightings: the registry's UPDATE of 1,000 devices at a time
 * (as DeviceSightingRepository runs it, with a new last_seen_at and the same line and version,
 * the common case), 20 batches, with the index and with it dropped (then made again).
 */
async function sightingsCost(db: pg.Client, customerId: string): Promise<void> {
  const batches = 20;
  const update = async (round: number): Promise<number> => {
    const times: number[] = [];
    for (let b = 0; b < batches; b++) {
      const rows = Array.from({ length: 1000 }, (_, j) => {
        const i = ((round * batches + b) * 1000 + j) * 7 + 3;
        const version = REPORTED_VERSIONS[i % 8];
        return [
          `dev-${String(i % DEVICES).padStart(7, '0')}`,
          version,
          new Date().toISOString(),
          'board',
          `rev${i % 3}`,
          'main',
          versionKey(version).toString('hex'),
        ];
      }).sort((x, y) => (x[0] < y[0] ? -1 : 1));
      const run = await timed(() =>
        db.query(
          `UPDATE registry.device d SET last_seen_at = (r->>2)::timestamptz, last_fw_version = r->>1,
             last_hw_name = r->>3, last_hw_version = r->>4, last_fw_name = r->>5, last_version_key = decode(r->>6, 'hex')
           FROM jsonb_array_elements($2::jsonb) AS r
           WHERE d.customer_id = $1 AND d.hwid = r->>0 AND (d.last_seen_at IS NULL OR d.last_seen_at <= (r->>2)::timestamptz)`,
          [customerId, JSON.stringify(rows)],
        ),
      );
      times.push(run.ms);
    }
    times.sort((x, y) => x - y);
    return percentile(times, 50);
  };
  const withIndex = await update(0);
  const indexDef = (await db.query(`SELECT pg_get_indexdef('registry.device_line_idx'::regclass) AS def`)).rows[0].def as string;
  await db.query(`DROP INDEX registry.device_line_idx`);
  const without = await update(1);
  const build = await timed(() => db.query(indexDef));
  const again = await update(2);
  console.log(
    `  sightings UPDATE, 1,000 devices per statement (p50 of ${batches}, ms): with device_line_idx ${fmt(withIndex)}, without ${fmt(without)}, with it again ${fmt(again)}; CREATE INDEX device_line_idx ${fmt(build.ms / 1000)} s`,
  );
}

async function main(): Promise<void> {
  const { dbUrl, dataDir, baseUrl, natsUrl, service, started, stop } = await startFleetBenchService('devices');
  const db = new pg.Client({ connectionString: dbUrl.toString() });
  let bus: ReturnType<typeof createMessageBus> | null = null;
  try {
    await waitForHttp(`${baseUrl}/healthz`, 120_000);
    const token = await tokenViaOutbox(baseUrl, join(dataDir, 'outbox'), EMAIL, 'full');
    await db.connect();
    const [{ id: customerId }] = (await db.query(`SELECT id FROM identity.customers WHERE domain = 'operator.local'`)).rows as { id: string }[];
    const neighbourId = (await db.query(`SELECT gen_random_uuid() AS id`)).rows[0].id as string;
    const pem = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();

    console.log(
      `bench:devices  ${DEVICES.toLocaleString('en')} devices for one customer (+${NEIGHBOUR_DEVICES.toLocaleString('en')} for a neighbour), PostgreSQL ${(await db.query('SHOW server_version')).rows[0].server_version}, standalone service on DATABASE_URL + NATS`,
    );
    const seeding = await timed(async () => {
      await seed(db, customerId, 'dev-', DEVICES, pem);
      await seed(db, neighbourId, 'dev-', NEIGHBOUR_DEVICES, pem);
      await db.query('VACUUM ANALYZE registry.device');
      await db.query('VACUUM ANALYZE registry.device_tag');
    });
    const sizes = (
      await db.query(
        `SELECT (SELECT count(*) FROM registry.device_tag)::int AS tag_rows, pg_size_pretty(pg_total_relation_size('registry.device')) AS device, pg_size_pretty(pg_total_relation_size('registry.device_tag')) AS device_tag`,
      )
    ).rows[0];
    console.log(
      `  seed (generate_series, then VACUUM ANALYZE): ${(seeding.ms / 1000).toFixed(1)} s; device_tag rows ${sizes.tag_rows.toLocaleString('en')}; size device ${sizes.device}, device_tag ${sizes.device_tag}`,
    );

    // ---- import of 100,000 CSV rows through HTTP
    const csv = (extra: string) =>
      Buffer.from(
        `hwid,tags\n${Array.from({ length: IMPORT_ROWS }, (_, i) => `imp-${String(i).padStart(7, '0')},region-${i % 10} imported${extra}`).join('\n')}\n`,
      );
    console.log(`  import POST /devices/import, ${IMPORT_ROWS.toLocaleString('en')} CSV rows (hwid,tags), batches of 1000:`);
    const baseline = rssOf(service.pid!);
    for (const [label, body] of [
      ['new devices', csv('')],
      ['same file again (all unchanged)', csv('')],
      ['every row changed (tag added)', csv(' wave-2')],
    ] as const) {
      const sampler = sampleRss(service.pid!);
      const run = await timed(() => http('POST', `${baseUrl}/devices/import`, token, { data: body, type: 'text/csv' }));
      const peak = sampler.stop();
      if (run.value.status !== 200) throw new Error(`import answered ${run.value.status}: ${run.value.text.slice(0, 300)}`);
      const result = JSON.parse(run.value.text) as { created: number; updated: number; unchanged: number; error_count: number };
      console.log(
        `    ${pad(label, 34)} ${fmt(run.ms / 1000)} s  (${Math.round(IMPORT_ROWS / (run.ms / 1000)).toLocaleString('en')} rows/s; created ${result.created}, updated ${result.updated}, unchanged ${result.unchanged}, errors ${result.error_count}; service RSS peak +${((peak - baseline) / 1048576).toFixed(0)} MiB)`,
      );
    }
    await db.query('ANALYZE registry.device');
    await db.query('ANALYZE registry.device_tag');

    // ---- list filters through HTTP
    const scenarios: Scenario[] = [
      { name: 'no filter, first page (limit 100)', query: {} },
      { name: 'no filter, offset 500,000', query: { offset: 500_000 } },
      { name: 'q=dev-01234 (100 devices)', query: { q: 'dev-01234' } },
      { name: 'q=dev-0 (all 1,000,000), limit 500', query: { q: 'dev-0', limit: 500 } },
      { name: 'q=nomatch', query: { q: 'nomatch' } },
      { name: 'tag=region-3 (10%)', query: { tag: 'region-3' } },
      { name: 'tag=model-42 (1%)', query: { tag: 'model-42' } },
      { name: 'tag=beta (0.1%)', query: { tag: 'beta' } },
      { name: 'tag=nobody (none)', query: { tag: 'nobody' } },
      { name: 'tag=region-3, offset 50,000', query: { tag: 'region-3', offset: 50_000 } },
      { name: 'tag any: beta, model-42', query: { tag: ['beta', 'model-42'] } },
      { name: 'tag any: 5 models (5%)', query: { tag: ['model-01', 'model-02', 'model-03', 'model-04', 'model-05'] } },
      { name: 'tag all: even, region-4 (10%)', query: { tag: ['even', 'region-4'], tag_mode: 'all' } },
      { name: 'tag all: beta, even (0.05%)', query: { tag: ['beta', 'even'], tag_mode: 'all' } },
      { name: 'tag all: model-42, region-3 (none)', query: { tag: ['model-42', 'region-3'], tag_mode: 'all' } },
      { name: 'tag all: even, model-42, region-2 (1%)', query: { tag: ['even', 'model-42', 'region-2'], tag_mode: 'all' } },
      { name: 'status=withdrawn (1.9%)', query: { status: 'withdrawn' } },
      { name: 'status=active (98%)', query: { status: 'active' } },
      { name: 'has_keys=true (25%)', query: { has_keys: true } },
      { name: 'has_keys=false (75%)', query: { has_keys: false } },
      { name: 'tag=region-3 & status=withdrawn', query: { tag: 'region-3', status: 'withdrawn' } },
      { name: 'tag=beta & has_keys=true & q=dev-0', query: { tag: 'beta', has_keys: true, q: 'dev-0' } },
      { name: 'q=dev-05 & tag any region-1,region-2', query: { q: 'dev-05', tag: ['region-1', 'region-2'] } },
      { name: 'status=withdrawn & has_keys=true', query: { status: 'withdrawn', has_keys: true } },
    ];
    console.log(`  list GET /devices through HTTP, ${LIST_REPEAT} sequential requests each (p50 / p95 / max, ms; items on the page):`);
    for (const scenario of scenarios) {
      const url = `${baseUrl}/devices?${queryString(scenario.query)}`;
      const times: number[] = [];
      let items = 0;
      for (let i = 0; i < LIST_REPEAT + 2; i++) {
        const run = await timed(() => http('GET', url, token));
        if (run.value.status !== 200) throw new Error(`${url} answered ${run.value.status}: ${run.value.text.slice(0, 300)}`);
        if (i >= 2) times.push(run.ms); // two warm-up requests
        items = (JSON.parse(run.value.text) as { items: unknown[] }).items.length;
      }
      times.sort((x, y) => x - y);
      console.log(
        `    ${pad(scenario.name, 42)} ${pad(fmt(percentile(times, 50)), 6)} / ${pad(fmt(percentile(times, 95)), 6)} / ${pad(fmt(times[times.length - 1]), 6)}  (${items} items)`,
      );
    }

    // ---- the lookup message, over NATS, against the registry app of the running service
    bus = createMessageBus(loadConfig({ NATS_URL: natsUrl, LOG_LEVEL: 'error' }), 'firmware');
    const lookup = (i: number) => {
      const hwid = i % 10 === 9 ? `unknown-${i}` : `dev-${String((i * 7919) % DEVICES).padStart(7, '0')}`;
      return bus!.send(RegistryMessages.lookupDevice, { customerId: customerId, hwid });
    };
    for (let i = 0; i < 200; i++) await lookup(i); // warm up
    const measure = async (count: number, concurrency: number, fn: (i: number) => Promise<unknown>) => {
      const latencies: number[] = [];
      let next = 0;
      const startedAll = process.hrtime.bigint();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < count) {
            const i = next++;
            const t0 = process.hrtime.bigint();
            await fn(i);
            latencies.push(ms(process.hrtime.bigint() - t0));
          }
        }),
      );
      const total = ms(process.hrtime.bigint() - startedAll);
      latencies.sort((x, y) => x - y);
      return `p50 ${fmt(percentile(latencies, 50))} ms, p99 ${fmt(percentile(latencies, 99))} ms, ${Math.round(count / (total / 1000)).toLocaleString('en')}/s`;
    };
    console.log(`  lookup RegistryMessages.lookupDevice over NATS (primary-key point lookup; 10% unknown HW ids):`);
    console.log(`    ${pad(`${LOOKUPS} sequential`, 30)} ${await measure(LOOKUPS, 1, lookup)}`);
    console.log(`    ${pad(`${LOOKUPS} with 32 in flight`, 30)} ${await measure(LOOKUPS, 32, lookup)}`);
    const batchOf = (i: number) => Array.from({ length: LOOKUP_BATCH }, (_, j) => `dev-${String(((i * LOOKUP_BATCH + j) * 7919) % DEVICES).padStart(7, '0')}`);
    const lookupMany = (i: number) => bus!.send(RegistryMessages.lookupDevices, { customerId: customerId, hwids: batchOf(i) });
    console.log(`  lookup RegistryMessages.lookupDevices over NATS (${LOOKUP_BATCH} HW ids per message, one indexed query; per message):`);
    console.log(`    ${pad(`${LOOKUPS / LOOKUP_BATCH} sequential`, 30)} ${await measure(LOOKUPS / LOOKUP_BATCH, 1, lookupMany)}`);
    console.log(`    ${pad(`${LOOKUPS / LOOKUP_BATCH} with 8 in flight`, 30)} ${await measure(LOOKUPS / LOOKUP_BATCH, 8, lookupMany)}`);
    const directory = new DeviceDirectory(bus);
    directory.onModuleInit();
    // misses: each turn's misses go out as one lookupDevices message
    console.log(
      `    ${pad(`DeviceDirectory, 32 misses at once`, 30)} ${await measure(LOOKUPS, 32, async (i) => directory.lookup(customerId, `dev-${String((i * 7919 + 13) % DEVICES).padStart(7, '0')}`))}`,
    );
    for (let i = 0; i < 1000; i++) await directory.lookup(customerId, `dev-${String(i).padStart(7, '0')}`);
    console.log(
      `    ${pad(`DeviceDirectory, cached`, 30)} ${await measure(LOOKUPS * 10, 1, async (i) => directory.lookup(customerId, `dev-${String(i % 1000).padStart(7, '0')}`))}`,
    );
    directory.onModuleDestroy();

    // ---- the rollout views through HTTP
    await rollouts(baseUrl, token);
    await sightingsCost(db, customerId);

    // ---- the Tags API and admin messages
    const tagCounts = await timed(() => bus!.send(RegistryMessages.tagCounts, { customerId: customerId }, { timeoutMs: 60_000 }));
    const counts = await timed(() => bus!.send(RegistryMessages.counts, { customerIds: [customerId, neighbourId] }, { timeoutMs: 60_000 }));
    console.log(
      `  RegistryMessages.tagCounts (${Object.keys(tagCounts.value).length} tags, ${(DEVICES + IMPORT_ROWS).toLocaleString('en')} devices): ${fmt(tagCounts.ms)} ms; counts (2 customers): ${fmt(counts.ms)} ms`,
    );
    const rename = await timed(() =>
      bus!.send(RegistryMessages.renameTag, { customerId: customerId, from: 'model-42', to: 'model-43' }, { timeoutMs: 60_000 }),
    );
    console.log(
      `  RegistryMessages.renameTag model-42 -> model-43 (merge, 10,000 devices): ${fmt(rename.ms)} ms (${rename.value.devices} devices carry model-43)`,
    );
    console.log(`  total ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await db.end().catch(() => undefined);
    if (bus) await closeMessageBuses().catch(() => undefined);
    await stop();
  }
}

await main();
