import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { GatewayErrors, ServiceError, type StagedFile } from '@app/contracts';
import { ObjectStore } from '@app/infra';

/** Counts and hashes bytes on their way to the store; fails past the limit. */
export class HashingLimiter extends Transform {
  readonly hash = createHash('sha256');
  size = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly what = 'body',
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) return callback(tooLarge(this.maxBytes, this.what));
    this.hash.update(chunk);
    callback(null, chunk);
  }
}

export function tooLarge(maxBytes: number, what = 'body'): ServiceError {
  return GatewayErrors.upload_too_large({ what, maxBytes });
}

/** A new staging key: uploads/<date>/<uuid>. */
export function stagingKey(): string {
  return `uploads/${new Date().toISOString().slice(0, 10)}/${randomUUID()}`;
}

/**
 * Streams a request body into the object store under an upload key, computing SHA-256 and
 * size on the way: never held whole in memory, never over the bus. A declared length above
 * the limit is refused before anything is read or stored.
 */
@Injectable()
export class BodyStager {
  constructor(private readonly store: ObjectStore) {}

  async stage(req: IncomingMessage, maxBytes: number, contentType: string): Promise<StagedFile> {
    const declared = req.headers['content-length'] !== undefined ? Number(req.headers['content-length']) : undefined;
    if (declared !== undefined && (!Number.isSafeInteger(declared) || declared < 0)) throw GatewayErrors.content_length_invalid();
    if (declared !== undefined && declared > maxBytes) throw tooLarge(maxBytes);
    const key = stagingKey();
    const limiter = new HashingLimiter(maxBytes);
    limiter.on('error', () => undefined); // reported through put()'s rejection
    req.on('error', (err) => limiter.destroy(err));
    req.pipe(limiter);
    try {
      await this.store.put(key, limiter, { sizeBytes: declared, contentType });
    } catch (err) {
      await this.store.delete(key).catch(() => undefined);
      if (ServiceError.is(err)) throw err;
      const cause = (err as { cause?: unknown })?.cause;
      if (ServiceError.is(cause)) throw cause;
      if (limiter.size > maxBytes) throw tooLarge(maxBytes);
      throw err;
    }
    if (limiter.size > maxBytes) {
      await this.store.delete(key).catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    return { key, sizeBytes: limiter.size, sha256: limiter.hash.digest('hex'), contentType };
  }

  /** Removes a staged body the app never received. */
  async discard(file: StagedFile): Promise<void> {
    await this.store.delete(file.key).catch(() => undefined);
  }
}
