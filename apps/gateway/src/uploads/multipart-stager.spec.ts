import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { type BodySpec, ErrorCode, ServiceError } from '@app/contracts';
import { configureLogging, ObjectStore, type ListedObject, type StoredObjectInfo } from '@app/infra';
import { MultipartStager } from './multipart-stager.js';

configureLogging({ sink: () => undefined });

class MemoryStore extends ObjectStore {
  readonly kind = 'filesystem' as const;
  readonly objects = new Map<string, Buffer>();
  async put(key: string, body: Readable): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(Buffer.from(chunk as Buffer));
    this.objects.set(key, Buffer.concat(chunks));
  }
  async get(key: string): Promise<Readable | null> {
    const data = this.objects.get(key);
    return data ? Readable.from([data]) : null;
  }
  async head(key: string): Promise<StoredObjectInfo | null> {
    const data = this.objects.get(key);
    return data ? { sizeBytes: data.length } : null;
  }
  async delete(key: string): Promise<void> {
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

const spec: Extract<BodySpec, { kind: 'multipart' }> = {
  kind: 'multipart',
  description: '',
  parts: {
    firmware: { required: true, maxBytes: (limits) => limits.firmwareMaxBytes, description: '' },
    notes: { required: false, maxBytes: () => 100, description: '' },
  },
};
const limits = { isSandbox: false, firmwareMaxBytes: 1000 };

function body(parts: { name: string; data: Buffer | string; filename?: string }[], boundary = 'BOUNDARY'): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const filename = part.filename === undefined ? '' : `; filename="${part.filename}"`;
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${filename}\r\n\r\n`),
      Buffer.from(part.data),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** A request streaming `data` in small chunks (so parts cross chunk boundaries). */
function request(data: Buffer, headers: Record<string, string> = {}): IncomingMessage {
  const stream = new PassThrough() as unknown as IncomingMessage & PassThrough;
  Object.assign(stream, { headers: { 'content-type': 'multipart/form-data; boundary=BOUNDARY', ...headers }, complete: false });
  void (async () => {
    for (let at = 0; at < data.length; at += 7) {
      stream.write(data.subarray(at, at + 7));
      await new Promise((r) => setImmediate(r));
    }
    (stream as unknown as { complete: boolean }).complete = true;
    stream.end();
  })();
  return stream;
}

const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    return ServiceError.is(err) ? `${err.code} ${err.message}` : String(err);
  }
}

describe('MultipartStager', () => {
  it('streams each declared part into the store with size and SHA-256; skips undeclared parts', async () => {
    const store = new MemoryStore();
    const firmware = Buffer.from('x'.repeat(500));
    const data = body([
      { name: 'other', data: 'skipped', filename: 'o' },
      { name: 'firmware', data: firmware, filename: 'fw.bin' },
      { name: 'notes', data: 'hello' },
    ]);
    const { files, bytesIn } = await new MultipartStager(store).stage(request(data), spec, limits);
    expect(bytesIn).toBe(data.length);
    expect(files.firmware).toMatchObject({ sizeBytes: 500, sha256: sha(firmware) });
    expect(files.notes).toMatchObject({ sizeBytes: 5, sha256: sha('hello'), contentType: 'text/plain; charset=utf-8' });
    expect([...store.objects.values()].map((b) => b.toString())).toEqual([firmware.toString(), 'hello']);
  });

  it('413 past a part limit, and nothing stays stored', async () => {
    const store = new MemoryStore();
    const data = body([
      { name: 'notes', data: 'n', filename: 'n' },
      { name: 'firmware', data: Buffer.alloc(1001), filename: 'fw' },
    ]);
    expect(await codeOf(new MultipartStager(store).stage(request(data), spec, limits))).toBe(
      `${ErrorCode.PayloadTooLarge} firmware larger than the limit of 1000 bytes`,
    );
    expect(store.objects.size).toBe(0);
  });

  it('413 before reading when Content-Length exceeds what the parts may add up to', async () => {
    const store = new MemoryStore();
    const req = request(Buffer.alloc(0), { 'content-length': String(1000 + 100 + 64 * 1024 + 1) });
    expect(await codeOf(new MultipartStager(store).stage(req, spec, limits))).toMatch(`${ErrorCode.PayloadTooLarge} upload larger than the limit`);
  });

  it('400 for a missing required part or a part twice (staged parts deleted), 415 for another body type', async () => {
    const store = new MemoryStore();
    const stager = new MultipartStager(store);
    expect(await codeOf(stager.stage(request(body([{ name: 'notes', data: 'n', filename: 'n' }])), spec, limits))).toBe(
      `${ErrorCode.BadRequest} multipart part firmware is required`,
    );
    const twice = body([
      { name: 'firmware', data: 'a', filename: 'a' },
      { name: 'firmware', data: 'b', filename: 'b' },
    ]);
    expect(await codeOf(stager.stage(request(twice), spec, limits))).toBe(`${ErrorCode.BadRequest} multipart part firmware appears more than once`);
    expect(store.objects.size).toBe(0);
    expect(await codeOf(stager.stage(request(Buffer.from('x'), { 'content-type': 'text/plain' }), spec, limits))).toBe(
      `${ErrorCode.UnsupportedMediaType} body must be multipart/form-data`,
    );
  });
});
