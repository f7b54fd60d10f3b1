import { configureLogging } from '@app/infra';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { asCustomerId, ErrorCode, LogdataEvents } from '@app/contracts';
import { makeContext, makeCustomer } from '@app/testing';
import { makeFileCall, makeListCall, makeLogFileEntity, makeLogName, MemoryObjectStore } from '../../test/factories.js';
import { MemoryLogFileRepository } from '../../test/memory-log-file.repository.js';
import type { LogFileRepository } from '../repositories/log-file.repository.js';
import { CountLogFilesUseCase } from '../use-cases/count-log-files/count-log-files.usecase.js';
import { ListLogFilesUseCase, toPage } from '../use-cases/list-log-files/list-log-files.usecase.js';
import { ReadLogFileUseCase } from '../use-cases/read-log-file/read-log-file.usecase.js';
import { EraseCustomerUseCase } from '../use-cases/erase-customer/erase-customer.usecase.js';
import { RecordLogFileDownloadUseCase } from '../use-cases/record-log-file-download/record-log-file-download.usecase.js';
import { UploadLogFileUseCase } from '../use-cases/upload-log-file/upload-log-file.usecase.js';
import { LogdataController } from './logdata.controller.js';

configureLogging({ sink: () => undefined });

describe('toPage', () => {
  it('uses the extra row only to tell that more exist', () => {
    expect(toPage([1, 2, 3], 2, 10)).toEqual({ items: [1, 2], next_offset: 12 });
    expect(toPage([1, 2], 2, 10)).toEqual({ items: [1, 2], next_offset: null });
    expect(toPage([], 2, 0)).toEqual({ items: [], next_offset: null });
  });
});

describe('LogdataController and its use cases', () => {
  const customer = makeCustomer();
  const ctx = makeContext(customer);
  let repository: MemoryLogFileRepository;
  let store: MemoryObjectStore;
  let service: LogdataController;

  beforeEach(() => {
    repository = new MemoryLogFileRepository();
    store = new MemoryObjectStore();
    const logdata = repository.asStore();
    service = new LogdataController(
      new UploadLogFileUseCase(logdata, store),
      new ReadLogFileUseCase(logdata),
      new ListLogFilesUseCase(logdata),
      new CountLogFilesUseCase(logdata),
      new RecordLogFileDownloadUseCase(logdata),
      new EraseCustomerUseCase(logdata, store),
    );
  });

  it('uploads under the lower-cased name with the actor as uploader', async () => {
    const name = makeLogName();
    const result = await service.upload(makeFileCall(ctx, name.toUpperCase(), store.stage('abc')));
    expect(result.file).toMatchObject({ name, uploaded_by: 'token:tok-1', content_type: 'text/plain' });
  });

  it('deletes the staged object of a refused upload (bad name)', async () => {
    const file = store.stage('abc');
    await expect(service.upload(makeFileCall(ctx, 'nothex', file))).rejects.toMatchObject({ code: ErrorCode.BadRequest });
    expect(store.objects.has(file.key)).toBe(false);
  });

  it('answers 404 "log file not found" for download and meta of an unknown or foreign file', async () => {
    const name = makeLogName();
    await service.upload(makeFileCall(makeContext(makeCustomer()), name, store.stage('other tenant')));
    await expect(service.download(makeFileCall(ctx, name))).rejects.toMatchObject({ code: ErrorCode.NotFound, message: 'log file not found' });
    await expect(service.meta(makeFileCall(ctx, makeLogName()))).rejects.toMatchObject({ code: ErrorCode.NotFound });
  });

  it('gives a FileRef for download without counting it', async () => {
    const name = makeLogName();
    const file = store.stage('abc');
    await service.upload(makeFileCall(ctx, name, file));
    const ref = await service.download(makeFileCall(ctx, name.toUpperCase()));
    expect(ref).toMatchObject({ key: file.key, sizeBytes: 3, filename: name, onDownload: { subject: LogdataEvents.downloaded.subject } });
    expect((await service.meta(makeFileCall(ctx, name))).download_count).toBe(0);
  });

  it('counts a downloaded event and ignores malformed ones', async () => {
    const name = makeLogName();
    await service.upload(makeFileCall(ctx, name, store.stage('abc')));
    await service.downloaded({ customerId: customer.id, name, at: '2026-11-21T08:00:00.000Z' });
    await service.downloaded({ customerId: 'not-a-uuid', name, at: '2026-11-21T08:00:00.000Z' });
    await service.downloaded({ customerId: customer.id, name: 'zz', at: '2026-11-21T08:00:00.000Z' });
    expect(await service.meta(makeFileCall(ctx, name))).toMatchObject({ download_count: 1, last_accessed_at: '2026-11-21T08:00:00.000Z' });
  });

  it('lists with defaults limit 50 offset 0, lower-cases the prefix, asks for one row more', async () => {
    const spy: unknown[] = [];
    const original = repository.list.bind(repository);
    repository.list = async (q) => {
      spy.push(q);
      return original(q);
    };
    await service.list(makeListCall(ctx, { prefix: 'AB', uploaded_after: '2026-01-01T00:00:00Z' }));
    expect(spy[0]).toEqual({
      customerId: customer.id,
      prefix: 'ab',
      uploadedAfter: new Date('2026-01-01T00:00:00Z'),
      uploadedBefore: undefined,
      limit: 51,
      offset: 0,
    });
  });

  it('refuses invalid list input with 400', async () => {
    await expect(service.list(makeListCall(ctx, { uploaded_before: 'yesterday' }))).rejects.toMatchObject({ code: ErrorCode.BadRequest });
    await expect(service.list(makeListCall(ctx, { limit: 0 }))).rejects.toMatchObject({ code: ErrorCode.BadRequest });
    await expect(service.list(makeListCall(ctx, { limit: 501 }))).rejects.toMatchObject({ code: ErrorCode.BadRequest });
    await expect(service.list(makeListCall(ctx, { offset: -1 }))).rejects.toMatchObject({ code: ErrorCode.BadRequest });
  });

  it('counts per customer, zero for customers without files', async () => {
    const other = asCustomerId('00000000-0000-4000-8000-000000000001');
    repository.rows.set('x', makeLogFileEntity({ customerId: customer.id, sizeBytes: 10 }));
    repository.rows.set('y', makeLogFileEntity({ customerId: customer.id, sizeBytes: 5 }));
    expect(await service.counts({ customerIds: [customer.id, other] })).toEqual({
      [customer.id]: { count: 2, storedBytes: 15 },
      [other]: { count: 0, storedBytes: 0 },
    });
    await expect(service.counts({ customerIds: ['nope'] })).rejects.toMatchObject({ code: ErrorCode.BadRequest });
    expect(await service.counts({ customerIds: [] })).toEqual({});
  });

  it('erases a customer: its files first, then its rows; other customers untouched; a crash midway is finished by asking again', async () => {
    const other = asCustomerId('00000000-0000-4000-8000-000000000002');
    const mine = [store.stage('a'), store.stage('bb')];
    const theirs = store.stage('ccc');
    mine.forEach((file, i) => repository.rows.set(`m${i}`, makeLogFileEntity({ customerId: customer.id, objectKey: file.key })));
    repository.rows.set('t', makeLogFileEntity({ customerId: other, objectKey: theirs.key }));

    // The object store fails: nothing is lost track of (the rows still name the files).
    store.failDeletes = true;
    await expect(service.eraseCustomer({ customerId: customer.id })).rejects.toThrow('object store unavailable');
    expect(repository.rows.size).toBe(3);
    store.failDeletes = false;

    expect(await service.eraseCustomer({ customerId: customer.id })).toEqual({ rows: 2, objects: 2 });
    expect(store.deleted.sort()).toEqual(mine.map((f) => f.key).sort());
    expect([...store.objects.keys()]).toEqual([theirs.key]);
    expect([...repository.rows.values()].map((r) => r.customerId)).toEqual([other]);
    // Idempotent.
    expect(await service.eraseCustomer({ customerId: customer.id })).toEqual({ rows: 0, objects: 0 });
  });
});

describe('tenant enforcement (compile time, checked by tsc)', () => {
  it('refuses repository calls without a branded customer id', () => {
    const typeOnly = (repo: LogFileRepository) => {
      // @ts-expect-error the tenant is part of every tenant query's parameter type
      void repo.findByName({ name: 'x' });
      // @ts-expect-error a plain string (a domain, a user id) is not a CustomerId
      void repo.findByName({ customerId: 'example.com', name: 'x' });
      void repo.findByName({ customerId: asCustomerId('00000000-0000-4000-8000-000000000001'), name: 'x' });
    };
    expect(typeof typeOnly).toBe('function');
  });
});
