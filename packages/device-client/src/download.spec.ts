import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { downloadVerified } from './download.js';
import { DeviceClientError } from './errors.js';

/** A file server that honours `Range: bytes=n-` and, while `cutAfter` is set, cuts the first full transfer after that many bytes. */
describe('downloadVerified', () => {
  const file = randomBytes(256 * 1024);
  const sha = createHash('sha256').update(file).digest('hex');
  const ranges: (string | null)[] = [];
  let cutAfter: number | null = null;
  let serve: Buffer = file;
  let server: Server;
  let base: string;
  let dir: string;

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const range = req.headers.range ?? null;
      ranges.push(range);
      const start = range ? Number(/^bytes=(\d+)-$/.exec(range)![1]) : 0;
      const part = serve.subarray(start);
      res.writeHead(range ? 206 : 200, {
        'content-length': part.length,
        etag: '"v1"',
        'accept-ranges': 'bytes',
        ...(range ? { 'content-range': `bytes ${start}-${serve.length - 1}/${serve.length}` } : {}),
      });
      if (cutAfter !== null && !range) {
        res.write(part.subarray(0, cutAfter), () => res.destroy());
        return;
      }
      res.end(part);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = await mkdtemp(join(tmpdir(), 'device-client-'));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('resumes a transfer cut halfway with Range and If-Range, and hands over the verified file', async () => {
    ranges.length = 0;
    cutAfter = file.length / 2;
    serve = file;
    const destination = join(dir, 'resumed.bin');
    const result = await downloadVerified({ url: `${base}/f`, destination, sizeBytes: file.length, sha256: sha, retryDelayMs: 1 });
    expect(result.transfers).toBe(2);
    expect(ranges[0]).toBeNull();
    expect(ranges[1]).toMatch(/^bytes=\d+-$/);
    const resumedFrom = Number(/^bytes=(\d+)-$/.exec(ranges[1]!)![1]);
    expect(resumedFrom).toBeGreaterThan(0);
    expect(result.resumedBytes).toBe(file.length - resumedFrom);
    expect((await readFile(destination)).equals(file)).toBe(true);
  });

  it('refuses a file whose SHA-256 differs and deletes it', async () => {
    cutAfter = null;
    serve = Buffer.from(file);
    serve[1000] ^= 0xff;
    const destination = join(dir, 'corrupt.bin');
    const err = await downloadVerified({ url: `${base}/f`, destination, sizeBytes: file.length, sha256: sha }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeviceClientError);
    expect((err as DeviceClientError).code).toBe('sha256_mismatch');
    await expect(stat(destination)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a file of another size', async () => {
    serve = Buffer.concat([file, Buffer.from('extra')]);
    const err = await downloadVerified({ url: `${base}/f`, destination: join(dir, 'long.bin'), sizeBytes: file.length, sha256: sha }).catch((e: unknown) => e);
    expect((err as DeviceClientError).code).toBe('size_mismatch');
  });

  it('reports a destination it cannot write as an incomplete download, naming why', async () => {
    serve = file;
    cutAfter = null;
    const destination = join(dir, 'no-such-directory', 'file.bin');
    const err = await downloadVerified({ url: `${base}/f`, destination, sizeBytes: file.length, sha256: sha, attempts: 2, retryDelayMs: 1 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DeviceClientError);
    expect((err as DeviceClientError).code).toBe('download_failed');
    expect((err as DeviceClientError).message).toMatch(/after 2 transfers \(0 of \d+ bytes\).*ENOENT/);
  });
});
