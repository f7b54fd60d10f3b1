import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  close as closeCallback,
  constants,
  createWriteStream,
  open as openCallback,
  read as readCallback,
  readFile as readFileCallback,
  writeFile as writeFileCallback,
} from 'node:fs';
import { access, mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { JsonLogger } from '../logging/logger.js';
import { LengthCheck } from './length-check.js';
import { GroupedSyncs } from './grouped-syncs.js';
import { forEachConcurrently } from './write-behind.js';
import {
  assertObjectKey,
  type ListedObject,
  ObjectStore,
  type ObjectRange,
  type PresignOptions,
  type PutOptions,
  type StoredObjectInfo,
} from './object-store.js';

/**
 * Temp files live in `<root>/~tmp`: `~` is not allowed in keys, so no key can name it, and
 * it is on the same filesystem as the objects, so the final rename is atomic.
 */
const TMP_DIR = '~tmp';
/** Temp files older than this are leftovers of a crash and removed at first use. */
const STALE_TMP_MS = 24 * 60 * 60 * 1000;
/** A syncfs that takes longer is given up for the per-file fsyncs (they then wait for the same writes). */
const SYNC_FS_TIMEOUT_MS = 10 * 60 * 1000;
/** The callback readFile and writeFile: a few requests to the thread pool, no file handle object, no stream (many small files). */
const readWhole = promisify(readFileCallback);
const writeWhole = promisify(writeFileCallback);
const openFd = promisify(openCallback);
const readFd = (fd: number, buffer: Buffer, offset: number): Promise<number> =>
  new Promise((resolve, reject) => readCallback(fd, buffer, offset, buffer.length - offset, null, (err, bytes) => (err ? reject(err) : resolve(bytes))));
const closeFd = promisify(closeCallback);
/** Files and directories flushed at once by flush(): the disk's queue stays full, the thread pool not monopolised. */
const FLUSH_CONCURRENCY = 4;

/**
 * Objects as files under `<dataDir>/objects/<key>` (key segments become directories).
 * A put streams into a temp file, flushes it to disk and renames it into place: readers see
 * the old object or the whole new one, never a partial file.
 *
 * Limitation: a key cannot be both an object and a "directory" of other objects
 * (`a` and `a/b`); S3 allows it, the filesystem does not. Use fixed-depth keys.
 */
export class FilesystemObjectStore extends ObjectStore {
  readonly kind = 'filesystem' as const;
  readonly root: string;
  private readonly tmpDir: string;
  private ready: Promise<void> | null = null;
  private readonly logger = new JsonLogger('object-store');
  /** Directories known to exist: a put or move into one skips the mkdir (a rename that finds it gone makes it again). */
  private readonly knownDirs = new Set<string>();
  /** Temp file names: random per store, then counted (a random name per file costs a restore of 10,000 files 0.3 s); written with 'wx', never over another's. */
  private readonly tmpPrefix = randomBytes(8).toString('hex');
  private tmpCount = 0;
  /** Files and directories written with `durable: false` and not flushed yet. */
  private readonly unflushedFiles = new Set<string>();
  private readonly unflushedDirs = new Set<string>();

  constructor(root: string) {
    super();
    this.root = root;
    this.tmpDir = join(root, TMP_DIR);
  }

  private pathOf(key: string): string {
    assertObjectKey(key);
    return join(this.root, ...key.split('/'));
  }

  private init(): Promise<void> {
    this.ready ??= (async () => {
      await mkdir(this.tmpDir, { recursive: true });
      await this.removeStaleTempFiles();
    })().catch((err: unknown) => {
      this.ready = null;
      throw err;
    });
    return this.ready;
  }

  private async removeStaleTempFiles(): Promise<void> {
    try {
      const now = Date.now();
      for (const name of await readdir(this.tmpDir)) {
        const file = join(this.tmpDir, name);
        const info = await stat(file).catch(() => null);
        if (info && now - info.mtimeMs > STALE_TMP_MS) await unlink(file).catch(() => undefined);
      }
    } catch (err) {
      this.logger.warn(`could not clean temp files: ${(err as Error).message}`);
    }
  }

  async put(key: string, body: Readable, options: PutOptions = {}): Promise<void> {
    await this.putWith(key, options, async (path, durable) => {
      // `flush` fsyncs before close: "resolves once the object is durable".
      await pipeline(body, new LengthCheck(options.sizeBytes), createWriteStream(path, { flags: 'wx', flush: durable })).catch((err: unknown) => {
        if (!body.destroyed) body.destroy();
        throw err;
      });
    });
  }

  /** One writeFile instead of a stream pipeline: a restore writes thousands of small files. */
  override async putBytes(key: string, data: Buffer, options: Omit<PutOptions, 'sizeBytes'> = {}): Promise<void> {
    await this.putWith(key, options, (path, durable) => writeWhole(path, data, { flag: 'wx', flush: durable }), true);
  }

  /**
   * Puts an object with `write` (which refuses an existing file: 'wx'): into a temp file renamed
   * to the key, or with `atomic: false` into the key's own file, replacing one there (removed
   * first, or after the refusal when `write` can run twice); then makes it durable (or notes it
   * for flush()).
   */
  private async putWith(
    key: string,
    options: Omit<PutOptions, 'sizeBytes'>,
    write: (path: string, durable: boolean) => Promise<void>,
    repeatable = false,
  ): Promise<void> {
    const target = this.pathOf(key);
    const durable = options.durable ?? true;
    await this.init();
    if (options.atomic === false) {
      await this.writeInPlace(target, () => write(target, durable), repeatable);
    } else {
      const tmp = join(this.tmpDir, `${this.tmpPrefix}-${++this.tmpCount}`);
      try {
        await write(tmp, durable);
        await this.renameInto(tmp, target);
      } catch (err) {
        await unlink(tmp).catch(() => undefined);
        throw err;
      }
    }
    if (durable) await syncDirectory(dirname(target));
    else {
      this.unflushedFiles.add(target);
      this.unflushedDirs.add(dirname(target));
    }
  }

  async move(from: string, to: string, options: { durable?: boolean } = {}): Promise<void> {
    const source = this.pathOf(from);
    const target = this.pathOf(to);
    await this.renameInto(source, target);
    if (this.unflushedFiles.delete(source)) this.unflushedFiles.add(target);
    if (options.durable ?? true) {
      await syncDirectory(dirname(target));
      await syncDirectory(dirname(source));
    } else {
      this.unflushedDirs.add(dirname(target));
      this.unflushedDirs.add(dirname(source));
    }
  }

  private async writeInPlace(target: string, write: () => Promise<void>, repeatable: boolean): Promise<void> {
    const dir = dirname(target);
    await this.ensureDirectory(dir);
    try {
      if (!repeatable) await unlinkIfPresent(target);
      await write();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (!repeatable || (code !== 'EEXIST' && code !== 'ENOENT')) {
        await unlink(target).catch(() => undefined);
        throw err;
      }
      // an object already there is replaced; a directory removed by hand is made again
      if (code === 'EEXIST') await unlinkIfPresent(target);
      else await mkdir(dir, { recursive: true });
      try {
        await write();
      } catch (again) {
        await unlink(target).catch(() => undefined);
        throw again;
      }
    }
  }

  private async ensureDirectory(dir: string): Promise<void> {
    if (this.knownDirs.has(dir)) return;
    await mkdir(dir, { recursive: true });
    this.knownDirs.add(dir);
  }

  private async renameInto(source: string, target: string): Promise<void> {
    const dir = dirname(target);
    await this.ensureDirectory(dir);
    try {
      await rename(source, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || !(await exists(source))) throw err;
      // the directory was removed meanwhile (by hand: the store never removes directories)
      await mkdir(dir, { recursive: true });
      await rename(source, target);
    }
  }

  /**
   * Makes durable what was written or moved without: on Linux one syncfs(2) of the filesystem
   * holding the store (`sync -f`, a few times faster than thousands of fsyncs), elsewhere (or
   * when that fails) an fsync of each file, then of the directories that name them.
   */
  async flush(): Promise<void> {
    const files = [...this.unflushedFiles];
    const dirs = [...this.unflushedDirs];
    this.unflushedFiles.clear();
    this.unflushedDirs.clear();
    if (files.length === 0 && dirs.length === 0) return;
    if (process.platform === 'linux' && (await syncFilesystem(this.root))) return;
    await forEachConcurrently(files, FLUSH_CONCURRENCY, syncFile);
    await forEachConcurrently(dirs, FLUSH_CONCURRENCY, syncDirectory);
  }

  async get(key: string, range?: ObjectRange): Promise<Readable | null> {
    const path = this.pathOf(key);
    let handle;
    try {
      handle = await open(path, 'r');
    } catch (err) {
      if (isAbsent(err)) return null;
      throw err;
    }
    try {
      // The open descriptor keeps the bytes readable even if the key is replaced or deleted now.
      if (!(await handle.stat()).isFile()) {
        await handle.close();
        return null;
      }
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw err;
    }
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  /** One readFile: no file handle object and no stream per file (a backup reads thousands). */
  override async getBytes(key: string): Promise<Buffer | null> {
    const path = this.pathOf(key);
    try {
      return await readWhole(path);
    } catch (err) {
      if (isAbsent(err) || (err as NodeJS.ErrnoException).code === 'EISDIR') return null;
      throw err;
    }
  }

  /** Reads into `buffer` (open, read, close: no allocation); an object that fills it is read again with getBytes. */
  override async getBytesInto(key: string, buffer: Buffer): Promise<Buffer | null> {
    let fd: number;
    try {
      fd = await openFd(this.pathOf(key), 'r');
    } catch (err) {
      if (isAbsent(err)) return null;
      throw err;
    }
    let used = 0;
    try {
      for (;;) {
        const bytes = await readFd(fd, buffer, used);
        if (bytes === 0) return buffer.subarray(0, used);
        used += bytes;
        if (used === buffer.length) break;
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EISDIR') return null;
      throw err;
    } finally {
      await closeFd(fd);
    }
    return this.getBytes(key);
  }

  async head(key: string): Promise<StoredObjectInfo | null> {
    const path = this.pathOf(key);
    try {
      const info = await stat(path);
      return info.isFile() ? { sizeBytes: info.size } : null;
    } catch (err) {
      if (isAbsent(err)) return null;
      throw err;
    }
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    for await (const key of this.listKeys(prefix)) {
      const info = await stat(join(this.root, ...key.split('/'))).catch(() => null);
      if (info) yield { key, lastModified: info.mtime };
    }
  }

  /** Walks the directories under the prefix's directory part; the temp directory is never listed. */
  override async *listKeys(prefix: string): AsyncIterable<string> {
    const cut = prefix.lastIndexOf('/');
    const base = cut === -1 ? '' : prefix.slice(0, cut);
    const pending = [base];
    while (pending.length) {
      const dir = pending.pop()!;
      let entries;
      try {
        entries = await readdir(dir ? join(this.root, ...dir.split('/')) : this.root, { withFileTypes: true });
      } catch (err) {
        if (isAbsent(err)) continue;
        throw err;
      }
      for (const entry of entries) {
        const key = dir ? `${dir}/${entry.name}` : entry.name;
        if (key === TMP_DIR) continue;
        if (entry.isDirectory()) {
          if (prefix.startsWith(`${key}/`) || key.startsWith(prefix)) pending.push(key);
        } else if (entry.isFile() && key.startsWith(prefix)) {
          yield key;
        }
      }
    }
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key);
    try {
      const info = await stat(path);
      if (!info.isFile()) return;
      await unlink(path);
    } catch (err) {
      if (isAbsent(err)) return;
      throw err;
    }
  }

  async presignGet(key: string, _options: PresignOptions): Promise<string | null> {
    assertObjectKey(key);
    return null;
  }

  async check(): Promise<boolean> {
    try {
      await this.init();
      await access(this.root, constants.W_OK);
      await access(this.tmpDir, constants.W_OK);
      return true;
    } catch {
      return false;
    }
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function isAbsent(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** syncfs(2) of the filesystem holding `path` through coreutils' `sync -f`; false when that is not possible. */
function syncFilesystem(path: string): Promise<boolean> {
  return new Promise((resolve) => execFile('sync', ['-f', path], { timeout: SYNC_FS_TIMEOUT_MS }, (err) => resolve(!err)));
}

/** fsync of a file written without it; a file deleted meanwhile needs none. */
async function syncFile(path: string): Promise<void> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    if (isAbsent(err)) return;
    throw err;
  }
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes renames into a directory done before the call durable; concurrent callers share fsyncs (GroupedSyncs). */
const directorySyncs = new GroupedSyncs(fsyncDirectory);
function syncDirectory(dir: string): Promise<void> {
  return directorySyncs.sync(dir);
}

/** The fsync itself (best effort: not every platform can fsync a directory). */
async function fsyncDirectory(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // ignore
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

async function unlinkIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (err) {
    if (!isAbsent(err)) throw err;
  }
}
