import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ARCHIVE_NAME_PATTERN, assertArchiveName, BackupStore, newestFirst, type StoredArchive } from './backup-store.js';

/** Archives as files in one directory; written to `<name>.partial-<random>`, flushed, then renamed. */
export class LocalBackupStore extends BackupStore {
  readonly kind = 'local' as const;

  constructor(readonly dir: string) {
    super();
  }

  async write(name: string, body: Readable): Promise<number> {
    assertArchiveName(name);
    await mkdir(this.dir, { recursive: true });
    const tmp = join(this.dir, `${name}.partial-${randomBytes(6).toString('hex')}`);
    try {
      await pipeline(body, createWriteStream(tmp, { flags: 'wx', flush: true, highWaterMark: 1024 * 1024 }));
      await rename(tmp, join(this.dir, name));
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    return (await stat(join(this.dir, name))).size;
  }

  async read(name: string): Promise<Readable | null> {
    assertArchiveName(name);
    const file = join(this.dir, name);
    if (!(await stat(file).catch(() => null))) return null;
    return createReadStream(file, { highWaterMark: 1024 * 1024 });
  }

  async list(): Promise<StoredArchive[]> {
    const names = await readdir(this.dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [] as string[];
      throw err;
    });
    const out: StoredArchive[] = [];
    for (const name of names) {
      if (!ARCHIVE_NAME_PATTERN.test(name)) continue;
      const info = await stat(join(this.dir, name)).catch(() => null);
      if (info) out.push({ name, bytes: info.size, lastModified: info.mtime });
    }
    return newestFirst(out);
  }

  async delete(name: string): Promise<void> {
    assertArchiveName(name);
    await unlink(join(this.dir, name)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }
}
