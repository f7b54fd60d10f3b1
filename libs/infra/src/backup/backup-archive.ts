import { createHash, type Hash } from 'node:crypto';
import { once } from 'node:events';
import { pipeline, Readable } from 'node:stream';
import { generateX25519Identity, identityToRecipient } from 'age-encryption';
import { AgeDecryptStream, AgeEncryptStream, AgeFailure, AgeStreamError, HASH_NOW, type HashedBytes } from './age-stream.js';
import { decodeTarHeader, fileEntryHeader, MAX_PAX_BYTES, paxPath, TAR_BLOCK, TAR_END, tarPadding } from './tar-headers.js';

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

/** An entry written into the archive. */
export interface WrittenEntry {
  /** Its SHA-256 (hex), computed by the cipher thread from the bytes it sealed. */
  readonly sha256: () => Promise<string>;
}

/**
 * Writes an archive: entries one after the other, then the manifest, straight into the age
 * encryption's batches (tar headers by tar-headers.ts; each entry's SHA-256 taken by the cipher
 * thread from the batch it seals, so the bytes are copied once, into the batch). `output` is
 * the encrypted byte stream; the caller pipes it to the backup store while entries are added
 * (back-pressure bounds the memory).
 */
export class ArchiveWriter {
  private readonly encrypt: AgeEncryptStream;
  readonly output: Promise<Readable>;
  private readonly mtime = new Date();
  private nextHash = 0;
  /** Hash streams up to this one have had HASH_NOW written after their end. */
  private hashedNowThrough = -1;
  /** Rejects once the writer is aborted: a write waiting for room gives up. */
  private readonly aborted: Promise<never>;
  private abortWith: (err: Error) => void = () => undefined;

  constructor(recipient: string) {
    this.encrypt = new AgeEncryptStream(recipient);
    this.output = Promise.resolve(this.encrypt);
    this.aborted = new Promise<never>((_resolve, reject) => {
      this.abortWith = reject;
    });
    this.aborted.catch(() => undefined);
    // A failure of the encryption (its thread, or the store reading the output) ends the
    // writing as an abort does; so does the output closed before the archive was finished.
    this.encrypt.on('error', (err) => this.abortWith(err));
    this.encrypt.on('close', () => this.abortWith(new Error('the archive output was closed before the archive was finished')));
  }

  /**
   * Adds an entry of a known size; resolves once its bytes are copied into the encryption's
   * batches (a Buffer body's memory may be used again). A size that differs fails (and aborts
   * the archive).
   */
  async add(name: string, size: number, body: Readable | Buffer): Promise<WrittenEntry> {
    const id = this.nextHash++;
    try {
      for (const block of fileEntryHeader(name, size, this.mtime)) await this.write(block);
      let bytes = 0;
      const parts: AsyncIterable<Buffer> | Buffer[] = Buffer.isBuffer(body) ? [body] : (body as AsyncIterable<Buffer>);
      for await (const data of parts) {
        bytes += data.length;
        if (bytes > size) throw new Error(`${name}: more than the ${size} bytes expected`);
        await this.write({ data, hash: id });
      }
      if (bytes !== size) throw new Error(`${name}: ${bytes} bytes where ${size} were expected`);
      await this.write({ data: EMPTY, hash: id, end: true });
      // Resolves once every byte of the entry is in a batch: the caller may use a Buffer body's memory again.
      await this.write(tarPadding(size), { untilCopied: true });
    } catch (err) {
      if (!Buffer.isBuffer(body)) body.destroy();
      this.abort(err as Error);
      throw err;
    }
    return { sha256: () => this.digest(id) };
  }

  /** Writes the manifest as the last entry and ends the archive. */
  async finish(manifest: ArchiveManifest): Promise<void> {
    const body = Buffer.from(JSON.stringify(manifest));
    await this.add(MANIFEST_ENTRY, body.length, body);
    await this.write(TAR_END);
    this.encrypt.end();
  }

  abort(err: Error): void {
    this.abortWith(err);
    this.encrypt.destroy(err);
  }

  private digest(id: number): Promise<string> {
    // The entry's batch may not be full yet: have what ended so far hashed now (once for all of them).
    if (id > this.hashedNowThrough && !this.encrypt.destroyed) {
      this.hashedNowThrough = this.nextHash - 1;
      this.encrypt.write(HASH_NOW);
    }
    return this.encrypt.digest(id);
  }

  private async write(chunk: Buffer | HashedBytes, options: { untilCopied?: boolean } = {}): Promise<void> {
    if (this.encrypt.destroyed) await this.aborted;
    if (options.untilCopied) {
      // The callback comes once the encryption took the chunk, and so every chunk before it, into its batch.
      const copied = new Promise<void>((resolve, reject) => this.encrypt.write(chunk, (err) => (err ? reject(err) : resolve())));
      copied.catch(() => undefined);
      await Promise.race([copied, this.aborted]);
    } else if (!this.encrypt.write(chunk)) await Promise.race([once(this.encrypt, 'drain'), this.aborted]);
  }
}

const EMPTY = Buffer.alloc(0);

/** One entry as a reader sees it: consume `body` (or not: what is left is skipped) before the next. */
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
 * Hands one entry's bytes to a visitor as a stream, as they are read; waits while the visitor
 * is behind. A visitor that returns without reading all of it is simply given no more.
 */
class EntryFeed {
  readonly body: Readable;
  private wanted: (() => void) | null = null;
  private readonly visiting: Promise<void>;
  private visitorDone = false;
  private visitorError: Error | null = null;

  constructor(entry: { name: string; size: number }, visit: (entry: ArchiveEntry) => Promise<void>) {
    this.body = new Readable({ highWaterMark: PLAIN_BUFFER_BYTES, read: () => this.resume() });
    this.visiting = visit({ ...entry, body: this.body }).then(
      () => this.leave(null),
      (err: unknown) => this.leave(err),
    );
  }

  async push(bytes: Buffer): Promise<void> {
    this.throwIfVisitorFailed();
    if (this.visitorDone) return;
    if (!this.body.push(bytes)) await new Promise<void>((resolve) => (this.wanted = resolve));
    this.throwIfVisitorFailed();
  }

  /** The entry's end: waits for the visitor (throws what it threw). */
  async end(): Promise<void> {
    if (!this.visitorDone) this.body.push(null);
    await this.visiting;
    this.throwIfVisitorFailed();
  }

  private throwIfVisitorFailed(): void {
    if (this.visitorError) throw this.visitorError;
  }

  /** Stops feeding a visitor that is gone (the archive failed). */
  close(): void {
    this.body.destroy();
  }

  private leave(err: unknown): void {
    this.visitorDone = true;
    this.visitorError = err === null || err instanceof Error ? err : new Error(String(err));
    if (!this.body.readableEnded) this.body.destroy();
    this.resume();
  }

  private resume(): void {
    const wanted = this.wanted;
    this.wanted = null;
    wanted?.();
  }
}

/** Plaintext held for a visitor at most, per entry. */
const PLAIN_BUFFER_BYTES = 1024 * 1024;

/**
 * The entries of the decrypted tar stream, read straight from the decrypted batches: headers
 * (tar-headers.ts), each entry's bytes hashed (SHA-256 on this thread, while the cipher thread
 * opens the next batches) and handed to the visitor, then checked as readArchive says.
 */
class ArchiveEntryReader {
  readonly seen = new Map<string, { size: number; sha256: string }>();
  manifestText: string | null = null;
  /** A header block or pax records being collected across batches. */
  private held: Buffer[] = [];
  private heldBytes = 0;
  private state: 'header' | 'pax' | 'body' | 'padding' = 'header';
  /** Bytes left of the pax records, the entry's body or its padding. */
  private remaining = TAR_BLOCK;
  private paxBytes = 0;
  private paxName: string | undefined;
  private entry: { name: string; size: number; hash: Hash; feed: EntryFeed | null; manifest: Buffer[] | null } | null = null;

  constructor(private readonly visit?: (entry: ArchiveEntry) => Promise<void>) {}

  async feed(data: Buffer): Promise<void> {
    let at = 0;
    while (at < data.length) {
      const n = Math.min(this.remaining, data.length - at);
      const part = data.subarray(at, at + n);
      at += n;
      this.remaining -= n;
      if (this.state === 'body') await this.body(part);
      else if (this.state === 'header' || this.state === 'pax') this.hold(part);
      if (this.remaining > 0) continue;
      if (this.state === 'header') {
        if (this.header(this.takeHeld()) === 'empty entry') await this.endEntry();
      } else if (this.state === 'pax') this.pax(this.takeHeld());
      else if (this.state === 'body') await this.endEntry();
      else this.expect('header', TAR_BLOCK);
    }
  }

  /** The end of the plaintext: nothing may be left unfinished. */
  end(): void {
    if (this.entry || this.state === 'pax' || this.heldBytes > 0) {
      throw new ArchiveError(ArchiveProblem.NotAnArchive, `the archive ends inside ${this.entry ? `entry ${this.entry.name}` : 'a header'}`);
    }
  }

  close(): void {
    this.entry?.feed?.close();
  }

  /** Reads a header block; says so when it begins an entry of no bytes (ended at once). */
  private header(block: Buffer): 'empty entry' | undefined {
    let header: ReturnType<typeof decodeTarHeader>;
    try {
      header = decodeTarHeader(block);
    } catch (err) {
      throw new ArchiveError(ArchiveProblem.NotAnArchive, (err as Error).message);
    }
    if (!header) return void this.expect('header', TAR_BLOCK); // zero blocks: the end (or padding)
    if (header.type === 'pax-header') {
      if (header.size > MAX_PAX_BYTES) throw new ArchiveError(ArchiveProblem.NotAnArchive, 'a pax header is too large');
      this.paxBytes = header.size;
      return void (header.size === 0 ? this.expect('header', TAR_BLOCK) : this.expect('pax', header.size));
    }
    const name = this.paxName ?? header.name;
    this.paxName = undefined;
    const size = header.size;
    if (header.type !== 'file') throw new ArchiveError(ArchiveProblem.NotAnArchive, `unexpected entry ${name} of type ${header.type}`);
    if (this.manifestText !== null) throw new ArchiveError(ArchiveProblem.ManifestMismatch, `entry ${name} follows the manifest`);
    if (this.seen.has(name)) throw new ArchiveError(ArchiveProblem.ManifestMismatch, `entry ${name} appears twice`);
    const isManifest = name === MANIFEST_ENTRY;
    if (isManifest && size > MAX_MANIFEST_BYTES) throw new ArchiveError(ArchiveProblem.NotAnArchive, 'the manifest is too large');
    this.entry = {
      name,
      size,
      hash: createHash('sha256'),
      feed: !isManifest && this.visit ? new EntryFeed({ name, size }, this.visit) : null,
      manifest: isManifest ? [] : null,
    };
    this.expect('body', size);
    return size === 0 ? 'empty entry' : undefined;
  }

  private pax(records: Buffer): void {
    this.paxName = paxPath(records.subarray(0, this.paxBytes));
    this.expect('padding', tarPadding(this.paxBytes).length);
  }

  private async body(part: Buffer): Promise<void> {
    const entry = this.entry!;
    if (entry.manifest) entry.manifest.push(part);
    else entry.hash.update(part);
    await entry.feed?.push(part);
  }

  private async endEntry(): Promise<void> {
    const entry = this.entry!;
    this.entry = null;
    if (entry.manifest) this.manifestText = Buffer.concat(entry.manifest).toString('utf8');
    else this.seen.set(entry.name, { size: entry.size, sha256: entry.hash.digest('hex') });
    this.expect('padding', tarPadding(entry.size).length);
    await entry.feed?.end();
  }

  /** What comes next and how many bytes of it; an empty padding goes straight to the next header. */
  private expect(state: ArchiveEntryReader['state'], bytes: number): void {
    if (state === 'padding' && bytes === 0) return this.expect('header', TAR_BLOCK);
    this.state = state;
    this.remaining = bytes;
  }

  private hold(part: Buffer): void {
    this.held.push(part);
    this.heldBytes += part.length;
  }

  private takeHeld(): Buffer {
    const whole = this.held.length === 1 ? this.held[0] : Buffer.concat(this.held);
    this.held = [];
    this.heldBytes = 0;
    return whole;
  }
}

/**
 * Reads an archive: decrypts it, hands each entry to `visit` (hashed on the way), then checks
 * every entry against the manifest (each dump and file present once, with its size and
 * SHA-256; nothing unlisted). Throws ArchiveError naming what is wrong. Memory stays bounded:
 * only the manifest and one name/size/hash per entry are held.
 */
export async function readArchive(encrypted: Readable, identity: string, visit?: (entry: ArchiveEntry) => Promise<void>): Promise<ArchiveSummary> {
  const decrypt = new AgeDecryptStream(identity);
  const reader = new ArchiveEntryReader(visit);
  let plainBytes = 0;
  const plain = pipeline(encrypted, decrypt, () => undefined);
  try {
    for await (const batch of plain as AsyncIterable<Buffer>) {
      plainBytes += batch.length;
      await reader.feed(batch);
    }
    reader.end();
    if (reader.manifestText === null) throw new ArchiveError(ArchiveProblem.ManifestMismatch, 'the archive has no manifest');
    return checkAgainstManifest(parseManifest(reader.manifestText), reader.seen);
  } catch (err) {
    reader.close();
    throw decryptionError(err, plainBytes);
  } finally {
    plain.destroy(); // stops reading the input if the entries were left early
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
