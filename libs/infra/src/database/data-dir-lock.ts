import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * DATA_DIR's lock file. PGlite does not lock its directory and two processes opening it
 * lose writes silently, so every process that opens the embedded database (the standalone
 * run, `npm run migrate`, the operator CLI) takes `${dataDir}/service.lock` first.
 *
 * The file holds the owner's pid (one line). It is created with O_EXCL; when it already
 * exists, a live pid means refusal ({@link DataDirLockedError}), a dead pid means a stale
 * lock left by a crash, which is taken over. Within one process the lock is re-entrant
 * (counted): each successful acquire needs one release.
 */
export const DATA_DIR_LOCK_FILE = 'service.lock';

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
    readonly lockPath: string,
  ) {
    super(`Another process (pid ${pid}) is using DATA_DIR ${dataDir}: stop it first (lock file ${lockPath}).`);
    this.name = 'DataDirLockedError';
  }
}

/**
 * One acquisition of DATA_DIR's lock. Calling it releases it (`const release =
 * acquireDataDirLock(dir); ... release()`), as does `.release()`; both are idempotent.
 */
export interface DataDirLock {
  (): void;
  readonly dataDir: string;
  readonly path: string;
  /** Gives back this acquisition; the file is removed when the last one is released. */
  release(): void;
}

const held = new Map<string, { path: string; count: number }>();
let exitHookInstalled = false;

function lockPathOf(dataDir: string): string {
  return join(dataDir, DATA_DIR_LOCK_FILE);
}

function readPid(path: string): number | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const pid = Number.parseInt(text.trim().split(/\s+/)[0] ?? '', 10);
  // An unreadable or empty file (a crash between create and write) counts as stale.
  return Number.isInteger(pid) && pid > 0 ? pid : 0;
}

function isAlive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isYoung(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs < 2000;
  } catch {
    return false;
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function tryCreate(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const dataDir of [...held.keys()]) removeLockFile(dataDir);
  });
}

function removeLockFile(dataDir: string): void {
  const entry = held.get(dataDir);
  held.delete(dataDir);
  if (!entry) return;
  try {
    // Never remove a lock that is no longer ours (e.g. taken over after we were presumed dead).
    if (readPid(entry.path) === process.pid) unlinkSync(entry.path);
  } catch {
    // best effort: a leftover file holding a dead pid is taken over by the next start
  }
}

/**
 * Takes DATA_DIR's lock (creating DATA_DIR if needed) or throws {@link DataDirLockedError}
 * when another live process holds it.
 */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  const dir = resolve(dataDir);
  const path = lockPathOf(dir);
  const existing = held.get(dir);
  if (existing) {
    existing.count += 1;
    return handle(dir, path);
  }
  mkdirSync(dir, { recursive: true });
  for (let attempt = 0; attempt < 40; attempt++) {
    if (tryCreate(path)) {
      held.set(dir, { path, count: 1 });
      installExitHook();
      return handle(dir, path);
    }
    const pid = readPid(path);
    if (pid === null) continue; // vanished meanwhile: retry the exclusive create
    if (pid === 0 && isYoung(path)) {
      // another process is between its exclusive create and writing its pid
      sleepSync(50);
      continue;
    }
    // Our own pid without an in-process hold is a leftover of an earlier process that had the
    // same pid (typical in containers, where the service is often pid 1): stale.
    if (pid !== process.pid && isAlive(pid)) throw new DataDirLockedError(dir, pid, path);
    // Stale: move it aside atomically, so two processes racing for the takeover cannot both
    // delete each other's fresh lock; if what we moved turns out to be live, put it back.
    const aside = `${path}.stale-${process.pid}-${attempt}`;
    try {
      renameSync(path, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    const movedPid = readPid(aside);
    if (movedPid !== null && movedPid !== pid && movedPid !== process.pid && isAlive(movedPid)) {
      try {
        linkSync(aside, path);
      } catch {
        // someone else already holds a new lock; they win either way
      }
      unlinkSync(aside);
      throw new DataDirLockedError(dir, movedPid, path);
    }
    unlinkSync(aside);
  }
  const pid = readPid(path) ?? 0;
  throw new DataDirLockedError(dir, pid, path);
}

function handle(dataDir: string, path: string): DataDirLock {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    releaseDataDirLock(dataDir);
  };
  return Object.assign(release, { dataDir, path, release });
}

/** Gives back one acquisition of DATA_DIR's lock; removes the file after the last one. */
export function releaseDataDirLock(dataDir: string): void {
  const dir = resolve(dataDir);
  const entry = held.get(dir);
  if (!entry) return;
  entry.count -= 1;
  if (entry.count <= 0) removeLockFile(dir);
}

/** Whether this process currently holds DATA_DIR's lock. */
export function holdsDataDirLock(dataDir: string): boolean {
  return held.has(resolve(dataDir));
}
