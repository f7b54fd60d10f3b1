// npm run bench:rollouts — a staged rollout at fleet scale (docs/api.md "Staged rollouts"). In a
// throwaway database on the local PostgreSQL (BENCH_PG_ADMIN_URL) the standalone service (on a
// private NATS server) migrates the schema, then 1,000,000 devices are seeded with set-based SQL
// (test/bench/fleet-bench-support.ts). A build on board/rev1/main with tag_filter_disabled is
// rolled out through HTTP to the devices of eight region tags (about 300,000: the audience is
// printed), stages 1, 10, 50, 100 %; creating it and advancing twice cut the stages (timed).
// The offers of the three stages started (about half the audience) are then written with SQL
// as the sightings would have recorded them, with a mix of outcomes (80 % updated, 2 % failed
// reports, 1 % rolled back, 7 % not installed, the rest pending). Measured: GET
// /firmware/{id}/rollout (the progress: outcomes per stage over every offer), a page of
// GET /firmware/{id}/rollout/devices (all, and outcome=failed), POST /admin/rollouts/evaluate
// (p50 / p99 of sequential requests), and what offers add to the sightings: the registry's
// sightings statement for batches of 1,000 devices alone, and followed by the offers statement
// for the same 1,000 devices (every one a first offer, the worst case), in alternating rounds.
// Prints figures and the load average (no thresholds). Drops the database at the end.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { asCustomerId, type Rollout, rolloutOffset } from '@app/contracts';
import { closeDatabases, configureLogging, loadConfig, openAppDatabase } from '@app/infra';
import { versionKey } from '../../apps/firmware/src/domain/version-order.js';
import { REGISTRY_DATABASE } from '../../apps/registry/src/registry.module.js';
import { DeviceSightingRepository } from '../../apps/registry/src/repositories/device-sighting.repository.js';
import { RolloutOfferRepository } from '../../apps/registry/src/repositories/rollout-offer.repository.js';
import { tokenViaOutbox, waitForHttp } from './bench-support.js';
import { BENCH_EMAIL, fmt, http, percentile, REPORTED_VERSIONS, seed, startFleetBenchService, timed, uploadBuild } from './fleet-bench-support.js';

const DEVICES = Number(process.env.BENCH_DEVICES ?? 1_000_000);
const REPEAT = Number(process.env.BENCH_ROLLOUT_REPEAT ?? 20);
const SIGHTING_ROUNDS = 4;
const SIGHTING_BATCHES = 8;
const EMAIL = BENCH_EMAIL;
const REGIONS = Array.from({ length: 8 }, (_, i) => `region-${i}`);
const VERSION = '3.0';

configureLogging({ sink: () => undefined });

/** p50 / p99 of `REPEAT` sequential requests after two warm-up ones, and the last body. */
async function timedRequests(method: string, url: string, token: string): Promise<{ p50: number; p99: number; body: unknown }> {
  const times: number[] = [];
  let body: unknown = null;
  for (let i = 0; i < REPEAT + 2; i++) {
    const run = await timed(() => http(method, url, token));
    if (run.value.status !== 200) throw new Error(`${method} ${url}: ${run.value.status} ${run.value.text.slice(0, 300)}`);
    if (i >= 2) times.push(run.ms);
    body = JSON.parse(run.value.text);
  }
  times.sort((x, y) => x - y);
  return { p50: percentile(times, 50), p99: percentile(times, 99), body };
}

async function main(): Promise<void> {
  const { dbUrl, dataDir, baseUrl, started, stop } = await startFleetBenchService('rollouts');
  const db = new pg.Client({ connectionString: dbUrl.toString() });
  let registry: Awaited<ReturnType<typeof openAppDatabase>> | null = null;
  try {
    await waitForHttp(`${baseUrl}/healthz`, 180_000);
    const token = await tokenViaOutbox(baseUrl, join(dataDir, 'outbox'), EMAIL, 'admin');
    await db.connect();
    const [{ id: customerId }] = (await db.query(`SELECT id FROM identity.customers WHERE domain = 'operator.local'`)).rows as { id: string }[];
    console.log(
      `bench:rollouts  ${DEVICES.toLocaleString('en')} devices in one customer, PostgreSQL ${(await db.query('SHOW server_version')).rows[0].server_version}, standalone service on DATABASE_URL + NATS; load average at start ${loadavg()[0].toFixed(1)}`,
    );
    const seeding = await timed(async () => {
      await seed(db, customerId, 'dev-', DEVICES, generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString());
      await db.query('VACUUM ANALYZE registry.device');
      await db.query('VACUUM ANALYZE registry.device_tag');
    });
    console.log(`  seed: ${(seeding.ms / 1000).toFixed(1)} s`);

    // ---- the rollout, created and advanced through HTTP (each cuts a stage over the audience)
    const buildId = await uploadBuild(baseUrl, token, VERSION, '', { tag_filter_disabled: true });
    const create = await timed(() =>
      http('POST', `${baseUrl}/firmware/${buildId}/rollout`, token, {
        type: 'application/json',
        data: Buffer.from(JSON.stringify({ stages: [1, 10, 50, 100].map((percent) => ({ percent, hold_minutes: 60 })), extra_tags: REGIONS })),
      }),
    );
    if (create.value.status !== 201) throw new Error(`POST rollout: ${create.value.status} ${create.value.text.slice(0, 300)}`);
    const rollout = JSON.parse(create.value.text) as Rollout;
    const advances: number[] = [];
    for (let i = 0; i < 2; i++) {
      const run = await timed(() => http('POST', `${baseUrl}/firmware/${buildId}/rollout/advance`, token));
      if (run.value.status !== 200) throw new Error(`advance: ${run.value.status} ${run.value.text.slice(0, 300)}`);
      advances.push(run.ms);
    }
    const [{ thresholds }] = (await db.query(`SELECT thresholds FROM firmware.rollout WHERE id = $1`, [rollout.id])).rows as { thresholds: number[] }[];
    console.log(
      `  audience ${rollout.audience?.toLocaleString('en')} devices (board/rev1/main or never checked in, one of ${REGIONS.length} region tags); stage thresholds ${thresholds.join(', ')} of 10,000`,
    );
    console.log(`  POST /firmware/{id}/rollout (cuts stage 1): ${fmt(create.ms)} ms; POST .../advance (cuts stages 2, 3): ${advances.map(fmt).join(', ')} ms`);

    // ---- the offers of the stages started, with a mix of outcomes (as the sightings and reports would leave them)
    const buildKey = versionKey(VERSION);
    const offering = await timed(async () => {
      await db.query(
        `INSERT INTO registry.rollout_offer (customer_id, rollout_id, hwid, build_id, version_key, stage, offered_at)
         SELECT customer_id, $2::uuid, hwid, $3::uuid, $4, CASE WHEN p < $6 THEN 0 WHEN p < $7 THEN 1 ELSE 2 END, now() - interval '2 hours'
           FROM (SELECT d.customer_id, d.hwid, (d.rollout_bucket - $5::int + 10000) % 10000 AS p FROM registry.device d
                  WHERE d.customer_id = $1 AND d.status = 'active' AND d.tags && $9::text[]
                    AND ((d.last_hw_name = 'board' AND d.last_hw_version = 'rev1' AND d.last_fw_name = 'main') OR d.last_hw_name IS NULL)) x
          WHERE p < $8`,
        [customerId, rollout.id, buildId, buildKey, rolloutOffset(rollout.id), thresholds[0], thresholds[1], thresholds[2], REGIONS],
      );
      // By the device's bucket mod 100: 0-79 updated, 80-81 failed report, 82 rolled back, 83-89 not installed, the rest pending.
      await db.query(
        `UPDATE registry.device d SET last_version_key = $2, last_fw_version = $3, last_seen_at = now()
           FROM registry.rollout_offer o WHERE o.rollout_id = $1 AND d.customer_id = o.customer_id AND d.hwid = o.hwid AND d.rollout_bucket % 100 < 80`,
        [rollout.id, buildKey, VERSION],
      );
      await db.query(
        `UPDATE registry.rollout_offer o SET updated_at = now() - interval '1 hour' FROM registry.device d
          WHERE o.rollout_id = $1 AND d.customer_id = o.customer_id AND d.hwid = o.hwid AND (d.rollout_bucket % 100 < 80 OR d.rollout_bucket % 100 = 82)`,
        [rollout.id],
      );
      await db.query(
        `UPDATE registry.rollout_offer o SET reported_outcome = 'failed', reported_reason = 'bench', reported_at = now() FROM registry.device d
          WHERE o.rollout_id = $1 AND d.customer_id = o.customer_id AND d.hwid = o.hwid AND d.rollout_bucket % 100 IN (80, 81)`,
        [rollout.id],
      );
      await db.query(
        `UPDATE registry.device d SET last_seen_at = now() FROM registry.rollout_offer o
          WHERE o.rollout_id = $1 AND d.customer_id = o.customer_id AND d.hwid = o.hwid AND d.rollout_bucket % 100 BETWEEN 82 AND 89`,
        [rollout.id],
      );
      await db.query('VACUUM ANALYZE registry.rollout_offer');
      await db.query('VACUUM ANALYZE registry.device');
    });
    const offers = Number((await db.query(`SELECT count(*) AS n FROM registry.rollout_offer WHERE rollout_id = $1`, [rollout.id])).rows[0].n);
    console.log(`  offers written with SQL: ${offers.toLocaleString('en')} (stages 1-3), with the outcome mix, in ${(offering.ms / 1000).toFixed(1)} s`);

    // ---- reading and evaluating it through HTTP
    console.log(`  through HTTP, ${REPEAT} sequential requests each (p50 / p99, ms):`);
    const progress = await timedRequests('GET', `${baseUrl}/firmware/${buildId}/rollout`, token);
    const outcomes = (progress.body as Rollout).outcomes;
    console.log(
      `    GET /firmware/{id}/rollout (progress over every offer)          ${fmt(progress.p50)} / ${fmt(progress.p99)}  (${JSON.stringify(outcomes)})`,
    );
    const page = await timedRequests('GET', `${baseUrl}/firmware/${buildId}/rollout/devices?limit=100`, token);
    console.log(`    GET /firmware/{id}/rollout/devices, first page of 100            ${fmt(page.p50)} / ${fmt(page.p99)}`);
    const failed = await timedRequests('GET', `${baseUrl}/firmware/${buildId}/rollout/devices?outcome=failed&limit=100`, token);
    console.log(`    GET /firmware/{id}/rollout/devices?outcome=failed, 100           ${fmt(failed.p50)} / ${fmt(failed.p99)}`);
    const evaluation = await timedRequests('POST', `${baseUrl}/admin/rollouts/evaluate`, token);
    console.log(
      `    POST /admin/rollouts/evaluate (this rollout: outcomes, halt rules)   ${fmt(evaluation.p50)} / ${fmt(evaluation.p99)}  (${JSON.stringify(evaluation.body)})`,
    );

    // ---- what offers add to the sightings: the registry's own statements, batches of 1,000 devices
    registry = await openAppDatabase(loadConfig({ DATABASE_URL: dbUrl.toString(), LOG_LEVEL: 'error' }), { ...REGISTRY_DATABASE, migrate: false });
    const tenant = asCustomerId(customerId);
    let next = 0;
    const batch = () => {
      const at = new Date();
      return Array.from({ length: 1000 }, () => {
        const i = (next++ * 7919 + 11) % DEVICES;
        const version = REPORTED_VERSIONS[i % 8];
        return {
          hwid: `dev-${String(i).padStart(7, '0')}`,
          fwVersion: version,
          at,
          line: { hwName: 'board', hwVersion: `rev${i % 3}`, fwName: 'main', versionKey: versionKey(version).toString('hex') },
        };
      }).sort((a, b) => (a.hwid < b.hwid ? -1 : 1));
    };
    const runs: Record<'without' | 'with', number[]> = { without: [], with: [] };
    for (let round = 0; round < SIGHTING_ROUNDS; round++) {
      const order = round % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const);
      for (const kind of order) {
        const offerRollout = randomUUID();
        for (let b = 0; b < SIGHTING_BATCHES; b++) {
          const sightings = batch();
          const run = await timed(async () => {
            await registry!.transaction((m) => new DeviceSightingRepository(m).record({ customerId: tenant, sightings }));
            if (kind === 'with') {
              const rows = sightings.map((s) => ({ rolloutId: offerRollout, hwid: s.hwid, buildId, versionKey: buildKey.toString('hex'), stage: 0, at: s.at }));
              await registry!.transaction((m) => new RolloutOfferRepository(m).recordOffers({ customerId: tenant, offers: rows }));
            }
          });
          runs[kind].push(run.ms);
        }
      }
    }
    const p50 = (xs: number[]) =>
      percentile(
        [...xs].sort((x, y) => x - y),
        50,
      );
    console.log(
      `  sightings of 1,000 devices (the registry's statements; ${SIGHTING_ROUNDS} alternating rounds of ${SIGHTING_BATCHES} batches, p50 ms): without offers ${fmt(p50(runs.without))}, with 1,000 first offers ${fmt(p50(runs.with))} (x${(p50(runs.with) / p50(runs.without)).toFixed(2)}); a real batch carries an offer only for a device's first check answered with a rollout build`,
    );
    console.log(`  load average at the end ${loadavg()[0].toFixed(1)}; total ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await closeDatabases().catch(() => undefined);
    await db.end().catch(() => undefined);
    await stop();
  }
}

await main();
