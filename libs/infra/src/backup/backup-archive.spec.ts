import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
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

async function collect(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

const files = [
  { key: 'uploads/2026-11-26/a', body: randomBytes(300 * 1024) },
  { key: 'uploads/2026-11-26/b', body: Buffer.from('notes') },
  { key: 'uploads/2026-11-26/empty', body: Buffer.alloc(0) },
];
const dump = Buffer.from('{"table":"devices"}\n{"hwid":"SN-1"}\n');

async function archive(publicKey: string, name = 'backup-20261126T181500Z-3f9a2c1b.age'): Promise<Buffer> {
  const writer = new ArchiveWriter(publicKey);
  const out = writer.output.then(collect);
  const sha = await (await writer.add(dumpEntryName('registry'), dump.length, Readable.from([dump]))).sha256;
  const listed: ManifestFile[] = [];
  for (const f of files)
    listed.push({ key: f.key, size: f.body.length, sha256: await (await writer.add(fileEntryName(f.key), f.body.length, Readable.from([f.body]))).sha256 });
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
    expect(summary.objectCount).toBe(4);
    expect(summary.totalBytes).toBe(dump.length + files.reduce((n, f) => n + f.body.length, 0));
    for (const f of files) expect(seen.get(fileEntryName(f.key))?.equals(f.body)).toBe(true);
    expect(summary.manifest.files.find((f) => f.key === files[0].key)?.sha256).toBe(sha256Hex(files[0].body));
    expect(summary.manifest.dumps[0].tables).toEqual([{ table: 'devices', rows: 1 }]);
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

  it('refuses a key that is not an age secret key', () => {
    expect(() => identityFromBase64(Buffer.from('hello').toString('base64'))).toThrow(ArchiveError);
  });

  it('names archives by UTC time and run id', () => {
    expect(archiveName(new Date('2026-11-26T18:15:00.123Z'), '3f9a2c1b-0000-4000-8000-000000000000')).toBe('backup-20261126T181500Z-3f9a2c1b.age');
  });
});
