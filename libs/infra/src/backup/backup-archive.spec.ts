import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it, jest } from '@jest/globals';
import tar from 'tar-stream';
import { AgeDecryptStream, AgeEncryptStream } from './age-stream.js';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_FORMAT_VERSION,
  ArchiveError,
  ArchiveProblem,
  ArchiveWriter,
  dumpEntryName,
  fileEntryName,
  generateBackupKeyPair,
  identityFromBase64,
  type ManifestFile,
  readArchive,
  sha256Hex,
} from './backup-archive.js';
import { archiveName } from './backup-store.js';

// Each case encrypts and decrypts megabytes on the cipher thread: 2-3 s alone, more when the unit tests share
// the machine's two cores with the type checks and lint (npm test), past jest's 5 s default.
jest.setTimeout(30_000);

async function collect(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

const files = [
  { key: 'uploads/2026-11-26/a', body: randomBytes(300 * 1024) },
  { key: 'uploads/2026-11-26/b', body: Buffer.from('notes') },
  { key: 'uploads/2026-11-26/empty', body: Buffer.alloc(0) },
  // A name longer than a ustar header holds (a pax record), a body over several cipher batches.
  { key: `logdata/acme.example/${'0'.repeat(120)}`, body: randomBytes(2 * 1024 * 1024 + 513) },
];
const dump = Buffer.from('{"table":"devices"}\n{"hwid":"SN-1"}\n');

async function archive(publicKey: string, name = 'backup-20261126T181500Z-3f9a2c1b.age'): Promise<Buffer> {
  const writer = new ArchiveWriter(publicKey);
  const out = writer.output.then(collect);
  const sha = await (await writer.add(dumpEntryName('registry'), dump.length, Readable.from([dump]))).sha256();
  const listed: ManifestFile[] = [];
  // Streams and Buffers; the digests asked for only before the manifest, as a backup does.
  const written = [];
  for (const [i, f] of files.entries()) written.push(await writer.add(fileEntryName(f.key), f.body.length, i % 2 ? f.body : Readable.from([f.body])));
  for (const [i, f] of files.entries()) listed.push({ key: f.key, size: f.body.length, sha256: await written[i].sha256() });
  await writer.finish({
    format: ARCHIVE_FORMAT,
    format_version: ARCHIVE_FORMAT_VERSION,
    archive_name: name,
    created_at: new Date().toISOString(),
    dumps: [{ app: 'registry', entry: dumpEntryName('registry'), bytes: dump.length, sha256: sha, format_version: 1, tables: [{ table: 'devices', rows: 1 }] }],
    files: listed,
  });
  return out;
}

/** The tar stream inside an archive. */
async function decrypted(bytes: Buffer, identity: string): Promise<Buffer> {
  const decrypt = new AgeDecryptStream(identity);
  const [plain] = await Promise.all([collect(decrypt), pipeline(Readable.from([bytes]), decrypt)]);
  return plain;
}

async function problemOf(promise: Promise<unknown>): Promise<{ problem: ArchiveProblem; message: string }> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ArchiveError) return { problem: err.problem, message: err.message };
    throw err;
  }
  throw new Error('expected the archive to be refused');
}

describe('backup archive (tar + age)', () => {
  it('reads back every entry with the key, byte for byte, and checks it against the manifest', async () => {
    const keys = await generateBackupKeyPair();
    expect(keys.publicKey).toMatch(/^age1/);
    const bytes = await archive(keys.publicKey);
    expect(bytes.subarray(0, 21).toString()).toBe('age-encryption.org/v1');
    const seen = new Map<string, Buffer>();
    const summary = await readArchive(Readable.from([bytes]), identityFromBase64(Buffer.from(keys.secretKey).toString('base64')), async (entry) => {
      seen.set(entry.name, await collect(entry.body));
    });
    expect(summary.objectCount).toBe(files.length + 1);
    expect(summary.totalBytes).toBe(dump.length + files.reduce((n, f) => n + f.body.length, 0));
    for (const f of files) expect(seen.get(fileEntryName(f.key))?.equals(f.body)).toBe(true);
    for (const f of files) expect(summary.manifest.files.find((m) => m.key === f.key)?.sha256).toBe(sha256Hex(f.body));
    expect(summary.manifest.dumps[0].tables).toEqual([{ table: 'devices', rows: 1 }]);
  });

  it('is a tar stream as tar-stream writes and reads it', async () => {
    // Our own tar headers (tar-headers.ts) against the library's pack and extract.
    const keys = await generateBackupKeyPair();
    const plain = await decrypted(await archive(keys.publicKey), keys.secretKey);
    const extracted = new Map<string, Buffer>();
    const extract = tar.extract();
    Readable.from([plain]).pipe(extract);
    for await (const entry of extract) extracted.set(entry.header.name, await collect(entry));
    for (const f of files) expect(extracted.get(fileEntryName(f.key))?.equals(f.body)).toBe(true);
    expect([...extracted.keys()].at(-1)).toBe('manifest.json');

    // And the other way: a tar stream the library packs (long names as it writes them) is read back.
    const pack = tar.pack();
    const mtime = new Date();
    for (const f of files) pack.entry({ name: fileEntryName(f.key), size: f.body.length, mtime, mode: 0o600 }, f.body);
    const manifest = Buffer.from(
      JSON.stringify({
        format: ARCHIVE_FORMAT,
        format_version: ARCHIVE_FORMAT_VERSION,
        archive_name: 'x',
        created_at: mtime.toISOString(),
        dumps: [],
        files: files.map((f) => ({ key: f.key, size: f.body.length, sha256: sha256Hex(f.body) })),
      }),
    );
    pack.entry({ name: 'manifest.json', size: manifest.length, mtime }, manifest);
    pack.finalize();
    const encrypt = new AgeEncryptStream(keys.publicKey);
    const [packedArchive] = await Promise.all([collect(encrypt), pipeline(Readable.from(pack), encrypt)]);
    const read = new Map<string, Buffer>();
    const summary = await readArchive(Readable.from([packedArchive]), keys.secretKey, async (entry) => {
      read.set(entry.name, await collect(entry.body));
    });
    expect(summary.objectCount).toBe(files.length);
    for (const f of files) expect(read.get(fileEntryName(f.key))?.equals(f.body)).toBe(true);
  });

  it('reads entries whose bytes the visitor leaves, or reads only in part', async () => {
    const keys = await generateBackupKeyPair();
    const bytes = await archive(keys.publicKey);
    const firstBytes = new Map<string, number>();
    const summary = await readArchive(Readable.from([bytes]), keys.secretKey, async (entry) => {
      for await (const chunk of entry.body) {
        firstBytes.set(entry.name, (chunk as Buffer).length);
        break;
      }
    });
    expect(summary.objectCount).toBe(files.length + 1);
    expect(firstBytes.get(dumpEntryName('registry'))).toBe(dump.length);
  });

  it('fails with what the visitor threw', async () => {
    const keys = await generateBackupKeyPair();
    const bytes = await archive(keys.publicKey);
    await expect(
      readArchive(Readable.from([bytes]), keys.secretKey, async (entry) => {
        if (entry.name.startsWith('files/')) throw new Error('disk full');
        await collect(entry.body);
      }),
    ).rejects.toThrow('disk full');
  });

  it('names a wrong key, a damaged archive and a truncated one', async () => {
    const keys = await generateBackupKeyPair();
    const other = await generateBackupKeyPair();
    const bytes = await archive(keys.publicKey);
    const wrong = await problemOf(readArchive(Readable.from([bytes]), other.secretKey));
    expect(wrong.problem).toBe(ArchiveProblem.WrongKey);

    const tampered = Buffer.from(bytes);
    tampered[Math.floor(tampered.length / 3)] ^= 0x01;
    const damaged = await problemOf(readArchive(Readable.from([tampered]), keys.secretKey));
    expect(damaged.problem).toBe(ArchiveProblem.Damaged);

    const truncated = await problemOf(readArchive(Readable.from([bytes.subarray(0, bytes.length - 1000)]), keys.secretKey));
    expect(truncated.problem).toBe(ArchiveProblem.Truncated);
    const atChunk = await problemOf(readArchive(Readable.from([bytes.subarray(0, 200 + 2 * 65552)]), keys.secretKey));
    expect(atChunk.problem).toBe(ArchiveProblem.Truncated);
  });

  it('refuses an entry whose length differs from the size announced', async () => {
    const keys = await generateBackupKeyPair();
    const writer = new ArchiveWriter(keys.publicKey);
    void writer.output.then(collect).catch(() => undefined);
    await expect(writer.add('files/x', 10, Readable.from([Buffer.alloc(5)]))).rejects.toThrow('5 bytes where 10 were expected');
  });

  it('stops adding once its output fails or is closed, never waiting for room that will not come', async () => {
    const keys = await generateBackupKeyPair();
    const failed = new ArchiveWriter(keys.publicKey);
    (await failed.output).destroy(new Error('disk full'));
    await expect(failed.add('files/big', 5 * 1024 * 1024, Buffer.alloc(5 * 1024 * 1024))).rejects.toThrow('disk full');

    const closed = new ArchiveWriter(keys.publicKey);
    (await closed.output).destroy();
    await expect(closed.add('files/big', 5 * 1024 * 1024, Buffer.alloc(5 * 1024 * 1024))).rejects.toThrow('closed before the archive was finished');
  });

  it('refuses a key that is not an age secret key', () => {
    expect(() => identityFromBase64(Buffer.from('hello').toString('base64'))).toThrow(ArchiveError);
  });

  it('names archives by UTC time and run id', () => {
    expect(archiveName(new Date('2026-11-26T18:15:00.123Z'), '3f9a2c1b-0000-4000-8000-000000000000')).toBe('backup-20261126T181500Z-3f9a2c1b.age');
  });
});
