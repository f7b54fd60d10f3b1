import 'reflect-metadata';
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import type { INestMicroservice } from '@nestjs/common';
import {
  APP_DATA_TIMEOUT_MS,
  AppDataDumpProblem,
  AppDataDumpRefused,
  AppDataMessages,
  type AppDataExportReply,
  type BackupApp,
  ErrorCode,
  storedFilesObjectKey,
  type StoredFileRef,
} from '@app/contracts';
import {
  type AppDatabaseOptions,
  closeDatabases,
  closeMessageBuses,
  configureLogging,
  createMessageBus,
  FilesystemObjectStore,
  type MessageBus,
  type ObjectStore,
  openAppDatabase,
  sql,
} from '@app/infra';
import {
  type AppDataDeclaration,
  ExportAppData,
  ExportAppDataCommand,
  ImportAppData,
  ImportAppDataCommand,
  readStoredFileRefs,
  startBackendApp,
} from '@app/platform';
import type { DataSource } from 'typeorm';
import { ADMIN_APP_DATA } from '../../apps/admin/src/admin.app-data.js';
import { ADMIN_DATABASE } from '../../apps/admin/src/admin.module.js';
import { FIRMWARE_APP_DATA } from '../../apps/firmware/src/firmware.app-data.js';
import { FIRMWARE_DATABASE } from '../../apps/firmware/src/firmware.module.js';
import { IDENTITY_APP_DATA } from '../../apps/identity/src/identity.app-data.js';
import { IDENTITY_DATABASE } from '../../apps/identity/src/identity.module.js';
import { LOGDATA_DATABASE, LogdataModule } from '../../apps/logdata/src/logdata.module.js';
import { REGISTRY_APP_DATA } from '../../apps/registry/src/registry.app-data.js';
import { REGISTRY_DATABASE } from '../../apps/registry/src/registry.module.js';
import { startNats } from '../e2e/support/stack.js';
import { createThrowaway, type Throwaway } from './logdata.support.js';
import { RecordingBus } from './registry.support.js';
import { serviceErrorOf } from '@app/testing';

configureLogging({ sink: () => undefined });
// Hundreds of thousands of rows through the embedded database take a while on a busy machine.
jest.setTimeout(600_000);

/** V8's gc(), without --expose-gc on the command line. */
function gcFunction(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function readObject(store: ObjectStore, key: string): Promise<Buffer> {
  const body = await store.get(key);
  if (!body) throw new Error(`no object ${key}`);
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function putObject(store: ObjectStore, key: string, bytes: Buffer): Promise<void> {
  await store.put(key, Readable.from([bytes]), { sizeBytes: bytes.length });
}

/** Every row of a table as JSON text, sorted: two calls compare whole table contents. */
async function contents(ds: DataSource, schema: string, table: string): Promise<string[]> {
  const { rows } = await sql(ds, `SELECT to_jsonb(t)::text AS row FROM "${schema}"."${table}" t`);
  return rows.map((r) => String(r.row)).sort();
}

async function allContents(ds: DataSource, declaration: AppDataDeclaration): Promise<Record<string, string[]>> {
  const result: Record<string, string[]> = {};
  for (const table of declaration.tables) result[table] = await contents(ds, declaration.app, table);
  return result;
}

/** Rows in every table of identity's declaration (FKs, arrays, bytea with NUL, identity column, text with tabs and newlines). */
async function seedIdentity(ds: DataSource, n: number): Promise<void> {
  await ds.query(`
    INSERT INTO identity.customers (domain, name, cors_origins, status)
      SELECT 'c' || i || '.example', E'Customer\\t' || i || E'\\nsecond line \\\\ ü', ARRAY['https://a' || i || '.example', 'x"y'], CASE WHEN i % 3 = 0 THEN 'suspended' ELSE 'active' END
      FROM generate_series(1, ${n}) i`);
  await ds.query(
    `INSERT INTO identity.users (email, last_login_at) SELECT 'u' || i || '@example.com', CASE WHEN i % 2 = 0 THEN now() END FROM generate_series(1, ${n}) i`,
  );
  const pairs = `(SELECT id, row_number() OVER (ORDER BY domain) AS r FROM identity.customers) c JOIN (SELECT id, row_number() OVER (ORDER BY email) AS r FROM identity.users) u USING (r)`;
  await ds.query(`INSERT INTO identity.memberships (customer_id, user_id, role) SELECT c.id, u.id, 'owner' FROM ${pairs}`);
  await ds.query(
    `INSERT INTO identity.signing_keys (kid, public_x, private_pkcs8) VALUES ('kid-1', 'x1', E'-----BEGIN PRIVATE KEY-----\\nAAA\\n-----END PRIVATE KEY-----\\n')`,
  );
  await ds.query(`INSERT INTO identity.secrets (name, value) VALUES ('csrf', '\\x00ff0a095c'::bytea)`);
  await ds.query(`INSERT INTO identity.api_tokens (id, customer_id, created_by, name, bundle, scopes, expires_at)
    SELECT gen_random_uuid(), c.id, u.id, 'token ' || r, 'full', ARRAY['firmware:read', 'devices:write'], now() + interval '30 days' FROM ${pairs}`);
  await ds.query(`INSERT INTO identity.sandbox_tokens (bundle, token_id, token) SELECT 'read-only', id, 'sandbox-' || name FROM identity.api_tokens LIMIT 1`);
  await ds.query(
    `INSERT INTO identity.sessions (id, user_id, customer_id, expires_at) SELECT gen_random_uuid(), u.id, c.id, now() + interval '1 day' FROM ${pairs}`,
  );
  await ds.query(`INSERT INTO identity.refresh_tokens (token_hash, session_id) SELECT 'h-' || id, id FROM identity.sessions`);
  await ds.query(`INSERT INTO identity.login_challenges (id, email, user_id, code_salt, code_hash, link_hash, expires_at)
    SELECT gen_random_uuid(), email, id, 's', 'c', 'l-' || email, now() + interval '15 minutes' FROM identity.users`);
  await ds.query(
    `INSERT INTO identity.login_attempts (kind, ip, email) SELECT 'login', '192.0.2.' || (i % 250), 'u' || i || '@example.com' FROM generate_series(1, ${n}) i`,
  );
  await ds.query(`INSERT INTO identity.outbox (id, kind, payload) SELECT gen_random_uuid(), 'audit', '{"n":' || i || '}' FROM generate_series(1, 5) i`);
}

async function seedFirmware(ds: DataSource, n: number): Promise<void> {
  await ds.query(`
    INSERT INTO firmware.build (customer_id, hw_name, hw_version, fw_name, fw_version, fw_type, version_key, build_date, object_key, size_bytes, sha256, what_string, uploaded_by,
                                notes_object_key, notes_size_bytes, notes_sha256)
      SELECT '00000000-0000-4000-8000-000000000001', 'board', 'rev' || (i % 3), 'main', '1.' || i || '.0', 'AFI', int4send(i), now() - i * interval '1 hour',
             'firmware/b' || i, 1000 + i, repeat('a', 64), E'@(#)1.' || i || E'.0\\t', 'uploader',
             CASE WHEN i % 2 = 0 THEN 'firmware/n' || i END, CASE WHEN i % 2 = 0 THEN 10 + i END, CASE WHEN i % 2 = 0 THEN repeat('b', 64) END
      FROM generate_series(1, ${n}) i`);
  await ds.query(`INSERT INTO firmware.build_tag (build_id, customer_id, tag) SELECT id, customer_id, 'beta' FROM firmware.build`);
  await ds.query(
    `INSERT INTO firmware.tag_sync_op (customer_id, kind, tag, to_tag) SELECT '00000000-0000-4000-8000-000000000001', 'rename', 't' || i, 'u' || i FROM generate_series(1, 7) i`,
  );
  await ds.query(`INSERT INTO firmware.outbox (id, kind, payload) SELECT gen_random_uuid(), 'security_event', '{}' FROM generate_series(1, 3)`);
  await ds.query(`INSERT INTO firmware.update_signing_keys (kid, public_x, private_pkcs8, created_at, signs_from, published_until) VALUES
    ('fw-kid-1', 'x1', E'-----BEGIN PRIVATE KEY-----\\nAAA\\n-----END PRIVATE KEY-----\\n', now() - interval '2 days', now() - interval '2 days', now() + interval '1 day'),
    ('fw-kid-2', 'x2', 'p2', now(), now() + interval '1 hour', NULL)`);
  // Rollouts of every fourth build (json plans, arrays, a halt), in each state.
  await ds.query(`
    INSERT INTO firmware.rollout (id, customer_id, build_id, state, stages, current_stage, stage_started_at, thresholds, stage_log, extra_tags, halt_rules, halt,
                                  complete_as_general_release, grace_minutes, silent_after_minutes, start_at, created_by, revision)
      SELECT gen_random_uuid(), customer_id, id, (ARRAY['scheduled', 'running', 'paused', 'halted', 'completed', 'aborted'])[1 + r % 6],
             '[{"percent":10,"min_devices":5,"hold_minutes":60},{"percent":100,"min_devices":0,"hold_minutes":0}]', r % 2, now() - r * interval '1 minute',
             ARRAY[1000, 10000], jsonb_build_array(jsonb_build_object('stage', 0, 'audience', r, 'target', r)), ARRAY['canary', E'tab\\there'],
             '[{"outcome":"failed","max_percent":5,"min_outcomes":20}]', CASE WHEN r % 6 = 3 THEN '{"rule":"failed","percent":12.5}'::jsonb END,
             r % 2 = 0, 30, 1440, now() + r * interval '1 hour', 'uploader', r
      FROM (SELECT id, customer_id, row_number() OVER (ORDER BY id) AS r FROM firmware.build) b WHERE r % 4 = 0`);
}

async function seedAdmin(ds: DataSource, n: number): Promise<void> {
  await ds.query(`INSERT INTO admin.audit_log (ts, domain, actor, action, target_type, target_id, before, after, event_id)
    SELECT now(), 'c.example', 'a@example.com', 'device.create', 'device', 'd' || i, '{"x":1}', NULL, gen_random_uuid() FROM generate_series(1, ${n}) i`);
  await ds.query(
    `INSERT INTO admin.security_event (ts, kind, severity, ip, detail) SELECT now(), 'login_failures', 'warn', '192.0.2.1', '{"n":2}' FROM generate_series(1, ${n})`,
  );
  await ds.query(
    `INSERT INTO admin.detector_episode (kind, key, started_at, last_seen_at, event_id) SELECT 'login_failures', 'k' || id, now(), now(), id FROM admin.security_event`,
  );
  await ds.query(`INSERT INTO admin.ip_blocks (cidr, reason, created_by, created_at) VALUES ('198.51.100.0/24', 'abuse', 'a@example.com', now())`);
  await ds.query(`INSERT INTO admin.usage_daily (day, domain, requests) SELECT current_date - i, 'c.example', i FROM generate_series(1, ${n}) i`);
  await ds.query(
    `INSERT INTO admin.health_sample (ts, status, parts) SELECT now() - i * interval '1 minute', 'ok', '{"database":"up"}' FROM generate_series(1, ${n}) i`,
  );
  await ds.query(
    `INSERT INTO admin.health_daily (day, part, samples, up, degraded, down) SELECT current_date - i, 'service', 10, 9, 1, 0 FROM generate_series(1, ${n}) i`,
  );
}

/** Reads the first MiB of a dump (well into a table's COPY), then fails; the files list goes through. */
class FailingStore extends FilesystemObjectStore {
  override async put(key: string, body: Readable, options: { sizeBytes?: number; contentType?: string }): Promise<void> {
    if (!key.endsWith('.dump')) return super.put(key, body, options);
    let bytes = 0;
    for await (const chunk of body) if ((bytes += (chunk as Buffer).length) > 1024 * 1024) break;
    throw new Error('object store failed');
  }
}

interface AppUnderTest {
  readonly declaration: AppDataDeclaration;
  readonly database: AppDatabaseOptions;
  readonly seed: (ds: DataSource, n: number) => Promise<void>;
  /** Changes made after the export, which an import must undo. */
  readonly change: (ds: DataSource) => Promise<void>;
}

const APPS: readonly AppUnderTest[] = [
  {
    declaration: IDENTITY_APP_DATA,
    database: IDENTITY_DATABASE,
    seed: seedIdentity,
    change: async (ds) => {
      await ds.query(`DELETE FROM identity.customers WHERE domain = 'c1.example'`).catch(() => undefined); // referenced: FK refuses
      await ds.query(`DELETE FROM identity.refresh_tokens`);
      await ds.query(`UPDATE identity.customers SET name = 'renamed'`);
      await ds.query(`INSERT INTO identity.login_attempts (kind, ip, email) VALUES ('verify', '203.0.113.9', 'new@example.com')`);
      await ds.query(`INSERT INTO identity.signing_keys (kid, public_x, private_pkcs8) VALUES ('kid-2', 'x2', 'p2')`);
    },
  },
  {
    declaration: FIRMWARE_APP_DATA,
    database: FIRMWARE_DATABASE,
    seed: seedFirmware,
    change: async (ds) => {
      await ds.query(`DELETE FROM firmware.build_tag`);
      await ds.query(`DELETE FROM firmware.build WHERE size_bytes % 5 = 0`);
      await ds.query(`INSERT INTO firmware.tag_sync_op (customer_id, kind, tag) VALUES ('00000000-0000-4000-8000-000000000002', 'delete', 'gone')`);
      await ds.query(`UPDATE firmware.build SET download_count = download_count + 7`);
    },
  },
];

/** Where a sequence will go next: the id the next insert into `table` gets. */
async function nextIdentity(ds: DataSource, schema: string, table: string, column: string): Promise<number> {
  const { rows } = await sql(ds, `SELECT max(${column}) AS m FROM "${schema}"."${table}"`);
  return Number(rows[0].m ?? 0) + 1;
}

describe.each(['postgres', 'embedded'] as const)('application data export and import (%s)', (runtime) => {
  let throwaway: Throwaway;
  let store: ObjectStore;
  const bus = new RecordingBus();
  const databases = new Map<BackupApp, DataSource>();

  beforeAll(async () => {
    throwaway = await createThrowaway('appdata', runtime);
    store = new FilesystemObjectStore(join(throwaway.dataDir, 'objects'));
    for (const app of [
      ...APPS.map((a) => ({ name: a.declaration.app, database: a.database })),
      { name: 'admin' as const, database: ADMIN_DATABASE },
      { name: 'registry' as const, database: REGISTRY_DATABASE },
    ]) {
      databases.set(app.name, await openAppDatabase(throwaway.config, app.database));
    }
  });

  afterAll(async () => {
    await closeDatabases();
    await throwaway?.dispose();
  });

  const exporter = (declaration: AppDataDeclaration) => new ExportAppData(declaration, databases.get(declaration.app)!, store);
  const importer = (declaration: AppDataDeclaration) => new ImportAppData(declaration, databases.get(declaration.app)!, store, bus);
  const exportTo = (declaration: AppDataDeclaration, runId: string) =>
    exporter(declaration).run(ExportAppDataCommand.create({ runId, objectKey: `backups/staging/${runId}/${declaration.app}.dump` }));
  const importFrom = (declaration: AppDataDeclaration, runId: string, objectKey: string, digest: string) =>
    importer(declaration).run(ImportAppDataCommand.create({ runId, objectKey, sha256: digest }));

  describe.each(APPS.map((a) => [a.declaration.app, a] as const))('%s', (_, app) => {
    const { declaration } = app;
    let ds: DataSource;
    let before: Record<string, string[]>;
    let exported: AppDataExportReply;
    const runId = randomUUID();

    beforeAll(async () => {
      ds = databases.get(declaration.app)!;
      await app.seed(ds, 40);
      before = await allContents(ds, declaration);
    });

    it('exports every declared table, with data in each, from one snapshot', async () => {
      for (const table of declaration.tables) expect({ table, empty: before[table].length === 0 }).toEqual({ table, empty: false });
      exported = await exportTo(declaration, runId);
      expect(exported.tables).toEqual(declaration.tables.map((table) => ({ table, rows: before[table].length })));
      const dump = await readObject(store, exported.objectKey);
      expect({ bytes: exported.bytes, sha256: exported.sha256 }).toEqual({ bytes: dump.length, sha256: sha256(dump) });
      expect(exported.formatVersion).toBe(1);
      expect(exported.filesObjectKey).toBe(storedFilesObjectKey(exported.objectKey));
      const lines = dump.toString('utf8').split('\n');
      expect(JSON.parse(lines[0])).toMatchObject({ format: 'fds-app-data', version: 1, app: declaration.app, runId });
      expect(JSON.parse(lines[1])).toMatchObject({ table: declaration.tables[0] });
    });

    it('lists the stored files the rows name', async () => {
      const files: StoredFileRef[] = [];
      for await (const ref of readStoredFileRefs(store, exported.filesObjectKey)) files.push(ref);
      if (declaration.app !== 'firmware') return expect(files).toEqual([]);
      const { rows } = await sql(
        ds,
        `SELECT object_key AS key, size_bytes AS size FROM firmware.build UNION ALL SELECT notes_object_key, notes_size_bytes FROM firmware.build WHERE notes_object_key IS NOT NULL`,
      );
      const expected = rows.map((r) => ({ key: String(r.key), size: Number(r.size) })).sort((a, b) => a.key.localeCompare(b.key));
      expect([...files].sort((a, b) => a.key.localeCompare(b.key))).toEqual(expected);
      expect({ count: exported.fileCount, bytes: exported.fileBytes }).toEqual({ count: expected.length, bytes: expected.reduce((n, f) => n + f.size, 0) });
    });

    it('imports the dump back: every table exactly as exported, sequences continue, every replica told', async () => {
      await app.change(ds);
      expect(await allContents(ds, declaration)).not.toEqual(before);
      bus.clear();
      const reply = await importFrom(declaration, runId, exported.objectKey, exported.sha256);
      expect(reply).toEqual({ app: declaration.app, tables: exported.tables });
      expect(await allContents(ds, declaration)).toEqual(before);
      expect(bus.of(`${declaration.app}.data.replaced`)).toEqual([{ app: declaration.app, runId }]);
      const [table, column] = declaration.app === 'identity' ? ['login_attempts', 'id'] : ['tag_sync_op', 'id'];
      const expectedId = await nextIdentity(ds, declaration.app, table, column);
      const inserted =
        declaration.app === 'identity'
          ? await sql(ds, `INSERT INTO identity.login_attempts (kind, ip, email) VALUES ('login', '192.0.2.7', 'after@example.com') RETURNING id`)
          : await sql(
              ds,
              `INSERT INTO firmware.tag_sync_op (customer_id, kind, tag) VALUES ('00000000-0000-4000-8000-000000000003', 'delete', 'x') RETURNING id`,
            );
      expect(Number(inserted.rows[0].id)).toBe(expectedId);
    });

    it('refuses a tampered dump (wrong SHA-256), a truncated one and a missing one, changing nothing', async () => {
      await app.change(ds);
      const changed = await allContents(ds, declaration);
      const dump = await readObject(store, exported.objectKey);
      const tampered = Buffer.from(dump);
      tampered[tampered.length - 40] ^= 0x01;
      const tamperedKey = `backups/staging/${runId}/tampered.dump`;
      await putObject(store, tamperedKey, tampered);
      const mismatch = await serviceErrorOf(importFrom(declaration, runId, tamperedKey, exported.sha256));
      expect(mismatch).toBeInstanceOf(AppDataDumpRefused);
      expect({ code: mismatch.code, problem: (mismatch as AppDataDumpRefused).problem }).toEqual({
        code: ErrorCode.Unprocessable,
        problem: AppDataDumpProblem.ChecksumMismatch,
      });

      // Cut before the trailer, with the SHA-256 of what is left: refused as unreadable.
      const truncated = dump.subarray(0, dump.lastIndexOf('\\.\n'));
      const truncatedKey = `backups/staging/${runId}/truncated.dump`;
      await putObject(store, truncatedKey, truncated);
      const cut = await serviceErrorOf(importFrom(declaration, runId, truncatedKey, sha256(truncated)));
      expect((cut as AppDataDumpRefused).problem).toBe(AppDataDumpProblem.Unreadable);

      const missing = await serviceErrorOf(importFrom(declaration, runId, `backups/staging/${runId}/absent.dump`, exported.sha256));
      expect((missing as AppDataDumpRefused).problem).toBe(AppDataDumpProblem.Missing);
      expect(await allContents(ds, declaration)).toEqual(changed);
    });

    it('rolls back completely when a row fails midway (a value the table refuses), changing nothing', async () => {
      const changed = await allContents(ds, declaration);
      const text = (await readObject(store, exported.objectKey)).toString('utf8');
      // A row of a later table gets a value its CHECK constraint refuses: earlier tables were loaded by then.
      const [table, good, bad] = declaration.app === 'identity' ? ['memberships', '\towner\t', '\tnobody\t'] : ['tag_sync_op', '\trename\t', '\tmerge\t'];
      const section = text.indexOf(`{"table":"${table}"`);
      const at = text.indexOf(good, section);
      expect(at).toBeGreaterThan(section);
      const corrupt = Buffer.from(text.slice(0, at) + bad + text.slice(at + good.length), 'utf8');
      const corruptKey = `backups/staging/${runId}/corrupt.dump`;
      await putObject(store, corruptKey, corrupt);
      const refused = await serviceErrorOf(importFrom(declaration, runId, corruptKey, sha256(corrupt)));
      expect((refused as AppDataDumpRefused).problem).toBe(AppDataDumpProblem.Unreadable);
      expect(refused.message).toContain(table);
      expect(await allContents(ds, declaration)).toEqual(changed);
    });
  });

  describe('admin', () => {
    it('leaves out the request log and the maintenance setting, keeps them on import, and bumps the protection revision', async () => {
      const ds = databases.get('admin')!;
      await seedAdmin(ds, 25);
      const runId = randomUUID();
      const before = await allContents(ds, ADMIN_APP_DATA);
      const exported = await exportTo(ADMIN_APP_DATA, runId);
      expect(exported.tables.map((t) => t.table)).toEqual(ADMIN_APP_DATA.tables);
      const dump = (await readObject(store, exported.objectKey)).toString('utf8');
      expect(dump).not.toContain('"table":"maintenance_setting"');
      expect(dump).not.toContain('"table":"request_log');

      await ds.query(`UPDATE admin.maintenance_setting SET enabled = true, message = 'restoring' WHERE id = 1`);
      await ds.query(`DELETE FROM admin.ip_blocks`);
      await ds.query(`DELETE FROM admin.audit_log WHERE id % 2 = 0`);
      const [{ revision }] = await ds.query(`SELECT revision FROM admin.maintenance_setting`);
      bus.clear();
      await importFrom(ADMIN_APP_DATA, runId, exported.objectKey, exported.sha256);
      expect(await allContents(ds, ADMIN_APP_DATA)).toEqual(before);
      const [after] = await ds.query(`SELECT enabled, message, revision FROM admin.maintenance_setting`);
      expect({ enabled: after.enabled, message: after.message }).toEqual({ enabled: true, message: 'restoring' });
      expect(BigInt(after.revision)).toBe(BigInt(revision) + 1n);
      expect(bus.of('admin.protection.changed')).toEqual([{ revision: String(after.revision) }]);
      expect(bus.of('admin.data.replaced')).toEqual([{ app: 'admin', runId }]);
    });
  });

  describe('memory', () => {
    const rows = 200_000;

    beforeAll(async () => {
      await databases.get('registry')!.query(`
        INSERT INTO registry.device (customer_id, hwid, tags, attributes)
          SELECT ('00000000-0000-4000-8000-00000000000' || (i % 4))::uuid, 'SN-' || i, ARRAY['beta', 't' || (i % 9)], jsonb_build_object('site', repeat('x', 200), 'n', i)
          FROM generate_series(1, ${rows}) i`);
    });

    it('stays bounded exporting and importing 200,000 rows (heap growth printed)', async () => {
      const runId = randomUUID();
      // Live heap, not garbage: sampled right after a forced collection, every second.
      const collect = gcFunction();
      const live = () => {
        collect();
        return process.memoryUsage().heapUsed;
      };
      const measure = async <T>(work: () => Promise<T>): Promise<{ result: T; growth: number; rss: number; ms: number }> => {
        const base = live();
        const rssBase = process.memoryUsage().rss;
        let peak = base;
        let rss = rssBase;
        const timer = setInterval(() => {
          peak = Math.max(peak, live());
          rss = Math.max(rss, process.memoryUsage().rss);
        }, 1000);
        const started = Date.now();
        try {
          const result = await work();
          return { result, growth: peak - base, rss: rss - rssBase, ms: Date.now() - started };
        } finally {
          clearInterval(timer);
        }
      };
      const out = await measure(() => exportTo(REGISTRY_APP_DATA, runId));
      const device = out.result.tables.find((t) => t.table === 'device')!;
      expect(device.rows).toBe(rows);
      const back = await measure(() => importFrom(REGISTRY_APP_DATA, runId, out.result.objectKey, out.result.sha256));
      expect(back.result.tables.find((t) => t.table === 'device')!.rows).toBe(rows);
      const mib = (n: number) => (n / 1024 / 1024).toFixed(1);
      process.stdout.write(
        `app-data memory (${runtime}): dump ${mib(out.result.bytes)} MiB of ${rows} devices; live heap growth export ${mib(out.growth)} MiB (RSS +${mib(out.rss)} MiB, ${out.ms} ms), import ${mib(back.growth)} MiB (RSS +${mib(back.rss)} MiB, ${back.ms} ms)\n`,
      );
      // Bounded: a small fraction of the dump, which is never held whole.
      expect(out.growth).toBeLessThan(out.result.bytes / 4);
      expect(back.growth).toBeLessThan(out.result.bytes / 4);
    });

    it('rolls the snapshot back and keeps the connection usable when the object store fails mid-dump', async () => {
      const ds = databases.get('registry')!;
      const failing = new FailingStore(join(throwaway.dataDir, 'objects'));
      const runId = randomUUID();
      const run = new ExportAppData(REGISTRY_APP_DATA, ds, failing).run(
        ExportAppDataCommand.create({ runId, objectKey: `backups/staging/${runId}/registry.dump` }),
      );
      await expect(run).rejects.toThrow('object store failed');
      expect(await failing.head(`backups/staging/${runId}/registry.dump`)).toBeNull();
      expect(await ds.query(`SELECT count(*)::int AS n FROM registry.device`)).toEqual([{ n: 200_000 }]);
    });
  });
});

/**
 * The logdata app as it runs (its Nest microservice, all its controllers) answers the
 * messages sent by another app's bus: over NATS (a private nats-server) with PostgreSQL, and
 * over the in-process bus with the embedded database.
 */
describe.each(['nats', 'in-process'] as const)('the messages answered over the %s bus', (transport) => {
  let throwaway: Throwaway;
  let nats: ChildProcess | null = null;
  let app: INestMicroservice;
  let bus: MessageBus;
  let ds: DataSource;

  beforeAll(async () => {
    throwaway = await createThrowaway('appdatabus', transport === 'nats' ? 'postgres' : 'embedded');
    let config = throwaway.config;
    if (transport === 'nats') {
      const started = await startNats(join(throwaway.dataDir, 'nats'), join(throwaway.dataDir, 'nats.log'));
      nats = started.process;
      config = { ...config, natsUrl: started.url };
    }
    app = await startBackendApp('logdata', (c) => LogdataModule.register(c), config);
    bus = createMessageBus(config, 'worker');
    ds = await openAppDatabase(config, LOGDATA_DATABASE);
  });

  afterAll(async () => {
    await app?.close();
    await closeMessageBuses();
    await closeDatabases();
    nats?.kill();
    await throwaway?.dispose();
  });

  it('exports, refuses bad and tampered requests with their codes, and imports', async () => {
    await ds.query(`INSERT INTO logdata.log_file (customer_id, name, object_key, size_bytes, sha256, content_type, uploaded_by)
      SELECT gen_random_uuid(), repeat(to_hex(i), 128 / length(to_hex(i))), 'logdata/f' || i, 100 * i, repeat('c', 64), 'text/plain', 'u' FROM generate_series(1, 8) i`);
    const before = await contents(ds, 'logdata', 'log_file');
    const runId = randomUUID();
    const objectKey = `backups/staging/${runId}/logdata.dump`;
    const exported = await bus.send(AppDataMessages.export('logdata'), { runId, objectKey });
    expect(exported).toMatchObject({ app: 'logdata', objectKey, tables: [{ table: 'log_file', rows: 8 }], fileCount: 8, fileBytes: 3600 });

    const badKey = await serviceErrorOf(bus.send(AppDataMessages.export('logdata'), { runId, objectKey: 'logdata/f1' }));
    expect(badKey.code).toBe(ErrorCode.BadRequest);
    const wrongDigest = await serviceErrorOf(bus.send(AppDataMessages.import('logdata'), { runId, objectKey, sha256: 'f'.repeat(64) }));
    expect({ code: wrongDigest.code, message: wrongDigest.message }).toEqual({
      code: ErrorCode.Unprocessable,
      message: expect.stringContaining(`(${AppDataDumpProblem.ChecksumMismatch})`),
    });

    await ds.query(`DELETE FROM logdata.log_file WHERE size_bytes > 400`);
    const imported = await bus.send(AppDataMessages.import('logdata'), { runId, objectKey, sha256: exported.sha256 });
    expect(imported).toEqual({ app: 'logdata', tables: [{ table: 'log_file', rows: 8 }] });
    expect(await contents(ds, 'logdata', 'log_file')).toEqual(before);
  });

  it('gives the caller a long timeout', () => {
    expect(AppDataMessages.export('logdata').timeoutMs).toBe(APP_DATA_TIMEOUT_MS);
    expect(AppDataMessages.import('admin')).toMatchObject({ pattern: 'admin.data.import', timeoutMs: APP_DATA_TIMEOUT_MS });
  });
});
