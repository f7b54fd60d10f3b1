import 'reflect-metadata';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { type CustomerRef, ErrorCode, healthMessage, LogdataEvents, LogdataMessages, type LogFileUploadResult, ServiceError } from '@app/contracts';
import {
  closeDatabases,
  closeMessageBuses,
  configureLogging,
  createMessageBus,
  createObjectStore,
  FilesystemObjectStore,
  ObjectStore,
  openAppDatabase,
  resetInProcessBroker,
  revertLastMigration,
} from '@app/infra';
import { startBackendApp } from '@app/platform';
import { DataSource } from 'typeorm';
import { LogdataController } from '../../apps/logdata/src/controllers/logdata.controller.js';
import { LOGDATA_CONTROLLERS, LOGDATA_DATABASE, LOGDATA_PROVIDERS, LogdataModule } from '../../apps/logdata/src/logdata.module.js';
import type { LogFileRepository } from '../../apps/logdata/src/repositories/log-file.repository.js';
import { LogdataStore } from '../../apps/logdata/src/repositories/logdata.store.js';
import { makeContext, makeCustomer } from '@app/testing';
import { makeFileCall, makeListCall, makeLogName } from '../../apps/logdata/test/factories.js';
import { createThrowaway, exists, stageFile, type Throwaway } from './logdata.support.js';

configureLogging({ sink: () => undefined });

let throwaway: Throwaway;
let dataSource: DataSource;
let store: ObjectStore;
let moduleRef: TestingModule;
let logdata: LogdataController;
let repository: LogFileRepository;

beforeAll(async () => {
  throwaway = await createThrowaway('logdata');
  dataSource = await openAppDatabase(throwaway.config, LOGDATA_DATABASE);
  store = new FilesystemObjectStore(join(throwaway.dataDir, 'objects'));
  moduleRef = await Test.createTestingModule({
    controllers: LOGDATA_CONTROLLERS,
    providers: [...LOGDATA_PROVIDERS, { provide: DataSource, useValue: dataSource }, { provide: ObjectStore, useValue: store }],
  }).compile();
  logdata = moduleRef.get(LogdataController);
  repository = moduleRef.get(LogdataStore).repos.files;
});

afterAll(async () => {
  await moduleRef?.close();
  await closeDatabases();
  await throwaway?.dispose();
});

/** Uploads `content` under `name` for `customer`, staging it first like the gateway. */
async function upload(customer: CustomerRef, name: string, content: string | Buffer, contentType?: string) {
  const file = await stageFile(store, content, contentType);
  return { file, result: logdata.upload(makeFileCall(makeContext(customer), name, file)) };
}

async function outcome(promise: Promise<LogFileUploadResult>): Promise<'created' | 'identical' | ErrorCode> {
  try {
    return (await promise).created ? 'created' : 'identical';
  } catch (err) {
    if (ServiceError.is(err)) return err.code;
    throw err;
  }
}

describe('upload', () => {
  it('stores a new file under the lower-cased name, keeping the staged object as its object', async () => {
    const customer = makeCustomer();
    const name = makeLogName();
    const { file, result } = await upload(customer, name.toUpperCase(), 'line 1\nline 2\n', 'text/plain; charset=utf-8');
    const { created, file: record } = await result;
    expect(created).toBe(true);
    expect(record).toEqual({
      name,
      size_bytes: 14,
      sha256: file.sha256,
      content_type: 'text/plain; charset=utf-8',
      uploaded_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      uploaded_by: 'token:tok-1',
      download_count: 0,
      last_accessed_at: null,
    });
    expect(await exists(store, file.key)).toBe(true);
    expect(await logdata.meta(makeFileCall(makeContext(customer), name))).toEqual(record);

    const ref = await logdata.download(makeFileCall(makeContext(customer), name));
    expect(ref).toEqual({
      key: file.key,
      sizeBytes: 14,
      sha256: file.sha256,
      contentType: 'text/plain; charset=utf-8',
      lastModified: record.uploaded_at,
      filename: name,
      onDownload: { subject: LogdataEvents.downloaded.subject, payload: { customerId: customer.id, name } },
    });
    // download only describes the file: counting is the downloaded event's job
    expect((await logdata.meta(makeFileCall(makeContext(customer), name))).download_count).toBe(0);
  });

  it('answers an identical re-upload with the stored record, changes nothing and deletes the new staged object', async () => {
    const customer = makeCustomer();
    const name = makeLogName();
    const first = await upload(customer, name, 'same bytes');
    const stored = (await first.result).file;
    await logdata.downloaded({ customerId: customer.id, name, at: '2026-11-20T12:00:00.000Z' });
    const before = await logdata.meta(makeFileCall(makeContext(customer), name));

    const again = await upload(customer, name, 'same bytes', 'application/x-other');
    const result = await again.result;
    expect(result).toEqual({ created: false, file: before });
    expect(before.uploaded_at).toBe(stored.uploaded_at);
    expect(await logdata.meta(makeFileCall(makeContext(customer), name))).toEqual(before);
    expect(await exists(store, again.file.key)).toBe(false);
    expect(await exists(store, first.file.key)).toBe(true);
  });

  it('refuses different content under an existing name with 409 and never overwrites', async () => {
    const customer = makeCustomer();
    const name = makeLogName();
    const first = await upload(customer, name, 'original');
    const original = (await first.result).file;
    const second = await upload(customer, name, 'tampered');
    await expect(second.result).rejects.toMatchObject({ code: ErrorCode.Conflict, message: 'log file already exists with different content' });
    expect(await exists(store, second.file.key)).toBe(false);
    expect(await logdata.meta(makeFileCall(makeContext(customer), name))).toEqual(original);
  });

  it('lets exactly one of N concurrent uploads of different content win a new name; losers are refused and their staged objects deleted', async () => {
    const customer = makeCustomer();
    const name = makeLogName();
    const N = 12;
    // stage every body first, then fire all uploads at once
    const attempts = await Promise.all(Array.from({ length: N }, (_, i) => stageFile(store, `content number ${i}`)));
    const outcomes = await Promise.all(attempts.map((file) => outcome(logdata.upload(makeFileCall(makeContext(customer), name, file)))));
    expect(outcomes.filter((o) => o === 'created')).toHaveLength(1);
    expect(outcomes.filter((o) => o === ErrorCode.Conflict)).toHaveLength(N - 1);

    const winner = attempts[outcomes.indexOf('created')];
    const stored = await logdata.meta(makeFileCall(makeContext(customer), name));
    expect(stored.sha256).toBe(winner.sha256);
    for (const attempt of attempts) {
      expect(await exists(store, attempt.key)).toBe(attempt === winner);
    }
    expect((await logdata.download(makeFileCall(makeContext(customer), name))).key).toBe(winner.key);
  });

  it('lets every one of N concurrent identical uploads succeed, storing the file once', async () => {
    const customer = makeCustomer();
    const name = makeLogName();
    const N = 12;
    const attempts = await Promise.all(Array.from({ length: N }, () => stageFile(store, 'identical content')));
    const results = await Promise.all(attempts.map((file) => logdata.upload(makeFileCall(makeContext(customer), name, file))));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const winner = attempts[results.findIndex((r) => r.created)];
    for (const r of results) expect(r.file).toEqual(results.find((x) => x.created)!.file);
    for (const attempt of attempts) {
      expect(await exists(store, attempt.key)).toBe(attempt === winner);
    }
  });

  it('keeps names unique per customer only: another customer stores other bytes under the same name', async () => {
    const a = makeCustomer();
    const b = makeCustomer();
    const name = makeLogName();
    await (
      await upload(a, name, 'from A')
    ).result;
    const fromB = await (await upload(b, name, 'from B')).result;
    expect(fromB.created).toBe(true);
    expect((await logdata.meta(makeFileCall(makeContext(a), name))).sha256).not.toBe(fromB.file.sha256);
  });

  it('deletes the staged object of an upload refused before reaching the database', async () => {
    const customer = makeCustomer({ isSandbox: true });
    const big = await stageFile(store, Buffer.alloc(256 * 1024 + 1));
    await expect(logdata.upload(makeFileCall(makeContext(customer), makeLogName(), big))).rejects.toMatchObject({ code: ErrorCode.PayloadTooLarge });
    expect(await exists(store, big.key)).toBe(false);
  });
});

describe('downloaded event', () => {
  it('counts every download, also concurrent ones, and keeps the latest access time', async () => {
    const customer = makeCustomer();
    const name = makeLogName();
    await (
      await upload(customer, name, 'popular')
    ).result;
    const base = Date.parse('2026-11-21T10:00:00.000Z');
    await Promise.all(
      Array.from({ length: 25 }, (_, i) => logdata.downloaded({ customerId: customer.id, name, at: new Date(base + ((i * 7) % 25) * 1000).toISOString() })),
    );
    const meta = await logdata.meta(makeFileCall(makeContext(customer), name));
    expect(meta.download_count).toBe(25);
    expect(meta.last_accessed_at).toBe(new Date(base + 24_000).toISOString());
  });

  it('ignores a download of an unknown file and counts nothing for other customers', async () => {
    const a = makeCustomer();
    const b = makeCustomer();
    const name = makeLogName();
    await (
      await upload(a, name, 'mine')
    ).result;
    await logdata.downloaded({ customerId: b.id, name, at: new Date().toISOString() });
    expect((await logdata.meta(makeFileCall(makeContext(a), name))).download_count).toBe(0);
  });
});

describe('list', () => {
  const customer = makeCustomer();
  const ctx = () => makeContext(customer);
  const names = ['0a', '0b', 'a0', 'a1', 'ab', 'f0'].map((p) => makeLogName(p)).sort();

  beforeAll(async () => {
    for (const name of names) await (await upload(customer, name, `file ${name}`)).result;
    // spread uploaded_at over days (fixture set-up, bypassing the API on purpose)
    for (const [i, name] of names.entries()) {
      await dataSource.query(`UPDATE logdata.log_file SET uploaded_at = $1 WHERE customer_id = $2 AND name = $3`, [
        `2026-11-0${i + 1}T00:00:00.000Z`,
        customer.id,
        name,
      ]);
    }
    // another customer's files never show up
    await (
      await upload(makeCustomer(), makeLogName('a'), 'foreign')
    ).result;
  });

  it('sorts by name and pages with next_offset (limit+1 look-ahead)', async () => {
    const page1 = await logdata.list(makeListCall(ctx(), { limit: 4 }));
    expect(page1.items.map((f) => f.name)).toEqual(names.slice(0, 4));
    expect(page1.next_offset).toBe(4);
    const page2 = await logdata.list(makeListCall(ctx(), { limit: 4, offset: 4 }));
    expect(page2.items.map((f) => f.name)).toEqual(names.slice(4));
    expect(page2.next_offset).toBeNull();
    const exact = await logdata.list(makeListCall(ctx(), { limit: 6 }));
    expect(exact.items).toHaveLength(6);
    expect(exact.next_offset).toBeNull();
    const all = await logdata.list(makeListCall(ctx()));
    expect(all.items.map((f) => f.name)).toEqual(names);
  });

  it('filters by a case-insensitive name prefix', async () => {
    const page = await logdata.list(makeListCall(ctx(), { prefix: 'A' }));
    expect(page.items.map((f) => f.name)).toEqual(names.filter((n) => n.startsWith('a')));
    expect((await logdata.list(makeListCall(ctx(), { prefix: names[2].toUpperCase() }))).items.map((f) => f.name)).toEqual([names[2]]);
    expect((await logdata.list(makeListCall(ctx(), { prefix: 'e' }))).items).toEqual([]);
  });

  it('filters by uploaded_after (exclusive) and uploaded_before (exclusive)', async () => {
    const after = await logdata.list(makeListCall(ctx(), { uploaded_after: '2026-11-03T00:00:00Z' }));
    expect(after.items.map((f) => f.name)).toEqual(names.slice(3));
    const before = await logdata.list(makeListCall(ctx(), { uploaded_before: '2026-11-03T00:00:00.000Z' }));
    expect(before.items.map((f) => f.name)).toEqual(names.slice(0, 2));
    const both = await logdata.list(makeListCall(ctx(), { uploaded_after: '2026-11-01T12:00:00+02:00', uploaded_before: '2026-11-05T00:00:00Z', prefix: 'a' }));
    expect(both.items.map((f) => f.name)).toEqual(names.slice(2, 4));
    expect(both.items[0].uploaded_at).toBe('2026-11-03T00:00:00.000Z');
  });
});

describe('tenant isolation', () => {
  it("hides one customer's files from another in meta, download and list", async () => {
    const a = makeCustomer();
    const b = makeCustomer();
    const name = makeLogName('c0ffee');
    await (
      await upload(a, name, 'secret')
    ).result;
    await expect(logdata.meta(makeFileCall(makeContext(b), name))).rejects.toMatchObject({ code: ErrorCode.NotFound, message: 'log file not found' });
    await expect(logdata.download(makeFileCall(makeContext(b), name))).rejects.toMatchObject({ code: ErrorCode.NotFound });
    expect((await logdata.list(makeListCall(makeContext(b), { prefix: 'c0ffee' }))).items).toEqual([]);
    expect((await logdata.list(makeListCall(makeContext(a), { prefix: 'c0ffee' }))).items.map((f) => f.name)).toEqual([name]);
  });
});

describe('counts', () => {
  it('reports file count and stored bytes per customer, zero for customers without files', async () => {
    const a = makeCustomer();
    const empty = makeCustomer();
    await (
      await upload(a, makeLogName(), '12345')
    ).result;
    await (
      await upload(a, makeLogName(), '1234567890')
    ).result;
    expect(await logdata.counts({ customerIds: [a.id, empty.id] })).toEqual({
      [a.id]: { count: 2, storedBytes: 15 },
      [empty.id]: { count: 0, storedBytes: 0 },
    });
  });
});

describe('repository', () => {
  it('insertIfAbsent returns null for a taken name and leaves the row alone', async () => {
    const customer = makeCustomer();
    const row = {
      customerId: customer.id,
      name: makeLogName(),
      objectKey: 'staging/x',
      sizeBytes: 1,
      sha256: 'a'.repeat(64),
      contentType: 'x/y',
      uploadedBy: 'user:1',
    };
    const inserted = await repository.insertIfAbsent(row);
    expect(inserted).toMatchObject({ ...row, downloadCount: 0, lastAccessedAt: null });
    expect(await repository.insertIfAbsent({ ...row, objectKey: 'staging/y', sha256: 'b'.repeat(64) })).toBeNull();
    expect(await repository.findByName({ customerId: customer.id, name: row.name })).toEqual(inserted);
  });
});

describe('LogdataModule.register over the in-process bus (real adapters, as in a standalone run)', () => {
  it('answers its messages and events, with ServiceErrors crossing the transport', async () => {
    const app = await startBackendApp('logdata', (config) => LogdataModule.register(config), throwaway.config);
    const bus = createMessageBus(throwaway.config, 'gateway');
    try {
      const customer = makeCustomer();
      const ctx = makeContext(customer);
      const name = makeLogName();
      const file = await stageFile(createObjectStore(throwaway.config), 'over the bus');
      const uploaded = await bus.send(LogdataMessages.upload, makeFileCall(ctx, name, file));
      expect(uploaded).toMatchObject({ created: true, file: { name, size_bytes: 12 } });
      await expect(bus.send(LogdataMessages.meta, makeFileCall(ctx, makeLogName()))).rejects.toMatchObject({
        code: ErrorCode.NotFound,
        message: 'log file not found',
      });
      const ref = await bus.send(LogdataMessages.download, makeFileCall(ctx, name));
      bus.emit(LogdataEvents.downloaded, { ...(ref.onDownload!.payload as { customerId: string; name: string }), at: new Date().toISOString() });
      const deadline = Date.now() + 5000;
      while ((await bus.send(LogdataMessages.meta, makeFileCall(ctx, name))).download_count !== 1) {
        if (Date.now() > deadline) throw new Error('downloaded event not counted');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(await bus.send(healthMessage('logdata'), {})).toMatchObject({ app: 'logdata', database: true });
    } finally {
      await app.close();
      await closeMessageBuses();
      resetInProcessBroker();
    }
  });
});

describe('name and SHA-256 rules in the table', () => {
  it('refuses a name or a SHA-256 outside the rules even when written directly', async () => {
    const customer = makeCustomer();
    const insert = (name: string, sha256: string) =>
      dataSource.query(
        `INSERT INTO logdata.log_file (customer_id, name, object_key, size_bytes, sha256, content_type, uploaded_by) VALUES ($1, $2, 'k', 1, $3, 'x/y', 'user:1')`,
        [customer.id, name, sha256],
      );
    // validated once swapped in (the migration adds them NOT VALID, then validates the rows there)
    expect(
      await dataSource.query(
        `SELECT conname, convalidated FROM pg_constraint WHERE conname IN ('log_file_name_check', 'log_file_sha256_check') ORDER BY conname`,
      ),
    ).toEqual([
      { conname: 'log_file_name_check', convalidated: true },
      { conname: 'log_file_sha256_check', convalidated: true },
    ]);
    const name = (c: string) => c.padStart(128, '0');
    const sha = 'a'.repeat(64);
    for (const outside of [name('A'), name('g'), '0'.repeat(127), `${'0'.repeat(127)} `, name('\u00e9').slice(1)]) {
      await expect(insert(outside, sha)).rejects.toThrow(/log_file_name_check/);
    }
    for (const outside of ['A'.repeat(64), 'a'.repeat(63), `${'a'.repeat(63)} `, `${'a'.repeat(63)}-`]) {
      await expect(insert(name('1'), outside)).rejects.toThrow(/log_file_sha256_check/);
    }
    await expect(insert(name('0123456789abcdef'), '0123456789abcdef'.repeat(4))).resolves.toBeDefined();
  });
});

describe('migrations', () => {
  it('reverts cleanly (down) — runs last', async () => {
    await moduleRef.close();
    await closeDatabases();
    expect(await revertLastMigration(throwaway.config, LOGDATA_DATABASE)).toBe('LogFileChecks1765400000000');
    const before = await openAppDatabase(throwaway.config, { ...LOGDATA_DATABASE, migrate: false });
    const checks = (await before.query(
      `SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conname IN ('log_file_name_check', 'log_file_sha256_check') ORDER BY conname`,
    )) as { definition: string }[];
    expect(checks.map((c) => c.definition)).toEqual([expect.stringContaining('{128}'), expect.stringContaining('{64}')]); // as the first migration wrote them
    await closeDatabases();
    // The later migrations first (staging-cleanup.medium-spec checks what their downs do).
    expect(await revertLastMigration(throwaway.config, LOGDATA_DATABASE)).toBe('LogFileObjectKey1764700000000');
    expect(await revertLastMigration(throwaway.config, LOGDATA_DATABASE)).toBe('LogdataSchema1763700000000');
    const check = await openAppDatabase(throwaway.config, { ...LOGDATA_DATABASE, migrate: false });
    const [{ table }] = (await check.query(`SELECT to_regclass('logdata.log_file')::text AS table`)) as [{ table: string | null }];
    expect(table).toBeNull();
  });
});
