// The bare baseline of `npm run bench:backup`: the encryption step of a standard-tools pipeline
// (`tar -cf - … | node bare-sealed-stream.js seal FILE`, and `node bare-sealed-stream.js open
// FILE SHA256 | tar -xf -`), with node:crypto and node:fs only. It does what the service's
// archive does to the bytes and nothing more: ChaCha20-Poly1305 in 64 KiB chunks under age's
// payload nonces (11-byte big-endian counter, last-chunk flag), a SHA-256 of the whole
// plaintext, the file written and fsynced.
//
//   BARE_KEY=<64 hex> node bare-sealed-stream.js seal FILE        stdin → FILE (fsynced); prints the plaintext's SHA-256
//   BARE_KEY=<64 hex> node bare-sealed-stream.js open FILE SHA256  FILE → stdout; exits 1 if a chunk does not
//                                                                  authenticate or the SHA-256 differs
//
// One thread, synchronous reads and writes of 1 MiB batches: tar runs in its own process, the
// pipe between them lets both work at once.
import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';

const CHUNK = 64 * 1024;
const TAG = 16;
const BATCH_CHUNKS = 16;

const key = Buffer.from(process.env.BARE_KEY ?? '', 'hex');
if (key.length !== 32) throw new Error('BARE_KEY: 64 hex digits');

function nonce(counter: number, last: boolean): Buffer {
  const n = Buffer.alloc(12);
  n.writeUIntBE(counter, 5, 6);
  n[11] = last ? 1 : 0;
  return n;
}

/** A pipe end may be non-blocking: wait a little and try again. */
function retrying<T>(io: () => T): T {
  for (;;) {
    try {
      return io();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

/** Fills `buffer` from `at` on until it is full or the input ends; the bytes now held. */
function fill(fd: number, buffer: Buffer, at: number): number {
  while (at < buffer.length) {
    const n = retrying(() => readSync(fd, buffer, at, buffer.length - at, null));
    if (n === 0) break;
    at += n;
  }
  return at;
}

function writeAll(fd: number, bytes: Buffer): void {
  for (let at = 0; at < bytes.length;) at += retrying(() => writeSync(fd, bytes, at, bytes.length - at));
}

/**
 * Reads `fd` in batches of whole units (`unit` bytes each) and hands each unit to `each` with
 * its counter and whether it is the last (the last may be short; it is empty only when the
 * whole input is). The last unit of a full batch waits for the next read: only then is it
 * known not to be the last.
 */
function units(fd: number, unit: number, each: (bytes: Buffer, counter: number, last: boolean) => void): void {
  const buffer = Buffer.allocUnsafe(unit * BATCH_CHUNKS);
  let held = 0;
  let counter = 0;
  for (;;) {
    held = fill(fd, buffer, held);
    const ended = held < buffer.length;
    const whole = ended ? Math.max(1, Math.ceil(held / unit)) : BATCH_CHUNKS - 1;
    for (let i = 0; i < whole; i++) each(buffer.subarray(i * unit, Math.min(held, (i + 1) * unit)), counter++, ended && i === whole - 1);
    if (ended) return;
    buffer.copy(buffer, 0, whole * unit, held);
    held -= whole * unit;
  }
}

function seal(file: string): void {
  const out = openSync(file, 'w');
  const hash = createHash('sha256');
  units(0, CHUNK, (plain, counter, last) => {
    hash.update(plain);
    const cipher = createCipheriv('chacha20-poly1305', key, nonce(counter, last), { authTagLength: TAG });
    writeAll(out, Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]));
  });
  fsyncSync(out);
  closeSync(out);
  process.stdout.write(`${hash.digest('hex')}\n`);
}

function open(file: string, sha256: string): void {
  const input = openSync(file, 'r');
  const hash = createHash('sha256');
  units(input, CHUNK + TAG, (sealed, counter, last) => {
    if (sealed.length < TAG) throw new Error(`chunk ${counter} is short`);
    const decipher = createDecipheriv('chacha20-poly1305', key, nonce(counter, last), { authTagLength: TAG });
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG));
    const plain = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG)), decipher.final()]);
    hash.update(plain);
    writeAll(1, plain);
  });
  closeSync(input);
  if (hash.digest('hex') !== sha256) throw new Error('the SHA-256 of the opened bytes differs');
}

const [mode, file, sha256] = process.argv.slice(2);
if (mode === 'seal' && file) seal(file);
else if (mode === 'open' && file && sha256) open(file, sha256);
else throw new Error('usage: seal FILE | open FILE SHA256');
