import { createCipheriv, createHash } from 'node:crypto';
import { Readable } from 'node:stream';

export interface PseudoRandomStreamOptions {
  /** Same seed, same bytes (default 'seed'). */
  readonly seed?: string;
  readonly chunkBytes?: number;
  /** Called before each chunk is handed out, with the bytes produced so far (for streaming probes). */
  readonly onProduce?: (producedBytes: number) => void;
  /** Fail with this error once this many bytes were produced (simulates an aborted upload). */
  readonly failAfterBytes?: number;
  readonly failWith?: Error;
}

function keystream(seed: string) {
  const key = createHash('sha256').update(seed).digest();
  return createCipheriv('aes-128-ctr', key.subarray(0, 16), key.subarray(16, 32));
}

/**
 * `sizeBytes` of deterministic pseudo-random data, generated lazily chunk by chunk as the
 * consumer reads (never held whole in memory).
 */
export function pseudoRandomStream(sizeBytes: number, options: PseudoRandomStreamOptions = {}): Readable {
  const cipher = keystream(options.seed ?? 'seed');
  const chunkBytes = options.chunkBytes ?? 64 * 1024;
  const zeros = Buffer.alloc(chunkBytes);
  let produced = 0;
  return new Readable({
    highWaterMark: chunkBytes,
    read() {
      if (options.failAfterBytes !== undefined && produced >= options.failAfterBytes) {
        this.destroy(options.failWith ?? new Error('simulated upload failure'));
        return;
      }
      if (produced >= sizeBytes) {
        this.push(null);
        return;
      }
      const n = Math.min(chunkBytes, sizeBytes - produced);
      options.onProduce?.(produced);
      produced += n;
      this.push(cipher.update(n === chunkBytes ? zeros : zeros.subarray(0, n)));
    },
  });
}

/** SHA-256 (hex) of `pseudoRandomStream(sizeBytes, {seed})`. */
export async function pseudoRandomSha256(sizeBytes: number, seed = 'seed'): Promise<string> {
  return sha256OfStream(pseudoRandomStream(sizeBytes, { seed }));
}

/** SHA-256 (hex) and length of a stream, consumed chunk by chunk. */
export async function sha256OfStream(stream: AsyncIterable<Buffer | Uint8Array | string>): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk);
  return hash.digest('hex');
}

export async function readAll(stream: AsyncIterable<Buffer | Uint8Array | string>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks);
}
