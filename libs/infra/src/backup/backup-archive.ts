import { createHash } from 'node:crypto';
import { pipeline, Readable, Transform, type TransformCallback } from 'node:stream';
import { generateX25519Identity, identityToRecipient } from 'age-encryption';
import tar from 'tar-stream';
import { AgeDecryptStream, AgeEncryptStream, AgeFailure, AgeStreamError } from './age-stream.js';
import { HashingThread, type ThreadHash } from './crypto-thread.js';

/**
 * The backup archive (docs/operations.md "Backups and restores"): one tar stream, encrypted as
 * a whole with age (X25519 recipient). Entries, in order: `dumps/<app>.dump` (each app's data),
 * `files/<object key>` (every stored file the dumps refer to), and `manifest.json` LAST: it
 * names every entry with its size and SHA-256, which are only known once the entry is
 * written, so the archive is produced in one pass with bounded memory.
 */
export const ARCHIVE_FORMAT = 'fds-backup';
export const ARCHIVE_FORMAT_VERSION = 1;
export const MANIFEST_ENTRY = 'manifest.json';
export const DUMP_ENTRY_PREFIX = 'dumps/';
export const FILE_ENTRY_PREFIX = 'files/';
const PACK_BUFFER_BYTES = 1024 * 1024;
/** Largest manifest read back (a line per file: 10,000 files take about 2 MiB). */
const MAX_MANIFEST_BYTES = 256 * 1024 * 1024;

export interface ManifestTable {
  readonly table: string;
  readonly rows: number;
}
export interface ManifestDump {
  readonly app: string;
  readonly entry: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly format_version: number;
  readonly tables: readonly ManifestTable[];
}
export interface ManifestFile {
  readonly key: string;
  readonly size: number;
  readonly sha256: string;
}
export interface ArchiveManifest {
  readonly format: typeof ARCHIVE_FORMAT;
  readonly format_version: number;
  readonly archive_name: string;
  readonly created_at: string;
  readonly dumps: readonly ManifestDump[];
  readonly files: readonly ManifestFile[];
}

/** What is wrong with an archive a verify or restore refused. */
export enum ArchiveProblem {
  WrongKey = 'wrong_key',
  InvalidKey = 'invalid_key',
  NotAnArchive = 'not_an_archive',
  Truncated = 'truncated',
  Damaged = 'damaged',
  ManifestMismatch = 'manifest_mismatch',
}

export class ArchiveError extends Error {
  constructor(
    readonly problem: ArchiveProblem,
    message: string,
  ) {
    super(`${problem}: ${message}`);
    this.name = 'ArchiveError';
  }
}

/** A new key pair: the recipient (`age1…`, BACKUP_PUBLIC_KEY) and the identity (`AGE-SECRET-KEY-1…`, kept offline). */
export async function generateBackupKeyPair(): Promise<{ publicKey: string; secretKey: string }> {
  const secretKey = await generateX25519Identity();
  return { publicKey: await identityToRecipient(secretKey), secretKey };
}

/** An X25519 age recipient (the public half). */
export const AGE_RECIPIENT_PATTERN = /^age1[02-9ac-hj-np-z]{58}$/;
const AGE_IDENTITY_PATTERN = /^AGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}$/;

/** The identity from `backup_key_b64` (base64 of the `AGE-SECRET-KEY-1…` text; surrounding whitespace ignored). */
export function identityFromBase64(keyB64: string): string {
  const text = Buffer.from(keyB64.trim(), 'base64').toString('utf8').trim();
  return identityFromText(text);
}

/** The identity from a key file's text: the first `AGE-SECRET-KEY-1…` line (comments allowed, as age-keygen writes them). */
export function identityFromText(text: string): string {
  const line = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l.startsWith('AGE-SECRET-KEY-'));
  if (!line || !AGE_IDENTITY_PATTERN.test(line))
    throw new ArchiveError(ArchiveProblem.InvalidKey, 'the key is not an age X25519 secret key (AGE-SECRET-KEY-1...)');
  return line;
}

export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Hands what passes through to a hash on the hashing thread (and counts it). */
class HashTap extends Transform {
  constructor(readonly hash: ThreadHash) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.hash.update(chunk).then(() => done(null, chunk), done);
  }
}

/** An entry written into the archive; its SHA-256 comes from the hashing thread. */
export interface WrittenEntry {
  readonly sha256: Promise<string>;
}

/** The digest, marked as handled: a run that stops early never leaves it unhandled. */
function digestOf(hash: ThreadHash): WrittenEntry {
  const sha256 = hash.digest();
  sha256.catch(() => undefined);
  return { sha256 };
}

/**
 * Writes an archive: entries one after the other (each streamed, hashed on the way on a thread
 * of its own), then the manifest. `output` is the encrypted byte stream; the caller pipes it to
 * the backup store while entries are added (back-pressure bounds the memory).
 */
export class ArchiveWriter {
  /** A larger buffer than streamx's 16 KiB: a small file's entry goes through in one piece. */
  private readonly pack = tar.pack({ highWaterMark: PACK_BUFFER_BYTES });
  readonly output: Promise<Readable>;
  private readonly mtime = new Date();
  private readonly hashing = new HashingThread();
  /** Rejects once the writer is aborted: a write waiting for room gives up. */
  private readonly aborted: Promise<never>;
  private abortWith: (err: Error) => void = () => undefined;

  constructor(recipient: string) {
    // A failure of the tar stream (abort) ends the encrypted output with the same error.
    this.output = Promise.resolve(pipeline(Readable.from(this.pack), new AgeEncryptStream(recipient), () => undefined));
    this.aborted = new Promise<never>((_resolve, reject) => {
      this.abortWith = reject;
    });
    this.aborted.catch(() => undefined);
  }

  /**
   * Adds an entry of a known size; resolves once it is in the tar stream, with its SHA-256 to
   * come (await it before the manifest). A size that differs fails.
   */
  async add(name: string, size: number, body: Readable | Buffer): Promise<WrittenEntry> {
    if (Buffer.isBuffer(body)) return this.addWhole(name, size, body);
    const hash = this.hashing.stream();
    let entryDone: (err?: Error | null) => void = () => undefined;
    const written = new Promise<void>((resolve, reject) => {
      entryDone = (err) => (err ? reject(err) : resolve());
    });
    // The callback fires once the entry (with its padding) is in the tar stream, or with its error.
    const entry = this.pack.entry({ name, size, mtime: this.mtime, mode: 0o600 }, (err) => entryDone(err));
    entry.on('error', () => undefined); // reported through the callback
    written.catch(() => undefined); // awaited below unless an earlier failure ends the entry
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        if (hash.bytes + chunk.length > size) throw new Error(`${name}: more than the ${size} bytes expected`);
        await hash.update(chunk);
        if (!entry.write(chunk)) await Promise.race([new Promise<void>((resolve) => entry.once('drain', () => resolve())), this.aborted]);
      }
      if (hash.bytes !== size) throw new Error(`${name}: ${hash.bytes} bytes where ${size} were expected`);
      (entry as unknown as { end(): void }).end();
      await Promise.race([written, this.aborted]);
    } catch (err) {
      body.destroy();
      entry.destroy();
      this.abort(err as Error);
      throw err;
    }
    return digestOf(hash);
  }

  /** An entry held whole in memory: one write, no stream. */
  private async addWhole(name: string, size: number, body: Buffer): Promise<WrittenEntry> {
    if (body.length !== size) {
      const err = new Error(`${name}: ${body.length} bytes where ${size} were expected`);
      this.abort(err);
      throw err;
    }
    const hash = this.hashing.stream();
    await hash.update(body);
    const written = new Promise<void>((resolve, reject) => {
      this.pack.entry({ name, size, mtime: this.mtime, mode: 0o600 }, body, (err) => (err ? reject(err) : resolve()));
    });
    written.catch(() => undefined);
    await Promise.race([written, this.aborted]);
    return digestOf(hash);
  }

  /** Writes the manifest as the last entry and ends the tar stream. */
  async finish(manifest: ArchiveManifest): Promise<void> {
    const body = Buffer.from(JSON.stringify(manifest));
    await this.add(MANIFEST_ENTRY, body.length, body);
    this.pack.finalize();
    await this.hashing.close();
  }

  abort(err: Error): void {
    this.abortWith(err);
    this.pack.destroy(err);
    void this.hashing.close();
  }
}

/** One entry as a reader sees it: consume `body` (or not: it is drained) before the next. */
export interface ArchiveEntry {
  readonly name: string;
  readonly size: number;
  readonly body: Readable;
}

export interface ArchiveSummary {
  readonly manifest: ArchiveManifest;
  /** Entries other than the manifest. */
  readonly objectCount: number;
  /** Bytes of those entries. */
  readonly totalBytes: number;
}

const FAILURE_PROBLEM: Record<AgeFailure, ArchiveProblem> = {
  [AgeFailure.NotAge]: ArchiveProblem.NotAnArchive,
  [AgeFailure.WrongKey]: ArchiveProblem.WrongKey,
  [AgeFailure.HeaderAltered]: ArchiveProblem.Damaged,
  [AgeFailure.HeaderTruncated]: ArchiveProblem.Truncated,
  [AgeFailure.ChunkAltered]: ArchiveProblem.Damaged,
  // The last chunk failing means a truncated archive (or an altered end).
  [AgeFailure.FinalChunkFailed]: ArchiveProblem.Truncated,
};

function decryptionError(err: unknown, plainBytes: number): ArchiveError {
  if (err instanceof ArchiveError) return err;
  if (err instanceof AgeStreamError) return new ArchiveError(FAILURE_PROBLEM[err.failure], `${err.message}; ${plainBytes} bytes decrypted before`);
  return new ArchiveError(ArchiveProblem.NotAnArchive, (err as Error)?.message ?? String(err));
}

/**
 * Reads an archive: decrypts it, hands each entry to `visit` (hashed on the way), then checks
 * every entry against the manifest (each dump and file present once, with its size and
 * SHA-256; nothing unlisted). Throws ArchiveError naming what is wrong. Memory stays bounded:
 * only the manifest and one name/size/hash per entry are held.
 */
export async function readArchive(encrypted: Readable, identity: string, visit?: (entry: ArchiveEntry) => Promise<void>): Promise<ArchiveSummary> {
  const decrypt = new AgeDecryptStream(identity);
  const hashing = new HashingThread();
  let plain: Readable | null = null;
  let plainBytes = 0;
  const seen = new Map<string, { size: number; sha256: Promise<string> }>();
  let manifestText: string | null = null;
  try {
    const counted = new Transform({
      transform(chunk: Buffer, _enc, done) {
        plainBytes += chunk.length;
        done(null, chunk);
      },
    });
    const extract = tar.extract();
    plain = pipeline(encrypted, decrypt, counted, () => undefined);
    plain.on('error', (err) => extract.destroy(err));
    plain.pipe(extract);
    for await (const entry of extract) {
      const name = entry.header.name;
      const size = entry.header.size ?? 0;
      if (entry.header.type !== 'file') throw new ArchiveError(ArchiveProblem.NotAnArchive, `unexpected entry ${name} of type ${entry.header.type}`);
      if (manifestText !== null) throw new ArchiveError(ArchiveProblem.ManifestMismatch, `entry ${name} follows the manifest`);
      if (seen.has(name)) throw new ArchiveError(ArchiveProblem.ManifestMismatch, `entry ${name} appears twice`);
      if (name === MANIFEST_ENTRY) {
        if (size > MAX_MANIFEST_BYTES) throw new ArchiveError(ArchiveProblem.NotAnArchive, 'the manifest is too large');
        const parts: Buffer[] = [];
        for await (const chunk of entry as AsyncIterable<Buffer>) parts.push(chunk);
        manifestText = Buffer.concat(parts).toString('utf8');
        continue;
      }
      const tap = new HashTap(hashing.stream());
      const body = entry.pipe(tap);
      if (visit) await visit({ name, size, body });
      for await (const chunk of body) void chunk; // drains what the visitor left
      seen.set(name, { size: tap.hash.bytes, sha256: digestOf(tap.hash).sha256 });
    }
    if (manifestText === null) throw new ArchiveError(ArchiveProblem.ManifestMismatch, 'the archive has no manifest');
    const manifest = parseManifest(manifestText);
    const digests = new Map<string, { size: number; sha256: string }>();
    for (const [name, { size, sha256 }] of seen) digests.set(name, { size, sha256: await sha256 });
    return checkAgainstManifest(manifest, digests);
  } catch (err) {
    throw decryptionError(err, plainBytes);
  } finally {
    plain?.destroy(); // stops reading the input if the entries were left early
    await hashing.close();
  }
}

export function parseManifest(text: string): ArchiveManifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ArchiveError(ArchiveProblem.ManifestMismatch, 'the manifest is not JSON');
  }
  const m = value as ArchiveManifest;
  if (!m || m.format !== ARCHIVE_FORMAT || !Array.isArray(m.dumps) || !Array.isArray(m.files)) {
    throw new ArchiveError(ArchiveProblem.ManifestMismatch, 'the manifest is not a backup manifest');
  }
  if (m.format_version !== ARCHIVE_FORMAT_VERSION) {
    throw new ArchiveError(ArchiveProblem.ManifestMismatch, `archive format version ${String(m.format_version)} is not ${ARCHIVE_FORMAT_VERSION}`);
  }
  return m;
}

function checkAgainstManifest(manifest: ArchiveManifest, seen: Map<string, { size: number; sha256: string }>): ArchiveSummary {
  const expected = new Map<string, { size: number; sha256: string; what: string }>();
  for (const d of manifest.dumps) {
    expected.set(d.entry, { size: d.bytes, sha256: d.sha256, what: `dump of ${d.app}` });
    for (const t of d.tables) {
      if (!Number.isInteger(t.rows) || t.rows < 0)
        throw new ArchiveError(ArchiveProblem.ManifestMismatch, `table ${d.app}.${t.table}: row count ${String(t.rows)} is not valid`);
    }
  }
  for (const f of manifest.files) expected.set(fileEntryName(f.key), { size: f.size, sha256: f.sha256, what: `file ${f.key}` });
  let totalBytes = 0;
  for (const [name, want] of expected) {
    const got = seen.get(name);
    if (!got) throw new ArchiveError(ArchiveProblem.ManifestMismatch, `${want.what} is missing from the archive`);
    if (got.size !== want.size) throw new ArchiveError(ArchiveProblem.ManifestMismatch, `${want.what}: ${got.size} bytes, the manifest says ${want.size}`);
    if (got.sha256 !== want.sha256) throw new ArchiveError(ArchiveProblem.ManifestMismatch, `${want.what}: SHA-256 differs from the manifest`);
    totalBytes += got.size;
  }
  for (const name of seen.keys()) if (!expected.has(name)) throw new ArchiveError(ArchiveProblem.ManifestMismatch, `entry ${name} is not in the manifest`);
  return { manifest, objectCount: expected.size, totalBytes };
}

export function fileEntryName(key: string): string {
  return `${FILE_ENTRY_PREFIX}${key}`;
}

export function dumpEntryName(app: string): string {
  return `${DUMP_ENTRY_PREFIX}${app}.dump`;
}
