import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type FileHandle, open, rm, stat, truncate } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { DeviceClientError } from './errors.js';

export interface DownloadRequest {
  readonly url: string;
  /** Where the file goes; an existing partial file there is resumed. */
  readonly destination: string;
  /** From the update item: the file's size and lower-case hex SHA-256. */
  readonly sizeBytes: number;
  readonly sha256: string;
  /** Transfers tried in all (the first and the resumes), default 5. */
  readonly attempts?: number;
  /** Wait before resume n: retryDelayMs × 2^(n-1), default 200 ms. */
  readonly retryDelayMs?: number;
  readonly fetch?: typeof fetch;
}

export interface DownloadResult {
  readonly path: string;
  readonly sizeBytes: number;
  /** Transfers made: 1 when nothing was cut. */
  readonly transfers: number;
  /** Bytes received by the resumed transfers, i.e. not received twice. */
  readonly resumedBytes: number;
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/**
 * Downloads the file, resuming an interrupted transfer with `Range: bytes=<have>-` (and
 * `If-Range` with the first answer's validator, so a file that changed meanwhile starts over),
 * then checks size and SHA-256 before handing the path over. A file that does not match is
 * deleted and refused: the device never installs bytes it did not verify.
 */
export async function downloadVerified(request: DownloadRequest): Promise<DownloadResult> {
  const doFetch = request.fetch ?? fetch;
  const attempts = request.attempts ?? 5;
  let validator: string | null = null;
  let transfers = 0;
  let resumedBytes = 0;
  let lastError: unknown = null;
  let have = await sizeOf(request.destination);
  if (have > request.sizeBytes) {
    await truncate(request.destination, 0);
    have = 0;
  }
  while (have < request.sizeBytes && transfers < attempts) {
    if (transfers > 0) await sleep((request.retryDelayMs ?? 200) * 2 ** (transfers - 1));
    transfers++;
    const headers: Record<string, string> = {};
    if (have > 0) {
      headers.range = `bytes=${have}-`;
      if (validator) headers['if-range'] = validator;
    }
    let response: Response;
    try {
      response = await doFetch(request.url, { headers, redirect: 'follow' });
    } catch (err) {
      lastError = err;
      continue;
    }
    const resumed = response.status === 206;
    if (response.status !== 200 && !resumed) {
      await response.body?.cancel();
      if (response.status >= 500 || response.status === 429) {
        lastError = new DeviceClientError('http_status', `download answered ${response.status}`, response.status);
        continue;
      }
      throw new DeviceClientError('download_failed', `download answered ${response.status}`, response.status);
    }
    if (resumed && !response.headers.get('content-range')?.startsWith(`bytes ${have}-`)) {
      await response.body?.cancel();
      throw new DeviceClientError('download_failed', `the resumed answer does not start at byte ${have}`);
    }
    validator ??= response.headers.get('etag') ?? response.headers.get('last-modified');
    const before = resumed ? have : 0;
    let file: FileHandle | undefined;
    try {
      if (!response.body) throw new DeviceClientError('download_failed', 'the download answer has no body');
      file = await open(request.destination, resumed ? 'a' : 'w');
      // Each chunk is on disk before the next is read: a transfer cut short keeps every byte it
      // received, and the resume asks only for the rest (a write stream drops what it still buffers).
      for await (const chunk of response.body) await file.write(chunk);
    } catch (err) {
      lastError = err;
      await response.body?.cancel().catch(() => undefined); // not read at all when the file would not open
    } finally {
      await file?.close();
    }
    have = await sizeOf(request.destination);
    if (resumed) resumedBytes += have - before;
  }
  if (have < request.sizeBytes) {
    throw new DeviceClientError(
      'download_failed',
      `download incomplete after ${transfers} transfers (${have} of ${request.sizeBytes} bytes): ${String(lastError)}`,
    );
  }
  if (have !== request.sizeBytes) {
    await rm(request.destination, { force: true });
    throw new DeviceClientError('size_mismatch', `the file has ${have} bytes, the update item says ${request.sizeBytes}`);
  }
  const actual = await sha256Of(request.destination);
  if (actual !== request.sha256.toLowerCase()) {
    await rm(request.destination, { force: true });
    throw new DeviceClientError('sha256_mismatch', `the file's SHA-256 is ${actual}, the update item says ${request.sha256}`);
  }
  return { path: request.destination, sizeBytes: have, transfers, resumedBytes };
}
