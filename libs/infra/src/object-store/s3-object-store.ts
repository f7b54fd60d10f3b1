import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { finished, Readable } from 'node:stream';
import type { S3Config } from '../config/config.js';
import { JsonLogger } from '../logging/logger.js';
import { LengthCheck } from './length-check.js';
import {
  assertObjectKey,
  type ListedObject,
  ObjectStore,
  type ObjectRange,
  type PresignOptions,
  type PutOptions,
  type StoredObjectInfo,
} from './object-store.js';

/** PutObject accepts at most 5 GiB; larger known sizes go through multipart as well. */
const MAX_SINGLE_PUT_BYTES = 5 * 1024 ** 3;
/** Multipart: 5 MiB parts (S3's minimum), at most 2 in flight: about 10 MiB of memory per upload. */
const PART_SIZE = 5 * 1024 * 1024;
const PART_QUEUE = 2;

/** The SDK's parts this store uses. */
interface Sdk extends Pick<
  typeof import('@aws-sdk/client-s3'),
  | 'CopyObjectCommand'
  | 'CreateBucketCommand'
  | 'DeleteObjectCommand'
  | 'GetObjectCommand'
  | 'HeadBucketCommand'
  | 'HeadObjectCommand'
  | 'ListObjectsV2Command'
  | 'PutObjectCommand'
  | 'S3Client'
> {
  readonly Upload: typeof import('@aws-sdk/lib-storage').Upload;
  readonly getSignedUrl: typeof import('@aws-sdk/s3-request-presigner').getSignedUrl;
}
let sdk: Promise<Sdk> | null = null;
/**
 * The SDK is loaded by the first S3ObjectStore, not with this module: the standalone runtime
 * (files on disk) never loads it (docs/performance.md "Memory of the embedded default").
 */
function loadSdk(): Promise<Sdk> {
  return (sdk ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage'), import('@aws-sdk/s3-request-presigner')]).then(
    ([client, storage, presigner]) => ({
      CopyObjectCommand: client.CopyObjectCommand,
      CreateBucketCommand: client.CreateBucketCommand,
      DeleteObjectCommand: client.DeleteObjectCommand,
      GetObjectCommand: client.GetObjectCommand,
      HeadBucketCommand: client.HeadBucketCommand,
      HeadObjectCommand: client.HeadObjectCommand,
      ListObjectsV2Command: client.ListObjectsV2Command,
      PutObjectCommand: client.PutObjectCommand,
      S3Client: client.S3Client,
      Upload: storage.Upload,
      getSignedUrl: presigner.getSignedUrl,
    }),
  ));
}

/**
 * The SDK's own warnings and errors as JSON log lines: without a logger it writes them to the
 * console (e.g. on every failed streamed PutObject). Its per-command info and debug lines are
 * dropped.
 */
function sdkLogger(): NonNullable<S3ClientConfig['logger']> {
  const log = new JsonLogger('object-store');
  const text = (content: unknown[]) => content.map((c) => (typeof c === 'string' ? c : JSON.stringify(c))).join(' ');
  return {
    trace: () => undefined,
    debug: () => undefined,
    info: () => undefined,
    warn: (...content: unknown[]) => log.warn(text(content)),
    error: (...content: unknown[]) => log.write('error', text(content)),
  };
}

function createS3Client(S3: Sdk, config: S3Config, overrides: Partial<S3ClientConfig> = {}): S3Client {
  const options: S3ClientConfig = {
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    // Without these the SDK sends aws-chunked bodies with checksum trailers, which s3rver
    // (and some S3-compatible servers) store verbatim, chunk framing included.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A readiness probe against an unreachable endpoint answers within seconds. (No overall
    // request timeout: a slow client legitimately keeps a download stream open for long.)
    requestHandler: { connectionTimeout: 5_000 },
    logger: sdkLogger(),
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    ...(config.accessKeyId && config.secretAccessKey ? { credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } } : {}),
    ...overrides,
  };
  return new S3.S3Client(options);
}

interface Clients {
  readonly sdk: Sdk;
  readonly client: S3Client;
  /**
   * For streamed PutObject only: a consumed stream cannot be sent again, so the SDK must not
   * retry it (it would send an empty body announced as N bytes); the caller retries instead.
   * Multipart parts are buffers and keep the default retries.
   */
  readonly streamClient: S3Client;
  /** Signs download URLs: for S3_PUBLIC_ENDPOINT when set (the signature covers the host). */
  readonly presignClient: S3Client;
}

/** Objects in an S3 bucket (AWS, MinIO, s3rver in tests). */
export class S3ObjectStore extends ObjectStore {
  readonly kind = 's3' as const;
  private readonly clients: Promise<Clients>;
  readonly bucket: string;

  constructor(config: S3Config) {
    super();
    this.bucket = config.bucket;
    this.clients = loadSdk().then((S3) => {
      const client = createS3Client(S3, config);
      return {
        sdk: S3,
        client,
        streamClient: createS3Client(S3, config, { maxAttempts: 1 }),
        presignClient: config.publicEndpoint ? createS3Client(S3, config, { endpoint: config.publicEndpoint }) : client,
      };
    });
  }

  /** Creates the bucket when it does not exist (tests and dev scripts; not called per request). */
  async ensureBucket(): Promise<void> {
    const { sdk: S3, client } = await this.clients;
    try {
      await client.send(new S3.HeadBucketCommand({ Bucket: this.bucket }));
      return;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    try {
      await client.send(new S3.CreateBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      const name = (err as Error)?.name;
      if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw err;
    }
  }

  /** `durable` changes nothing: S3 stores an object durably before it answers. */
  async put(key: string, body: Readable, options: PutOptions = {}): Promise<void> {
    assertObjectKey(key);
    const { sizeBytes, contentType } = options;
    // The check also turns "stream ended early" into an error instead of a hanging request.
    const checked = new LengthCheck(sizeBytes);
    const abort = new AbortController();
    let failure: unknown = null;
    const fail = (err: unknown): void => {
      failure ??= err;
      abort.abort(err);
      if (!body.destroyed) body.destroy();
      // With the error, so that lib-storage's reader fails and aborts the multipart upload.
      if (!checked.destroyed) checked.destroy(err instanceof Error ? err : new Error(String(err)));
    };
    // Not removed afterwards: a late error on the caller's stream must not become uncaught.
    body.on('error', fail);
    // A body destroyed before its end, even before this call (its error then already emitted),
    // fails the put: the request would otherwise wait for bytes that never come.
    finished(body, { writable: false }, (err) => {
      if (err) fail(err);
    });
    checked.on('error', fail);
    body.pipe(checked);
    try {
      // Here, with the body's error listeners on: a body failing meanwhile fails the put.
      const { sdk: S3, client, streamClient } = await this.clients;
      if (sizeBytes !== undefined && sizeBytes <= MAX_SINGLE_PUT_BYTES) {
        await streamClient.send(
          new S3.PutObjectCommand({
            Bucket: this.bucket,
            Key: key,
            Body: checked,
            ContentLength: sizeBytes,
            ...(contentType ? { ContentType: contentType } : {}),
          }),
          { abortSignal: abort.signal },
        );
      } else {
        const upload = new S3.Upload({
          client,
          params: { Bucket: this.bucket, Key: key, Body: checked, ...(contentType ? { ContentType: contentType } : {}) },
          partSize: PART_SIZE,
          queueSize: PART_QUEUE,
          leavePartsOnError: false,
        });
        await upload.done();
      }
    } catch (err) {
      fail(err);
      throw failure ?? err;
    }
  }

  async move(from: string, to: string): Promise<void> {
    assertObjectKey(from);
    assertObjectKey(to);
    const { sdk: S3, client } = await this.clients;
    // Keys are made of [A-Za-z0-9._-/] only: nothing in CopySource needs escaping.
    await client.send(new S3.CopyObjectCommand({ Bucket: this.bucket, Key: to, CopySource: `${this.bucket}/${from}` }));
    await this.delete(from);
  }

  async flush(): Promise<void> {
    // every put and move is durable when it resolves
  }

  async get(key: string, range?: ObjectRange): Promise<Readable | null> {
    assertObjectKey(key);
    const { sdk: S3, client } = await this.clients;
    try {
      const out = await client.send(
        new S3.GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      const body = out.Body;
      if (!body) return Readable.from([]);
      return body instanceof Readable ? body : Readable.fromWeb(body.transformToWebStream() as never);
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async head(key: string): Promise<StoredObjectInfo | null> {
    assertObjectKey(key);
    const { sdk: S3, client } = await this.clients;
    try {
      const out = await client.send(new S3.HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { sizeBytes: out.ContentLength ?? 0 };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    const { sdk: S3, client } = await this.clients;
    let token: string | undefined;
    do {
      const page = await client.send(new S3.ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const object of page.Contents ?? []) if (object.Key && object.LastModified) yield { key: object.Key, lastModified: object.LastModified };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async delete(key: string): Promise<void> {
    assertObjectKey(key);
    const { sdk: S3, client } = await this.clients;
    try {
      await client.send(new S3.DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }

  async presignGet(key: string, options: PresignOptions): Promise<string | null> {
    assertObjectKey(key);
    const { sdk: S3, presignClient } = await this.clients;
    const command = new S3.GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ...(options.contentType ? { ResponseContentType: options.contentType } : {}),
      ...(options.filename ? { ResponseContentDisposition: contentDisposition(options.filename) } : {}),
    });
    return S3.getSignedUrl(presignClient, command, { expiresIn: options.expiresInSeconds });
  }

  async check(): Promise<boolean> {
    try {
      const { sdk: S3, client } = await this.clients;
      await client.send(new S3.HeadBucketCommand({ Bucket: this.bucket }));
      return true;
    } catch {
      return false;
    }
  }

  /** Releases the client's sockets. */
  async close(): Promise<void> {
    const { client, streamClient, presignClient } = await this.clients;
    client.destroy();
    streamClient.destroy();
    if (presignClient !== client) presignClient.destroy();
  }
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } } | null;
  if (!e) return false;
  return e.name === 'NotFound' || e.name === 'NoSuchKey' || e.name === 'NoSuchBucket' || e.Code === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
}

/** `attachment; filename="ascii fallback"; filename*=UTF-8''percent-encoded` (RFC 6266). */
export function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
