/**
 * Test factories and an in-memory object store for the logdata app's tests. The request-side factories (makeCustomer,
 * makeContext, makeCall) come from '@app/testing'.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  asCustomerId,
  type EndpointCall,
  type LogFileCustomerQuery,
  type LogFileListQuery,
  type LogFileParams,
  type RequestContext,
  type StagedFile,
} from '@app/contracts';
import { assertObjectKey, ObjectStore, type ListedObject, type ObjectRange, type StoredObjectInfo } from '@app/infra';
import { makeCall } from '@app/testing';
import { LogFileEntity } from '../src/entities/log-file.entity.js';

/** A random valid log-file name (128 lower-case hex), optionally starting with `prefix`. */
export function makeLogName(prefix = ''): string {
  return (prefix + randomBytes(64).toString('hex')).slice(0, 128);
}

export function sha256(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/** A StagedFile as the gateway describes it; put it in a store with `store.stage(...)`. */
export function makeStagedFile(content: string | Buffer, overrides: Partial<StagedFile> = {}): StagedFile {
  const bytes = Buffer.from(content);
  return {
    key: `staging/${randomUUID()}`,
    sizeBytes: bytes.length,
    sha256: sha256(bytes),
    contentType: 'text/plain',
    ...overrides,
  };
}

export function makeFileCall(ctx: RequestContext, name: string, file?: StagedFile): EndpointCall<LogFileParams, LogFileCustomerQuery, undefined> {
  return makeCall<LogFileParams, LogFileCustomerQuery, undefined>(ctx, { params: { name }, file });
}

export function makeListCall(ctx: RequestContext, query: Partial<LogFileListQuery> = {}): EndpointCall<Record<string, never>, LogFileListQuery, undefined> {
  return makeCall<Record<string, never>, LogFileListQuery, undefined>(ctx, { query: query as LogFileListQuery });
}

export function makeLogFileEntity(overrides: Partial<LogFileEntity> = {}): LogFileEntity {
  const entity = new LogFileEntity();
  Object.assign(entity, {
    customerId: asCustomerId(randomUUID()),
    name: makeLogName(),
    objectKey: `staging/${randomUUID()}`,
    sizeBytes: 5,
    sha256: sha256('hello'),
    contentType: 'text/plain',
    uploadedAt: new Date('2026-11-20T10:00:00.123Z'),
    uploadedBy: 'token:tok-1',
    downloadCount: 0,
    lastAccessedAt: null,
    ...overrides,
  });
  return entity;
}

/** The ObjectStore port in memory (until/unless the real adapters are used). */
export class MemoryObjectStore extends ObjectStore {
  readonly kind = 'filesystem' as const;
  readonly objects = new Map<string, Buffer>();
  readonly deleted: string[] = [];
  failDeletes = false;

  /** Puts the bytes of a staged file, as the gateway would before calling the app. */
  stage(content: string | Buffer, overrides: Partial<StagedFile> = {}): StagedFile {
    const file = makeStagedFile(content, overrides);
    this.objects.set(file.key, Buffer.from(content));
    return file;
  }

  async put(key: string, body: Readable): Promise<void> {
    assertObjectKey(key);
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(Buffer.from(chunk as Buffer));
    this.objects.set(key, Buffer.concat(chunks));
  }

  async get(key: string, range?: ObjectRange): Promise<Readable | null> {
    const data = this.objects.get(key);
    if (!data) return null;
    return Readable.from([range ? data.subarray(range.start, range.end + 1) : data]);
  }

  async head(key: string): Promise<StoredObjectInfo | null> {
    const data = this.objects.get(key);
    return data ? { sizeBytes: data.length } : null;
  }

  async delete(key: string): Promise<void> {
    if (this.failDeletes) throw new Error('object store unavailable');
    this.deleted.push(key);
    this.objects.delete(key);
  }

  async move(from: string, to: string): Promise<void> {
    const data = this.objects.get(from);
    if (!data) throw new Error(`no object ${from}`);
    this.objects.set(to, data);
    this.objects.delete(from);
  }

  async flush(): Promise<void> {}

  async *list(prefix: string): AsyncIterable<ListedObject> {
    for (const key of this.objects.keys()) if (key.startsWith(prefix)) yield { key, lastModified: new Date() };
  }

  async presignGet(): Promise<string | null> {
    return null;
  }

  async check(): Promise<boolean> {
    return true;
  }
}
