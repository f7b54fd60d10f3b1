import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import busboy from 'busboy';
import { type BodySpec, GatewayErrors, ServiceError, type StagedFile, type UploadLimits } from '@app/contracts';
import { JsonLogger, type LogRequest, ObjectStore } from '@app/infra';
import { HashingLimiter, stagingKey, tooLarge } from './body-stager.js';

type MultipartSpec = Extract<BodySpec, { kind: 'multipart' }>;

/** Room for boundaries, part headers and small form fields beside the declared parts. */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;
/** A declared part sent as a plain form field (no filename) is read as text up to this size. */
export const MULTIPART_FIELD_MAX_BYTES = 1024 * 1024;

export interface StagedParts {
  readonly files: Record<string, StagedFile>;
  /** Bytes of the request body read. */
  readonly bytesIn: number;
}

/**
 * multipart/form-data bodies (busboy): each declared part is streamed into the object store
 * under its own staging key, through the same hashing and size-limiting step as raw uploads,
 * one after the other as they arrive; nothing is held whole in memory. A Content-Length above
 * what the declared parts may add up to is refused (413) before anything is read. On any
 * failure every part staged so far is deleted.
 */
@Injectable()
export class MultipartStager {
  private readonly logger = new JsonLogger('gateway');

  constructor(private readonly store: ObjectStore) {}

  /** `request`: whose log lines a failed clean-up writes. */
  async stage(req: IncomingMessage, spec: MultipartSpec, limits: UploadLimits, request?: LogRequest): Promise<StagedParts> {
    const contentType = req.headers['content-type'] ?? '';
    if (!/^multipart\/form-data\b/i.test(contentType)) throw GatewayErrors.unsupported_media_type({ accepted: 'multipart/form-data' });
    const maxTotal = Object.values(spec.parts).reduce((sum, part) => sum + part.maxBytes(limits), MULTIPART_OVERHEAD_BYTES);
    const declared = req.headers['content-length'] !== undefined ? Number(req.headers['content-length']) : undefined;
    if (declared !== undefined && (!Number.isSafeInteger(declared) || declared < 0)) throw GatewayErrors.content_length_invalid();
    if (declared !== undefined && declared > maxTotal) throw tooLarge(maxTotal, 'upload');
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: { fieldSize: MULTIPART_FIELD_MAX_BYTES, fields: 50, files: 20, parts: 100, headerPairs: 50 },
      });
    } catch (err) {
      throw GatewayErrors.multipart_malformed({ reason: err instanceof Error ? err.message : String(err) });
    }
    return this.run(req, parser, spec, limits, request);
  }

  private run(req: IncomingMessage, parser: busboy.Busboy, spec: MultipartSpec, limits: UploadLimits, request: LogRequest | undefined): Promise<StagedParts> {
    return new Promise<StagedParts>((resolve, reject) => {
      const files: Record<string, StagedFile> = {};
      const seen = new Set<string>();
      const work: Promise<void>[] = [];
      const active = new Set<HashingLimiter>();
      let failure: Error | null = null;
      let bytesIn = 0;

      const fail = (err: Error): void => {
        if (failure) return;
        failure = err;
        req.unpipe(parser);
        req.pause(); // read no more of an upload that is refused (the answer closes the connection)
        for (const limiter of active) limiter.destroy(err);
        void Promise.allSettled(work).then(async () => {
          await Promise.all(Object.values(files).map((file) => this.discard(file, request)));
          reject(err);
        });
      };

      const stagePart = (name: string, body: Readable, partType: string, source: 'file' | 'field'): void => {
        const part = spec.parts[name];
        const maxBytes = part.maxBytes(limits);
        const key = stagingKey();
        const limiter = new HashingLimiter(maxBytes, name);
        // Errors reach us through put()'s rejection; the store may attach its own listener later (after an await).
        limiter.on('error', () => undefined);
        active.add(limiter);
        body.on('error', (err) => limiter.destroy(err));
        body.pipe(limiter);
        const contentType = (partType || 'application/octet-stream').slice(0, 255);
        work.push(
          this.store.put(key, limiter, { contentType }).then(
            () => {
              active.delete(limiter);
              const file: StagedFile = { key, sizeBytes: limiter.size, sha256: limiter.hash.digest('hex'), contentType };
              if (failure) return this.discard(file, request);
              files[name] = file;
            },
            async (err: unknown) => {
              active.delete(limiter);
              await this.store.delete(key).catch(() => undefined);
              if (source === 'file') body.resume();
              fail(asUploadError(err, limiter, maxBytes, name));
            },
          ),
        );
      };

      parser.on('file', (name, stream, info) => {
        if (failure || !(name in spec.parts)) {
          stream.resume(); // undeclared parts are skipped
          return;
        }
        if (seen.has(name)) {
          stream.resume();
          fail(GatewayErrors.multipart_part_repeated({ name }));
          return;
        }
        seen.add(name);
        stagePart(name, stream, info.mimeType, 'file');
      });
      parser.on('field', (name, value, info) => {
        if (failure || !(name in spec.parts)) return;
        if (seen.has(name)) {
          fail(GatewayErrors.multipart_part_repeated({ name }));
          return;
        }
        seen.add(name);
        if (info.valueTruncated) {
          fail(GatewayErrors.multipart_field_too_large({ name, maxBytes: MULTIPART_FIELD_MAX_BYTES }));
          return;
        }
        stagePart(name, Readable.from([Buffer.from(value, 'utf8')]), info.mimeType === 'text/plain' ? 'text/plain; charset=utf-8' : info.mimeType, 'field');
      });
      const tooMany = () => fail(GatewayErrors.multipart_too_many_parts());
      parser.on('partsLimit', tooMany);
      parser.on('filesLimit', tooMany);
      parser.on('fieldsLimit', tooMany);
      parser.on('error', (err: Error) => fail(GatewayErrors.multipart_malformed({ reason: err.message })));
      parser.on('close', () => {
        void Promise.all(work).then(() => {
          if (failure) return;
          const missing = Object.entries(spec.parts).find(([name, part]) => part.required && !files[name]);
          if (missing) {
            fail(GatewayErrors.multipart_part_missing({ name: missing[0] }));
            return;
          }
          resolve({ files, bytesIn });
        });
      });
      req.on('data', (chunk: Buffer) => {
        bytesIn += chunk.length;
      });
      req.on('close', () => {
        if (!req.complete) fail(new Error('request aborted'));
      });
      req.on('error', (err) => fail(err));
      req.pipe(parser);
    });
  }

  /** Removes staged parts the app never received. */
  async discard(file: StagedFile, request?: LogRequest): Promise<void> {
    await this.store.delete(file.key).catch((err: unknown) => {
      this.logger.forRequest(request).warn('could not delete a staged upload part', { key: file.key, error: err instanceof Error ? err.message : String(err) });
    });
  }
}

function asUploadError(err: unknown, limiter: HashingLimiter, maxBytes: number, name: string): Error {
  if (ServiceError.is(err)) return err;
  const cause = (err as { cause?: unknown })?.cause;
  if (ServiceError.is(cause)) return cause;
  if (limiter.size > maxBytes) return tooLarge(maxBytes, name);
  return err instanceof Error ? err : new Error(String(err));
}
