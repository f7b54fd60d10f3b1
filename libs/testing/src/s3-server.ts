import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, unlink } from 'node:fs/promises';
import { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { pipeline } from 'node:stream/promises';
import type { S3Config } from '@app/infra';

export interface S3TestServer {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  readonly bucket: string;
  /** The S3_* variables for loadConfig() or a child process. */
  readonly env: {
    S3_ENDPOINT: string;
    S3_BUCKET: string;
    S3_REGION: string;
    S3_ACCESS_KEY_ID: string;
    S3_SECRET_ACCESS_KEY: string;
    S3_FORCE_PATH_STYLE: string;
  };
  /** The same as an S3Config, for `new S3ObjectStore(config)`. */
  readonly config: S3Config;
  close(): Promise<void>;
}

/**
 * s3rver on 127.0.0.1 and a random port, storing in a fresh temp directory, with one bucket.
 * s3rver checks no signatures: any credentials work.
 *
 * Two fidelity fixes are patched into this s3rver instance so tests see real S3 behaviour:
 * - a PUT body is spooled to a temp file first and stored only when it arrived whole and
 *   matches Content-Length (s3rver otherwise truncates the object and writes it while the
 *   body streams in, so an aborted upload leaves a partial object behind);
 * - `Range: bytes=0-0` returns one byte (s3rver returned the whole object).
 */
export async function startS3Server(options: { bucket?: string } = {}): Promise<S3TestServer> {
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  const bucket = options.bucket ?? `test-${randomBytes(4).toString('hex')}`;
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  // The silent console transport is unpiped by its first error; winston then complains on the console at every line.
  server.logger.silent = true;
  patchStore(server, join(directory, '.spool'));
  let address: AddressInfo;
  try {
    address = await server.run();
  } catch (err) {
    await rm(directory, { recursive: true, force: true });
    throw err;
  }
  const endpoint = `http://127.0.0.1:${address.port}`;
  const config: S3Config = {
    endpoint,
    publicEndpoint: null,
    bucket,
    region: 'us-east-1',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    forcePathStyle: true,
  };
  return {
    endpoint,
    bucket,
    config,
    env: {
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_REGION: config.region,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    },
    async close() {
      const closing = server.close();
      // Keep-alive sockets of SDK clients would otherwise hold close() open.
      server.httpServer?.closeAllConnections();
      await closing.catch(() => undefined);
      await rm(directory, { recursive: true, force: true });
    },
  };
}

function patchStore(server: S3rver, spoolDir: string): void {
  const store = server.store;
  const putObject = store.putObject.bind(store);
  const getObject = store.getObject.bind(store);
  let counter = 0;

  store.putObject = async (object) => {
    const content = object.content;
    if (!content || Buffer.isBuffer(content)) return putObject(object);
    await mkdir(spoolDir, { recursive: true });
    const spool = join(spoolDir, `${process.pid}-${++counter}`);
    try {
      // Rejects when the client goes away before the end of the body ("aborted").
      await pipeline(content, createWriteStream(spool));
      const received = (await stat(spool)).size;
      // Only a request body is framed by its Content-Length (multipart completion re-puts parts).
      const announced = content instanceof IncomingMessage ? content.headers['content-length'] : undefined;
      if (announced !== undefined && Number(announced) !== received) {
        throw new Error(`IncompleteBody: ${received} of ${announced} bytes`);
      }
      object.content = createReadStream(spool);
      return await putObject(object);
    } finally {
      await unlink(spool).catch(() => undefined);
    }
  };

  store.getObject = async (bucket, key, options) => {
    const object = await getObject(bucket, key, options);
    if (object?.content && options?.end === 0 && (options.start ?? 0) === 0 && object.size > 0) {
      (object.content as NodeJS.ReadableStream & { destroy(): void }).destroy();
      object.content = createReadStream(store.getResourcePath(bucket, key, 'object'), { start: 0, end: 0 });
      object.range = { start: 0, end: 0 };
    }
    return object;
  };
}
