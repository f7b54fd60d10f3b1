// Shared by the fleet-scale benches (bench:devices, bench:rollouts): 1,000,000 devices seeded
// with set-based SQL, builds uploaded through HTTP, timed requests.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { versionKey } from '../../apps/firmware/src/domain/version-order.js';
import { startNats } from '../e2e/support/stack.js';
import { freePort, spawnNode, tempDir } from './bench-support.js';

export const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const BENCH_EMAIL = 'bench@operator.local';
const here = fileURLToPath(new URL('.', import.meta.url));

/** The standalone service of a fleet bench, on a throwaway PostgreSQL database and a NATS server of its own. */
export interface FleetBenchService {
  readonly dbName: string;
  readonly dbUrl: URL;
  readonly dataDir: string;
  readonly baseUrl: string;
  /** The bench's own NATS server, which the service uses. */
  readonly natsUrl: string;
  readonly service: ChildProcess;
  /** When it was started (Date.now()). */
  readonly started: number;
  /** Stops the service and NATS, drops the database and removes the directories. */
  stop(): Promise<void>;
}

export async function startFleetBenchService(name: string): Promise<FleetBenchService> {
  const dbName = `bench_${name}_${randomBytes(5).toString('hex')}`;
  const dbUrl = new URL(PG_ADMIN_URL);
  dbUrl.pathname = `/${dbName}`;
  const dataDir = tempDir(`bench-${name}-`);
  const natsDir = tempDir(`bench-${name}-nats-`);
  const started = Date.now();
  await adminQuery(PG_ADMIN_URL, `CREATE DATABASE ${dbName}`);
  const nats = await startNats(natsDir, join(natsDir, 'nats.log'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const service = spawnNode(join(here, '../../apps/standalone/src/main.js'), {
    ...process.env,
    PORT: String(port),
    PUBLIC_URL: baseUrl,
    DATA_DIR: dataDir,
    DATABASE_URL: dbUrl.toString(),
    NATS_URL: nats.url,
    REDIS_URL: '',
    S3_BUCKET: '',
    SMTP_URL: '',
    OPERATOR_DOMAIN: 'operator.local',
    OPERATOR_ADMIN_EMAIL: BENCH_EMAIL,
    LOG_LEVEL: 'warn',
    OTEL_SDK_DISABLED: 'true',
  });
  const stop = async () => {
    await new Promise<void>((resolve) => {
      if (service.exitCode !== null) return resolve();
      service.once('exit', () => resolve());
      service.kill('SIGTERM');
      setTimeout(() => {
        service.kill('SIGKILL');
        resolve();
      }, 10_000).unref();
    });
    nats.process?.kill('SIGTERM');
    await adminQuery(PG_ADMIN_URL, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch((err) => console.error(`could not drop ${dbName}:`, err));
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(natsDir, { recursive: true, force: true });
  };
  return { dbName, dbUrl, dataDir, baseUrl, natsUrl: nats.url, service, started, stop };
}

/** Versions the seeded devices last reported (i % 8), on product lines board/rev(i % 3)/main. */
export const REPORTED_VERSIONS = ['1.0', '1.1', '1.2', '1.3', '1.4', '1.5', '2.0', '2.1'];

export const ms = (ns: bigint) => Number(ns) / 1e6;
export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
export const fmt = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));

export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = process.hrtime.bigint();
  const value = await fn();
  return { value, ms: ms(process.hrtime.bigint() - started) };
}

export function http(method: string, url: string, token: string, body?: { data: Buffer; type: string }): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { authorization: `Bearer ${token}` };
    if (body) Object.assign(headers, { 'content-type': body.type, 'content-length': body.data.length });
    const req = request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(600_000, () => req.destroy(new Error(`${method} ${url}: no answer`)));
    req.on('error', reject);
    req.end(body?.data);
  });
}

/** One statement on the maintenance database (CREATE / DROP DATABASE). */
export async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * One customer's fleet, by i: tags region-(i%10) (10% each), model-(i%100) (1% each), even (50%),
 * beta (i%1009=0, 0.1%); withdrawn when i%53=0 (1.9%); a key when i%4=1 (25%). The tag array is
 * built already sorted in byte order (beta < even < model-* < region-*). Its last update check:
 * none when i%20=7 (5%), else on board/rev(i%3)/main at REPORTED_VERSIONS[i%8], up to 23 days ago.
 */
export async function seed(db: pg.Client, customerId: string, prefix: string, count: number, pem: string): Promise<void> {
  await db.query(
    `INSERT INTO registry.device (customer_id, hwid, status, tags, attributes, keys,
                                  last_seen_at, last_fw_version, last_hw_name, last_hw_version, last_fw_name, last_version_key)
     SELECT $1::uuid, $2 || lpad(i::text, 7, '0'),
            CASE WHEN i % 53 = 0 THEN 'withdrawn' ELSE 'active' END,
            array_remove(ARRAY[CASE WHEN i % 1009 = 0 THEN 'beta' END, CASE WHEN i % 2 = 0 THEN 'even' END,
                               'model-' || lpad((i % 100)::text, 2, '0'), 'region-' || (i % 10)], NULL),
            jsonb_build_object('lot', i / 1000),
            CASE WHEN i % 4 = 1 THEN ARRAY[$3] ELSE '{}' END,
            CASE WHEN i % 20 = 7 THEN NULL ELSE now() - ((i::bigint * 7919) % 2000000) * interval '1 second' END,
            CASE WHEN i % 20 = 7 THEN NULL ELSE ($5::text[])[1 + i % 8] END,
            CASE WHEN i % 20 = 7 THEN NULL ELSE 'board' END,
            CASE WHEN i % 20 = 7 THEN NULL ELSE 'rev' || (i % 3) END,
            CASE WHEN i % 20 = 7 THEN NULL ELSE 'main' END,
            CASE WHEN i % 20 = 7 THEN NULL ELSE ($6::bytea[])[1 + i % 8] END
     FROM generate_series(0, $4::int - 1) AS i`,
    [customerId, prefix, pem, count, REPORTED_VERSIONS, REPORTED_VERSIONS.map((v) => versionKey(v))],
  );
  await db.query(
    `INSERT INTO registry.device_tag (customer_id, tag, hwid)
     SELECT customer_id, t.tag, hwid FROM registry.device, unnest(tags) AS t(tag) WHERE customer_id = $1 ORDER BY 2, 3`,
    [customerId],
  );
}

/** A build uploaded through HTTP on board/rev1/main (JSON mode), then PATCHed: its id. */
export async function uploadBuild(baseUrl: string, token: string, version: string, query: string, patch: Record<string, unknown> | null): Promise<string> {
  const boundary = `bench${randomBytes(8).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="firmware"; filename="fw.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    Buffer.from(`code\0@(#)${version}, 2026-11-20T10:00:00Z, AFI\0more`, 'latin1'),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const reply = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(
      `${baseUrl}/firmware/board/rev1/main?${query}`,
      {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': body.length,
        },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  if (reply.status !== 201) throw new Error(`upload ${version}: ${reply.status} ${reply.text.slice(0, 300)}`);
  const id = (JSON.parse(reply.text) as { id: string }).id;
  if (patch) {
    const patched = await http('PATCH', `${baseUrl}/firmware/${id}`, token, { data: Buffer.from(JSON.stringify(patch)), type: 'application/json' });
    if (patched.status !== 200) throw new Error(`PATCH ${version}: ${patched.status} ${patched.text.slice(0, 300)}`);
  }
  return id;
}

/** p50 / p99 (ms) of `repeat` sequential GETs after two warm-up requests, and the last body. */
export async function timedGets(url: string, token: string, repeat: number): Promise<{ p50: number; p99: number; body: Record<string, unknown> }> {
  const times: number[] = [];
  let body: Record<string, unknown> = {};
  for (let i = 0; i < repeat + 2; i++) {
    const run = await timed(() => http('GET', url, token));
    if (run.value.status !== 200) throw new Error(`${url} answered ${run.value.status}: ${run.value.text.slice(0, 300)}`);
    if (i >= 2) times.push(run.ms);
    body = JSON.parse(run.value.text) as Record<string, unknown>;
  }
  times.sort((x, y) => x - y);
  return { p50: percentile(times, 50), p99: percentile(times, 99), body };
}
