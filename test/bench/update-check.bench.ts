// npm run bench:update-check — the public update check under load, in one run:
//   (c) a bare node:http server answering a fixed JSON body (a real update-check answer),
//   (e) the same bare server also sending that answer's headers (request id, ETag, Cache-Control,
//       Poll-After, Content-Digest, Signature-Input, Signature): the same bytes as the service's
//       answer, so what the contract's answer costs node:http is in the baseline too,
//   (a) the standalone service (one process: every app, the in-process bus; PostgreSQL),
//   (b) the distributed service: gateway, firmware, registry, identity and admin as processes
//       on NATS (a private nats-server), PostgreSQL, Redis and S3 (s3rver),
//   (d) a bare forwarding pair on the same NATS server: node:http sending each request over
//       NATS to a responder with the fixed body (the least any gateway-and-app split pays),
// with 1,000 builds and 100,000 devices in one customer (seeded with SQL: the builds into the
// firmware schema, the devices with generate_series into the registry schema). autocannon
// drives each; printed: req/s, p50, p99, the ratios a/c, b/c and b/d, the share of 304 answers on
// repeat polls with If-None-Match, p99 at a fixed 1,000 req/s, and req/s at 10,000 versus
// 1,000,000 devices, each next to its target, and req/s of (a) with BENCH_IP_BLOCKS (default
// 10,000; 0: not measured) IP blocks loaded, none matching the client, versus none, and with
// BENCH_ROLLOUTS (default 10; 0: not measured) staged rollouts running (the newest build of each
// product line, stage 1 of 10 %, created through HTTP) versus none (completed). Every server runs
// as a child process.
import { randomBytes, randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import autocannon, { type Request, type Result } from 'autocannon';
import pg from 'pg';
import { versionKey } from '../../apps/firmware/src/domain/version-order.js';
import { startS3Server } from '../../libs/testing/src/s3-server.js';
import { claimRedisDatabase, releaseRedisDatabase, startNats } from '../e2e/support/stack.js';
import { cpuMicrosOf, cpuPlacement, freePort, spawnNode, tempDir, tokenViaOutbox, waitForHttp } from './bench-support.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** Distinct devices polling in a run (drawn from the customer's devices). */
const POLLERS = Number(process.env.BENCH_POLLERS ?? 5_000);
const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ADMIN_EMAIL = 'bench@operator.local';
const LINES = 10;
const VERSIONS_PER_LINE = 100;
/** What the devices run: two versions below the newest of each line. */
const CURRENT = '2.97';
/** The fixed-rate run (req/s), open loop (see paced()). */
const FIXED_RATE = 1_000;
const SIZE_SECONDS = Number(process.env.BENCH_SIZE_SECONDS ?? 5);
/** Rounds of the 10,000 vs 1,000,000 devices comparison (each: one run of each size, back to back; 0: not measured). */
const SIZE_ROUNDS = Number(process.env.BENCH_SIZE_ROUNDS ?? 6);
/** Distinct devices per run of that comparison: together, (nearly) every device of the 10,000. */
const SIZE_POLLERS = Math.floor(10_000 / Math.max(SIZE_ROUNDS, 1));
/** IP blocks loaded for the with/without comparison (docs/performance.md). */
const IP_BLOCKS = Number(process.env.BENCH_IP_BLOCKS ?? 10_000);
const IP_BLOCK_ROUNDS = 4;
/** Running rollouts for the with/without comparison (docs/performance.md). */
const ROLLOUTS = Number(process.env.BENCH_ROLLOUTS ?? 10);
const ROLLOUT_ROUNDS = 4;
/** The one loaded block that matches: a request from it answering 403 shows the gateway has the blocks. */
const BLOCKED_PROBE = '127.0.0.2';

interface Figures {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly statuses: Record<string, number>;
  readonly errors: number;
  /** CPU time the measured server processes used per request (µs): independent of the load generator's ceiling. */
  readonly cpuMicros: number | null;
  /** The same, per measured process (in the order of the pids given). */
  readonly cpuMicrosEach: readonly number[];
}

/** Headers of the sample answer that (e) does not copy: node:http writes them itself, or they change per response (the request id). */
const NOT_COPIED_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'content-type', 'x-request-id', 'transfer-encoding']);

const children: ChildProcess[] = [];
function track(child: ChildProcess): ChildProcess {
  children.push(child);
  return child;
}
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(10_000)]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

async function load(
  url: string,
  requests: Request[],
  options: { seconds?: number; overallRate?: number; connections?: number; pids?: number[] } = {},
): Promise<Figures> {
  const pids = options.pids ?? [];
  const cpuBefore = pids.map(cpuMicrosOf);
  const result: Result = await autocannon({
    url,
    requests,
    connections: options.connections ?? CONNECTIONS,
    duration: options.seconds ?? SECONDS,
    ...(options.overallRate ? { overallRate: options.overallRate } : {}),
    timeout: 10,
  });
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count]));
  const cpuMicrosEach = result.requests.total ? pids.map((pid, i) => (cpuMicrosOf(pid) - cpuBefore[i]) / result.requests.total) : [];
  const cpuMicros = cpuMicrosEach.length ? cpuMicrosEach.reduce((a, b) => a + b, 0) : null;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    statuses,
    errors: result.errors + result.timeouts,
    cpuMicros,
    cpuMicrosEach,
  };
}

/** The faster of several runs (other load on the machine comes and goes). */
function fastest(runs: readonly Figures[]): Figures {
  return runs.reduce((x, y) => (y.rps > x.rps ? y : x));
}

/** The median run by req/s (of an even count, the two middle runs averaged). */
function median(runs: readonly Figures[]): Figures {
  const sorted = [...runs].sort((x, y) => x.rps - y.rps);
  const upper = sorted[Math.floor(sorted.length / 2)];
  if (sorted.length % 2 === 1) return upper;
  const lower = sorted[sorted.length / 2 - 1];
  const mean = (f: (x: Figures) => number) => (f(lower) + f(upper)) / 2;
  const cpu = lower.cpuMicros !== null && upper.cpuMicros !== null ? mean((x) => x.cpuMicros!) : null;
  return { ...upper, rps: mean((x) => x.rps), p50: mean((x) => x.p50), p99: mean((x) => x.p99), cpuMicros: cpu };
}

/**
 * An open-loop load at a fixed rate: requests leave on schedule whatever the answers (no
 * coordinated omission), over keep-alive connections; latency from leaving to the last byte.
 * (autocannon's overallRate sends in bursts and reports its own queueing as latency: the bare
 * server showed a p99 of 36 ms with it.)
 */
/**
 * p99 at a steady fixed rate: a short run at the same rate first, not counted, so the figure
 * is not the tail of the throughput runs just before (apps still storing their request logs
 * and sightings: round 0 had twice the p50 of the rounds after it).
 */
async function steady(url: string, requests: Request[], ratePerSecond: number): Promise<Figures> {
  await paced(url, requests, ratePerSecond, 3);
  return paced(url, requests, ratePerSecond);
}

async function paced(url: string, requests: Request[], ratePerSecond: number, seconds = SECONDS): Promise<Figures> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const total = Math.round(ratePerSecond * seconds);
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let sent = 0;
  let done = 0;
  const started = process.hrtime.bigint();
  await new Promise<void>((resolve) => {
    const fire = (request: Request) => {
      const leftAt = process.hrtime.bigint();
      const req = httpRequest(`${url}${request.path}`, { agent, headers: request.headers }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(Number(process.hrtime.bigint() - leftAt) / 1e6);
          statuses[String(res.statusCode)] = (statuses[String(res.statusCode)] ?? 0) + 1;
          if (++done === total) resolve();
        });
      });
      req.on('error', () => {
        errors++;
        if (++done === total) resolve();
      });
      req.end();
    };
    const tick = () => {
      const due = Math.min(total, Math.floor((Number(process.hrtime.bigint() - started) / 1e9) * ratePerSecond));
      while (sent < due) fire(requests[sent++ % requests.length]);
      if (sent < total) setTimeout(tick, 1);
    };
    tick();
  });
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { rps: total / (Number(process.hrtime.bigint() - started) / 1e9), p50: at(0.5), p99: at(0.99), statuses, errors, cpuMicros: null, cpuMicrosEach: [] };
}

function show(figures: Figures): string {
  const codes = Object.entries(figures.statuses)
    .map(([code, n]) => `${code}: ${n}`)
    .join(', ');
  const cpu = figures.cpuMicros === null ? '' : `   server CPU ${figures.cpuMicros.toFixed(1)} µs/req`;
  return `${figures.rps.toFixed(0).padStart(6)} req/s   p50 ${figures.p50.toFixed(1).padStart(5)} ms   p99 ${figures.p99.toFixed(1).padStart(5)} ms${cpu}   (${codes}${figures.errors ? `, errors: ${figures.errors}` : ''})`;
}

function share304(figures: Figures): number {
  const total = Object.values(figures.statuses).reduce((a, b) => a + b, 0);
  return total ? (figures.statuses['304'] ?? 0) / total : 0;
}

// ---------------------------------------------------------------- seeding

async function createDatabase(): Promise<{ name: string; url: string }> {
  const name = `fds_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

async function dropDatabase(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}

/** 1,000 builds: 10 product lines x versions 2.0 to 2.99; every 10th a general release, every 10th+5 tag_filter_disabled, the others tagged ring-0..ring-4. */
async function seedBuilds(db: pg.Client, customerId: string): Promise<void> {
  const builds: unknown[][] = [];
  const tags: [string, string][] = [];
  for (let line = 0; line < LINES; line++) {
    for (let i = 0; i < VERSIONS_PER_LINE; i++) {
      const id = randomUUID();
      const fwVersion = `2.${i}`;
      builds.push([
        id,
        customerId,
        `board-${line}`,
        'rev1',
        'main',
        fwVersion,
        'AFI',
        versionKey(fwVersion),
        new Date(Date.UTC(2026, 0, 1) + i * 86_400_000),
        i % 10 === 0,
        i % 10 === 5,
        `bench/${id}`,
        1_048_576,
        randomBytes(32).toString('hex'),
        `${fwVersion}, 2026-01-01, AFI`,
        'token:bench',
      ]);
      if (i % 10 !== 0 && i % 10 !== 5) tags.push([id, `ring-${i % 5}`]);
    }
  }
  for (let at = 0; at < builds.length; at += 200) {
    const chunk = builds.slice(at, at + 200);
    const values = chunk.map((row, r) => `(${row.map((_, c) => `$${r * row.length + c + 1}`).join(', ')})`).join(', ');
    await db.query(
      `INSERT INTO firmware.build (id, customer_id, hw_name, hw_version, fw_name, fw_version, fw_type, version_key, build_date, general_release, tag_filter_disabled, object_key, size_bytes, sha256, what_string, uploaded_by) VALUES ${values}`,
      chunk.flat(),
    );
  }
  await db.query(`INSERT INTO firmware.build_tag (build_id, customer_id, tag) SELECT unnest($1::uuid[]), $2, unnest($3::text[])`, [
    tags.map((t) => t[0]),
    customerId,
    tags.map((t) => t[1]),
  ]);
}

/** dev-1 .. dev-N, tagged ring-(n mod 5), straight into the registry's tables. */
async function seedDevices(db: pg.Client, customerId: string, count: number): Promise<void> {
  await db.query(`INSERT INTO registry.device (customer_id, hwid, tags) SELECT $1, 'dev-' || g, ARRAY['ring-' || (g % 5)] FROM generate_series(1, $2::int) g`, [
    customerId,
    count,
  ]);
  await db.query(`INSERT INTO registry.device_tag (customer_id, tag, hwid) SELECT $1, 'ring-' || (g % 5), 'dev-' || g FROM generate_series(1, $2::int) g`, [
    customerId,
    count,
  ]);
  await db.query(`ANALYZE registry.device`);
}

/** Update checks of `count` distinct devices of `population`, each on its product line and version CURRENT. */
function pollers(domain: string, population: number, count: number): Request[] {
  return disjointPollers(domain, population, count, 1)[0];
}

/** `runs` lists of `count` update checks each, no device in two lists (as pollers()). */
function disjointPollers(domain: string, population: number, count: number, runs: number): Request[][] {
  const picked = new Set<number>();
  while (picked.size < Math.min(count * runs, population)) picked.add(1 + Math.floor(Math.random() * population));
  const devices = [...picked];
  return Array.from({ length: runs }, (_, run) =>
    devices.slice(run * count, (run + 1) * count).map((n) => ({ method: 'GET', path: `/firmware/${domain}/board-${n % LINES}/rev1/main/${CURRENT}/dev-${n}` })),
  );
}

/** Each request once, 50 at a time. */
async function pollEach(baseUrl: string, requests: Request[]): Promise<void> {
  for (let i = 0; i < requests.length; i += 50) {
    await Promise.all(requests.slice(i, i + 50).map(async (r) => (await fetch(`${baseUrl}${r.path}`)).arrayBuffer()));
  }
}

/** The same polls with the ETag of a first answer in If-None-Match. */
async function repeatPolls(baseUrl: string, requests: Request[]): Promise<Request[]> {
  const out: Request[] = [];
  for (let i = 0; i < requests.length; i += 50) {
    const batch = requests.slice(i, i + 50);
    const etags = await Promise.all(batch.map(async (r) => (await fetch(`${baseUrl}${r.path}`)).headers.get('etag')));
    batch.forEach((r, j) => out.push({ ...r, headers: etags[j] ? { 'if-none-match': etags[j] } : {} }));
  }
  return out;
}

// ---------------------------------------------------------------- main

/** The status of GET `url` sent from `localAddress`. */
function statusFrom(url: string, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { localAddress, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Replaces the IP blocks with `count` of them (IPv4 /32 and /24, IPv6 /48: three prefix lengths
 * per family like a real list; one of them BLOCKED_PROBE, none the bench client) straight in the
 * admin schema, bumps the revision, and waits until the gateway enforces them (its once-a-second
 * re-read).
 */
async function setIpBlocks(db: pg.Client, baseUrl: string, count: number): Promise<void> {
  await db.query(`DELETE FROM admin.ip_blocks`);
  if (count > 0) {
    await db.query(`INSERT INTO admin.ip_blocks (cidr, reason, created_by, created_at) VALUES ($1, 'bench probe', 'bench', now())`, [`${BLOCKED_PROBE}/32`]);
    await db.query(
      `INSERT INTO admin.ip_blocks (cidr, reason, created_by, created_at)
       SELECT CASE i % 3
                WHEN 0 THEN format('10.%s.%s.%s/32', (i >> 16) & 255, (i >> 8) & 255, i & 255)
                WHEN 1 THEN format('11.%s.%s.0/24', (i >> 8) & 255, i & 255)
                ELSE format('2001:db8:%s::/48', to_hex(i))
              END, 'bench', 'bench', now()
         FROM generate_series(1, $1::int - 1) AS i`,
      [count],
    );
  }
  await db.query(`UPDATE admin.maintenance_setting SET revision = revision + 1`);
  const want = count > 0 ? 403 : 200;
  for (let i = 0; ; i++) {
    if ((await statusFrom(`${baseUrl}/healthz`, BLOCKED_PROBE)) === want) return;
    if (i > 100) throw new Error(`the gateway did not ${count > 0 ? 'load' : 'drop'} the IP blocks`);
    await sleep(100);
  }
}

/**
 * Starts a staged rollout (10 %, then 100 %) of the newest build of each of the first `count`
 * product lines through HTTP (`on`), or completes them (`off`: advance twice; the builds are
 * back under their own rule). The firmware app drops its index of the customer at each change.
 */
async function setRollouts(baseUrl: string, token: string, customer: string, buildIds: readonly string[], on: boolean): Promise<void> {
  for (const id of buildIds) {
    const steps = on
      ? [['rollout', { stages: [{ percent: 10, hold_minutes: 600 }, { percent: 100 }], halt_rules: [] }]]
      : [['rollout/advance'], ['rollout/advance']];
    for (const [path, body] of steps as [string, unknown?][]) {
      const reply = await fetch(`${baseUrl}/firmware/${id}/${path}?customer=${customer}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      if (reply.status !== 200 && reply.status !== 201) throw new Error(`POST /firmware/${id}/${path}: ${reply.status} ${await reply.text()}`);
    }
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const placement = cpuPlacement();
  const database = await createDatabase();
  const db = new pg.Client({ connectionString: database.url });
  const baseEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    // The caller's Node options reach the servers too (e.g. an --import for a comparison run).
    ...(process.env.NODE_OPTIONS ? { NODE_OPTIONS: process.env.NODE_OPTIONS } : {}),
    DATABASE_URL: database.url,
    OPERATOR_ADMIN_EMAIL: ADMIN_EMAIL,
    UPDATE_CHECK_RATE_PER_MINUTE: '1000000000',
    LOG_LEVEL: 'error',
    // Node 20: the AWS SDK's one-time plain-text warning would interleave with the figures (docs/configuration.md "Variables outside the service").
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  let redis: { db: number; url: string } | null = null;
  const runId = randomBytes(4).toString('hex');
  let s3: Awaited<ReturnType<typeof startS3Server>> | null = null;
  try {
    // ---- (a) the standalone service on the throwaway database; it also creates the customers
    const aPort = await freePort();
    const aUrl = `http://127.0.0.1:${aPort}`;
    const dataDir = tempDir('bench-update-check-');
    const standalone = track(
      spawnNode(
        join(here, '../../apps/standalone/src/main.js'),
        { ...baseEnv, PORT: String(aPort), PUBLIC_URL: aUrl, DATA_DIR: dataDir, NATS_URL: '', REDIS_URL: '', S3_BUCKET: '', SMTP_URL: '' },
        placement.servers,
      ),
    );
    await waitForHttp(`${aUrl}/healthz`, 60_000);
    const admin = await tokenViaOutbox(aUrl, join(dataDir, 'outbox'), ADMIN_EMAIL, 'admin');
    const customers: Record<'main' | 'small' | 'large', { domain: string; id: string; devices: number }> = {
      main: { domain: 'bench-100k.test', id: '', devices: 100_000 },
      small: { domain: 'bench-10k.test', id: '', devices: 10_000 },
      large: { domain: 'bench-1m.test', id: '', devices: 1_000_000 },
    };
    await db.connect();
    for (const customer of Object.values(customers)) {
      const created = await fetch(`${aUrl}/admin/customers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ domain: customer.domain, name: customer.domain }),
      });
      if (created.status !== 201) throw new Error(`POST /admin/customers answered ${created.status}: ${await created.text()}`);
      customer.id = (await db.query<{ id: string }>(`SELECT id FROM identity.customers WHERE domain = $1`, [customer.domain])).rows[0].id;
      await seedBuilds(db, customer.id);
      await seedDevices(db, customer.id, customer.devices);
    }
    // Vacuumed and analysed now, so that PostgreSQL's autovacuum of the freshly seeded tables
    // does not run during the measurements (it took CPU from the services: p99 spikes of 40-90 ms
    // in the fixed-rate run of (a), the first after seeding).
    await db.query(`VACUUM (ANALYZE) firmware.build, firmware.build_tag, registry.device, registry.device_tag`);
    const seededAt = Date.now();
    process.stdout.write(`seeded 3 customers (1,000 builds each; 100,000, 10,000 and 1,000,000 devices) in ${((seededAt - started) / 1000).toFixed(0)} s\n`);

    const mainPolls = pollers(customers.main.domain, customers.main.devices, POLLERS);
    // A real answer (one build offered) as the bare server's fixed body.
    let sample = '';
    let sampleHeaders: [string, string][] = [];
    for (const request of mainPolls) {
      const reply = await fetch(`${aUrl}${request.path}`);
      const text = await reply.text();
      if (text.startsWith('[{')) {
        sample = text;
        sampleHeaders = [...reply.headers].filter(([name]) => !NOT_COPIED_HEADERS.has(name));
        break;
      }
    }
    const bodyFile = join(dataDir, 'bare-body.json');
    writeFileSync(bodyFile, sample);
    const headersFile = join(dataDir, 'bare-headers.json');
    writeFileSync(headersFile, JSON.stringify(sampleHeaders));

    // ---- (c) and (e), the bare baselines, and (a) the standalone, measured in turns (c, e, a, c,
    // e, a) so that a burst of other load on this shared machine falls on all rather than on one
    const cPort = await freePort();
    const cUrl = `http://127.0.0.1:${cPort}`;
    const bare = track(spawnNode(join(here, 'bare-json-server.js'), { ...baseEnv, BARE_PORT: String(cPort), BARE_BODY_FILE: bodyFile }, placement.servers));
    await waitForHttp(`${cUrl}/`);
    const ePort = await freePort();
    const eUrl = `http://127.0.0.1:${ePort}`;
    const bareWithHeaders = track(
      spawnNode(
        join(here, 'bare-json-server.js'),
        { ...baseEnv, BARE_PORT: String(ePort), BARE_BODY_FILE: bodyFile, BARE_HEADERS_FILE: headersFile },
        placement.servers,
      ),
    );
    await waitForHttp(`${eUrl}/`);
    await load(eUrl, mainPolls, { seconds: 2 });
    await load(cUrl, mainPolls, { seconds: 2 });
    // Warm-up: every polling device once (the device cache: autocannon walks the list in step on
    // all connections, so a short run reaches only part of it), then 5 s of load (JIT).
    await pollEach(aUrl, mainPolls);
    await load(aUrl, mainPolls, { seconds: 5 });
    const cRuns: Figures[] = [];
    const eRuns: Figures[] = [];
    const aRuns: Figures[] = [];
    for (let round = 0; round < 2; round++) {
      cRuns.push(await load(cUrl, mainPolls, { pids: [bare.pid!] }));
      eRuns.push(await load(eUrl, mainPolls, { pids: [bareWithHeaders.pid!] }));
      aRuns.push(await load(aUrl, mainPolls, { pids: [standalone.pid!] }));
    }
    await stop(bareWithHeaders);
    const c = fastest(cRuns);
    const e = fastest(eRuns);
    const a = fastest(aRuns);
    const cFixed = await steady(cUrl, mainPolls, FIXED_RATE);
    const aFixed = await steady(aUrl, mainPolls, FIXED_RATE);
    const a304 = await load(aUrl, await repeatPolls(aUrl, mainPolls));
    await stop(bare);
    // 10,000 versus 1,000,000 devices, each run with a cold device cache (the first poll of each
    // device asks the registry): every run polls devices that no run before it polled, the same
    // number at both sizes (all 10,000 devices of the smaller customer over its runs; drawn from
    // an overlapping sample, its later runs were partly warm and faster for that alone). Each
    // round runs one size right after the other, in the order small, large, large, small, ...,
    // and what is compared is the median over the rounds of large/small within a round: this
    // machine's speed swings by half within a minute (two 1,000,000 runs in a row at 8,300
    // req/s between runs at 13,000 once), which moves medians of whole runs, while the two runs
    // of a round, 5 s apart, mostly share the machine's state. (A short bare-server run before
    // each, as reference, added its own noise: 41,000 to 61,000 req/s in one bench.) The raw
    // medians of each size are printed too.
    const sizeRuns: Record<'small' | 'large', Figures[]> = { small: [], large: [] };
    const sizePolls = {
      small: disjointPollers(customers.small.domain, customers.small.devices, SIZE_POLLERS, SIZE_ROUNDS),
      large: disjointPollers(customers.large.domain, customers.large.devices, SIZE_POLLERS, SIZE_ROUNDS),
    };
    for (let round = 0; round < SIZE_ROUNDS; round++) {
      const order = round % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const);
      for (const size of order) {
        sizeRuns[size].push(await load(aUrl, sizePolls[size][round], { seconds: SIZE_SECONDS, pids: [standalone.pid!] }));
      }
    }
    const roundRatios = sizeRuns.large.map((run, i) => run.rps / sizeRuns.small[i].rps);
    const sortedRatios = [...roundRatios].sort((x, y) => x - y);
    const pairedRatio = (sortedRatios[Math.floor((SIZE_ROUNDS - 1) / 2)] + sortedRatios[Math.ceil((SIZE_ROUNDS - 1) / 2)]) / 2;
    // IP_BLOCKS IP blocks loaded versus none, in turns (without, with, with, without, ...), the
    // same polls as (a): every request is looked up in the blocks.
    const blockRuns: Record<'without' | 'with', Figures[]> = { without: [], with: [] };
    if (IP_BLOCKS > 0) {
      for (let round = 0; round < IP_BLOCK_ROUNDS; round++) {
        const order = round % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const);
        for (const kind of order) {
          await setIpBlocks(db, aUrl, kind === 'with' ? IP_BLOCKS : 0);
          blockRuns[kind].push(await load(aUrl, mainPolls, { seconds: SIZE_SECONDS, pids: [standalone.pid!] }));
        }
      }
      await setIpBlocks(db, aUrl, 0);
    }
    // ROLLOUTS running rollouts versus none, in turns (without, with, with, without, ...), the
    // same polls as (a): the newest build of each line is then offered through a stage gate.
    const rolloutRuns: Record<'without' | 'with', Figures[]> = { without: [], with: [] };
    if (ROLLOUTS > 0) {
      const newest = (
        await db.query<{ id: string }>(`SELECT id FROM firmware.build WHERE customer_id = $1 AND fw_version = $2 ORDER BY hw_name LIMIT $3`, [
          customers.main.id,
          `2.${VERSIONS_PER_LINE - 1}`,
          ROLLOUTS,
        ])
      ).rows.map((r) => r.id);
      let running = false;
      for (let round = 0; round < ROLLOUT_ROUNDS; round++) {
        const order = round % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const);
        for (const kind of order) {
          if (running !== (kind === 'with')) await setRollouts(aUrl, admin, customers.main.domain, newest, kind === 'with');
          running = kind === 'with';
          await pollEach(aUrl, mainPolls.slice(0, 200));
          rolloutRuns[kind].push(await load(aUrl, mainPolls, { seconds: SIZE_SECONDS, pids: [standalone.pid!] }));
        }
      }
      if (running) await setRollouts(aUrl, admin, customers.main.domain, newest, false);
    }
    await stop(standalone);

    // ---- (b) the distributed service on the same database
    const nats = await startNats(tempDir('bench-nats-'), join(tempDir('bench-nats-log-'), 'nats.log'));
    if (nats.process) track(nats.process);
    redis = await claimRedisDatabase(runId);
    s3 = await startS3Server();
    const bPort = await freePort();
    const bUrl = `http://127.0.0.1:${bPort}`;
    const distributedEnv = {
      ...baseEnv,
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      ...s3.env,
      DOWNLOAD_LINK_SECRET: randomBytes(32).toString('hex'),
      PORT: String(bPort),
      PUBLIC_URL: bUrl,
      DATA_DIR: tempDir('bench-distributed-'),
    };
    const appPids: number[] = [];
    const appNames = ['identity', 'registry', 'admin', 'firmware', 'gateway'];
    for (const app of appNames) {
      appPids.push(track(spawnNode(join(here, `../../apps/${app}/src/main.js`), distributedEnv, placement.servers)).pid!);
    }
    const firstPoll = `${bUrl}${mainPolls[0].path}`;
    for (let i = 0; ; i++) {
      const status = await fetch(firstPoll).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) break;
      if (i > 300) throw new Error(`the distributed service did not answer ${firstPoll} (last status ${status})`);
      await sleep(200);
    }
    await pollEach(bUrl, mainPolls);
    await load(bUrl, mainPolls, { seconds: 5 });
    // ---- (d) the bare forwarding baseline on the same NATS server: a node:http server sending
    // each request over NATS to a responder answering the fixed body (bare-nats-forwarder.ts);
    // measured in turns with (b) (d, b, d, b), both processes' CPU counted.
    const dPort = await freePort();
    const dUrl = `http://127.0.0.1:${dPort}`;
    const dEnv = { ...baseEnv, NATS_URL: nats.url, BARE_BODY_FILE: bodyFile, BARE_PORT: String(dPort) };
    const dPids = [
      track(spawnNode(join(here, 'bare-nats-forwarder.js'), { ...dEnv, BARE_ROLE: 'responder' }, placement.servers)).pid!,
      track(spawnNode(join(here, 'bare-nats-forwarder.js'), { ...dEnv, BARE_ROLE: 'forwarder' }, placement.servers)).pid!,
    ];
    await waitForHttp(`${dUrl}/`);
    await load(dUrl, mainPolls, { seconds: 2 });
    const bRuns: Figures[] = [];
    const dRuns: Figures[] = [];
    for (let round = 0; round < 2; round++) {
      dRuns.push(await load(dUrl, mainPolls, { pids: dPids }));
      bRuns.push(await load(bUrl, mainPolls, { pids: appPids }));
    }
    const b = fastest(bRuns);
    const d = fastest(dRuns);
    const bFixed = await steady(bUrl, mainPolls, FIXED_RATE);
    const b304 = await load(bUrl, await repeatPolls(bUrl, mainPolls));

    const line = '-'.repeat(100);
    const ratio = (x: Figures) => x.rps / c.rps;
    const difference = (x: number, y: number) => Math.abs(x - y) / Math.max(x, y);
    console.log(line);
    console.log(`bench:update-check  1,000 builds and 100,000 devices in one customer; ${POLLERS} distinct devices polling (version ${CURRENT});`);
    console.log(
      `  autocannon ${CONNECTIONS} connections, ${SECONDS} s per run, the faster of two; machine: ${(await import('node:os')).cpus().length} cores, load average ${(await import('node:os')).loadavg()[0].toFixed(1)}`,
    );
    console.log(`  ${placement.description}`);
    console.log(`  (c) bare node:http, fixed JSON body (${Buffer.byteLength(sample)} bytes): ${show(c)}`);
    console.log(`  (e) bare node:http, the answer's bytes (${sampleHeaders.length + 1} more headers): ${show(e)}`);
    console.log(`  (a) standalone service (PostgreSQL)       : ${show(a)}`);
    const turns = (runs: readonly Figures[]) => runs.map((r) => r.rps.toFixed(0)).join(', ');
    console.log(`      (c, e and a measured in turns: c ${turns(cRuns)}; e ${turns(eRuns)}; a ${turns(aRuns)} req/s)`);
    console.log(`  (b) distributed (NATS, 5 app processes)   : ${show(b)}`);
    console.log(`  ratio a/c: ${ratio(a).toFixed(2)}   (target >= 0.4)   ratio b/c: ${ratio(b).toFixed(2)}`);
    const perRequest = (x: Figures) => (x.cpuMicros && c.cpuMicros ? (c.cpuMicros / x.cpuMicros).toFixed(2) : 'n/a');
    console.log(
      `  ratio a/e: ${(a.rps / e.rps).toFixed(2)}; server CPU per request, e/a: ${e.cpuMicros && a.cpuMicros ? (e.cpuMicros / a.cpuMicros).toFixed(2) : 'n/a'}   (the service against a bare server sending the same bytes)`,
    );
    console.log(
      `  server CPU per request, bare/service (the ratio without autocannon's ceiling): (a) ${perRequest(a)}, (b) ${perRequest(b)} (all five app processes)`,
    );
    console.log(`  (d) bare forwarding over NATS (2 processes): ${show(d)}`);
    console.log(
      `      (d and b measured in turns: d ${dRuns.map((r) => r.rps.toFixed(0)).join(', ')}; b ${bRuns.map((r) => r.rps.toFixed(0)).join(', ')} req/s)`,
    );
    console.log(
      `  ratio b/d: ${(b.rps / d.rps).toFixed(2)}; server CPU per request, bare forwarding/distributed: ${d.cpuMicros && b.cpuMicros ? (d.cpuMicros / b.cpuMicros).toFixed(2) : 'n/a'}; (d) by process: responder ${(d.cpuMicrosEach[0] ?? 0).toFixed(1)} µs, forwarder ${(d.cpuMicrosEach[1] ?? 0).toFixed(1)} µs`,
    );
    console.log(`  (b) CPU per request by process: ${appNames.map((app, i) => `${app} ${(b.cpuMicrosEach[i] ?? 0).toFixed(1)} µs`).join(', ')}`);
    console.log(
      `  304 share on repeat polls with If-None-Match: (a) ${share304(a304).toFixed(3)} at ${a304.rps.toFixed(0)} req/s, (b) ${share304(b304).toFixed(3)} at ${b304.rps.toFixed(0)} req/s   (target >= 0.95)`,
    );
    console.log(
      `  p99 at a fixed 1,000 req/s (open loop): (a) ${aFixed.p99.toFixed(1)} ms (p50 ${aFixed.p50.toFixed(1)}), (b) ${bFixed.p99.toFixed(1)} ms (p50 ${bFixed.p50.toFixed(1)}); bare ${cFixed.p99.toFixed(1)} ms   (target < 20 ms)`,
    );
    if (SIZE_ROUNDS > 0) {
      const aSmall = median(sizeRuns.small);
      const aLarge = median(sizeRuns.large);
      const runsOf = (size: 'small' | 'large') => sizeRuns[size].map((r) => r.rps.toFixed(0)).join(', ');
      console.log(`  (a) at 10,000 devices, runs: ${runsOf('small')} req/s`);
      console.log(`  (a) at 1,000,000 devices, runs: ${runsOf('large')} req/s`);
      console.log(
        `      (each run ${SIZE_POLLERS} devices not polled before, cold device cache; ${SIZE_ROUNDS} rounds of both sizes back to back, order small, large, large, small, ...)`,
      );
      console.log(`  (a) at 10,000 devices    (median): ${show(aSmall)}`);
      console.log(`  (a) at 1,000,000 devices (median): ${show(aLarge)}`);
      console.log(
        `  req/s 10,000 vs 1,000,000 devices, medians: ${aSmall.rps.toFixed(0)} vs ${aLarge.rps.toFixed(0)}, difference ${(difference(aSmall.rps, aLarge.rps) * 100).toFixed(1)} %`,
      );
      console.log(
        `  1,000,000 / 10,000 devices within each round: ${roundRatios.map((r) => r.toFixed(3)).join(', ')}; median ${pairedRatio.toFixed(3)}, difference ${(difference(pairedRatio, 1) * 100).toFixed(1)} %   (target within 10 %)`,
      );
    }
    if (IP_BLOCKS > 0) {
      const without = median(blockRuns.without);
      const withBlocks = median(blockRuns.with);
      const blockRunsOf = (kind: 'without' | 'with') => blockRuns[kind].map((r) => r.rps.toFixed(0)).join(', ');
      console.log(`  (a) without IP blocks, runs: ${blockRunsOf('without')} req/s; median ${show(without)}`);
      console.log(`  (a) with ${IP_BLOCKS} IP blocks (none matching), runs: ${blockRunsOf('with')} req/s; median ${show(withBlocks)}`);
      console.log(
        `  req/s with / without IP blocks, medians: ${(withBlocks.rps / without.rps).toFixed(3)}, difference ${(difference(withBlocks.rps, without.rps) * 100).toFixed(1)} %   (target: within noise)`,
      );
    }
    if (ROLLOUTS > 0) {
      const without = median(rolloutRuns.without);
      const withRollouts = median(rolloutRuns.with);
      const rolloutRunsOf = (kind: 'without' | 'with') => rolloutRuns[kind].map((r) => r.rps.toFixed(0)).join(', ');
      console.log(`  (a) without rollouts, runs: ${rolloutRunsOf('without')} req/s; median ${show(without)}`);
      console.log(`  (a) with ${ROLLOUTS} running rollouts, runs: ${rolloutRunsOf('with')} req/s; median ${show(withRollouts)}`);
      console.log(
        `  req/s with / without running rollouts, medians: ${(withRollouts.rps / without.rps).toFixed(3)}, difference ${(difference(withRollouts.rps, without.rps) * 100).toFixed(1)} %   (target: within noise)`,
      );
    }
    console.log(`  total time ${((Date.now() - started) / 1000).toFixed(0)} s (seeding ${((seededAt - started) / 1000).toFixed(0)} s)`);
    console.log(line);
  } finally {
    for (const child of children.reverse()) await stop(child);
    await db.end().catch(() => undefined);
    await s3?.close().catch(() => undefined);
    if (redis) await releaseRedisDatabase(redis.db, runId).catch(() => undefined);
    await dropDatabase(database.name).catch(() => undefined);
  }
}

await main();
