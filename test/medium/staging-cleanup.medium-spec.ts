import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asCustomerId, type MessageDef, ObjectOwnerMessages, type ObjectKeys, type OwnedObjectKeys } from '@app/contracts';
import { closeDatabases, configureLogging, FilesystemObjectStore, InProcessJobQueue, MessageBus, openAppDatabase, revertLastMigration } from '@app/infra';
import type { DataSource } from 'typeorm';
import { FIRMWARE_DATABASE } from '../../apps/firmware/src/firmware.module.js';
import { FirmwareStore } from '../../apps/firmware/src/repositories/firmware.store.js';
import { FindOwnedObjectsUseCase as FirmwareOwned } from '../../apps/firmware/src/use-cases/find-owned-objects/find-owned-objects.usecase.js';
import { makeNewBuild } from '../../apps/firmware/test/factories.js';
import { LOGDATA_DATABASE } from '../../apps/logdata/src/logdata.module.js';
import { LogdataStore } from '../../apps/logdata/src/repositories/logdata.store.js';
import { FindOwnedObjectsUseCase as LogdataOwned } from '../../apps/logdata/src/use-cases/find-owned-objects/find-owned-objects.usecase.js';
import { StagingCleanup } from '../../apps/worker/src/staging/staging-cleanup.js';
import { createThrowaway, type Throwaway } from './logdata.support.js';

/**
 * The staging clean-up (docs/operations.md "Background jobs") against the real owners: the
 * firmware and logdata apps' ownership queries on a throwaway database, and the filesystem
 * object store with objects aged by their modification time.
 */

configureLogging({ sink: () => undefined });

const DAY_MS = 24 * 3600 * 1000;

/** The bus as the worker sees it: each owner question answered by that app's use case. */
class OwnersBus extends MessageBus {
  failing: string | null = null;
  readonly asked: string[] = [];
  constructor(private readonly answer: Record<string, (request: ObjectKeys) => Promise<OwnedObjectKeys>>) {
    super();
  }
  async send<Req, Res>(message: MessageDef<Req, Res>, payload: Req): Promise<Res> {
    this.asked.push(message.pattern);
    if (message.pattern === this.failing) throw new Error(`${message.pattern} timed out`);
    return (await this.answer[message.pattern](payload as ObjectKeys)) as Res;
  }
  serve(): () => void {
    return () => undefined;
  }
  emit(): void {}
  subscribe(): () => void {
    return () => undefined;
  }
}

let throwaway: Throwaway;
let objects: FilesystemObjectStore;
let bus: OwnersBus;
let cleanup: StagingCleanup;
const jobs = new InProcessJobQueue();

beforeAll(async () => {
  throwaway = await createThrowaway('staging');
  databases = { firmware: await openAppDatabase(throwaway.config, FIRMWARE_DATABASE), logdata: await openAppDatabase(throwaway.config, LOGDATA_DATABASE) };
  const firmware = new FirmwareStore(databases.firmware);
  const logdata = new LogdataStore(databases.logdata);
  bus = new OwnersBus({
    [ObjectOwnerMessages.firmware.pattern]: (r) => new FirmwareOwned(firmware).execute(r),
    [ObjectOwnerMessages.logdata.pattern]: (r) => new LogdataOwned(logdata).execute(r),
  });
  objects = new FilesystemObjectStore(join(throwaway.dataDir, 'objects'));
  cleanup = new StagingCleanup(jobs, objects, bus);
  store = { firmware, logdata };
});

afterAll(async () => {
  await jobs.close();
  await closeDatabases();
  await throwaway?.dispose();
});

let store: { firmware: FirmwareStore; logdata: LogdataStore };
let databases: { firmware: DataSource; logdata: DataSource };

/** The plan of `sql` with sequential scans priced out: the indexes that can serve it. */
async function planOf(db: DataSource, sql: string): Promise<string> {
  const rows = await db.transaction(async (m) => {
    await m.query('SET LOCAL enable_seqscan = off');
    return (await m.query(`EXPLAIN ${sql}`)) as Array<{ 'QUERY PLAN': string }>;
  });
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

/** Puts an object under a staging key and sets its modification time `ageMs` back. */
async function staged(ageMs: number, day = '2026-11-20'): Promise<string> {
  const key = `uploads/${day}/${randomUUID()}`;
  await objects.put(key, Readable.from([Buffer.from('bytes')]), { sizeBytes: 5 });
  const when = new Date(Date.now() - ageMs);
  await utimes(join(objects.root, ...key.split('/')), when, when);
  return key;
}

const exists = async (key: string) => (await objects.head(key)) !== null;

describe('StagingCleanup', () => {
  it('removes an orphan older than a day; keeps owned keys (builds, notes, log files) and younger orphans', async () => {
    const customerId = asCustomerId(randomUUID());
    const [binary, notes, logFile, oldOrphan, youngOrphan] = await Promise.all([
      staged(3 * DAY_MS),
      staged(3 * DAY_MS),
      staged(3 * DAY_MS),
      staged(DAY_MS + 60_000),
      staged(DAY_MS - 60_000),
    ]);
    await store.firmware.repos.builds.insertIfAbsent({
      ...makeNewBuild({
        fwVersion: `1.${randomBytes(2).readUInt16BE()}`,
        objectKey: binary,
        notes: { objectKey: notes, sizeBytes: 5, sha256: 'b'.repeat(64) },
      }),
      customerId,
    });
    await store.logdata.repos.files.insertIfAbsent({
      customerId,
      name: randomBytes(64).toString('hex'),
      objectKey: logFile,
      sizeBytes: 5,
      sha256: 'c'.repeat(64),
      contentType: 'text/plain',
      uploadedBy: 'token:test',
    });

    const result = await cleanup.run(new Date());
    expect(result).toEqual({ examined: 4, removed: 1 });
    expect(await exists(oldOrphan)).toBe(false);
    for (const key of [binary, notes, logFile, youngOrphan]) expect(await exists(key)).toBe(true);
    expect(new Set(bus.asked)).toEqual(new Set([ObjectOwnerMessages.firmware.pattern, ObjectOwnerMessages.logdata.pattern]));

    // Idempotent: a second run finds nothing more to remove.
    expect(await cleanup.run(new Date())).toEqual({ examined: 3, removed: 0 });
  });

  it('removes nothing when an owning app does not answer (the job fails and retries)', async () => {
    const orphan = await staged(2 * DAY_MS, '2026-11-21');
    bus.failing = ObjectOwnerMessages.logdata.pattern;
    try {
      await expect(cleanup.run(new Date())).rejects.toThrow('timed out');
    } finally {
      bus.failing = null;
    }
    expect(await exists(orphan)).toBe(true);
    await cleanup.run(new Date());
    expect(await exists(orphan)).toBe(false);
  });

  it('asks the owners through indexes of the object keys, which the migrations add and remove (down) — runs last', async () => {
    const keys = `'{uploads/a,uploads/b}'::text[]`;
    const firmwarePlan = await planOf(
      databases.firmware,
      `SELECT object_key FROM firmware.build WHERE object_key = ANY(${keys}) UNION SELECT notes_object_key FROM firmware.build WHERE notes_object_key = ANY(${keys})`,
    );
    expect(firmwarePlan).toContain('build_object_key_idx');
    expect(firmwarePlan).toContain('build_notes_object_key_idx');
    expect(await planOf(databases.logdata, `SELECT object_key FROM logdata.log_file WHERE object_key = ANY(${keys})`)).toContain('log_file_object_key_idx');
    await closeDatabases();
    // The migrations after these first (their own medium tests check what their downs do).
    for (const [database, name] of [
      [FIRMWARE_DATABASE, 'BuildObjectKeys1764700000000'],
      [LOGDATA_DATABASE, 'LogFileObjectKey1764700000000'],
    ] as const) {
      const later = database.migrations.slice(database.migrations.findIndex((m) => m.name === name) + 1);
      for (const migration of later.reverse()) expect(await revertLastMigration(throwaway.config, database)).toBe(migration.name);
      expect(await revertLastMigration(throwaway.config, database)).toBe(name);
    }
    const check = await openAppDatabase(throwaway.config, { ...FIRMWARE_DATABASE, migrate: false });
    try {
      const [row] = (await check.query(
        `SELECT to_regclass('firmware.build_object_key_idx')::text AS binary, to_regclass('firmware.build_notes_object_key_idx')::text AS notes,
                to_regclass('logdata.log_file_object_key_idx')::text AS log_files, to_regclass('firmware.build')::text AS builds`,
      )) as [Record<string, string | null>];
      expect(row).toEqual({ binary: null, notes: null, log_files: null, builds: 'firmware.build' });
    } finally {
      await check.destroy();
    }
  });
});
