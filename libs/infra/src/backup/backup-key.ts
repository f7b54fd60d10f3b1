import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { identityToRecipient } from 'age-encryption';
import type { ServiceConfig } from '../config/config.js';
import { generateBackupKeyPair, identityFromText } from './backup-archive.js';

/**
 * The key pair the standalone service makes for itself (docs/operations.md "Backups and
 * restores"): on the local backend without BACKUP_PUBLIC_KEY, archives are encrypted to a pair
 * kept beside the other generated secrets in DATA_DIR, and verify and restore read its secret
 * half when a request brings no key. With BACKUP_PUBLIC_KEY, or the off-site backend, or in
 * the distributed runtime, the service never holds a secret key.
 */
export const GENERATED_BACKUP_KEY_FILE = 'backup-secret.key';

export interface GeneratedBackupKey {
  /** The recipient (`age1…`) archives are encrypted to. */
  readonly publicKey: string;
  /** Where the secret half lies. */
  readonly secretKeyFile: string;
  /** Made by this call (false: an earlier start made it). */
  readonly created: boolean;
  /** The file may be read by others than its owner (someone changed its mode). */
  readonly readableByOthers: boolean;
}

/** An age-keygen key file: comments, then the secret key; `backup verify --key` reads it as is. */
function keyFileText(publicKey: string, secretKey: string): string {
  return [
    `# created: ${new Date().toISOString()}`,
    '# the backup key pair of this service (docs/operations.md "Backups and restores"): keep a copy OFF this machine',
    `# public key: ${publicKey}`,
    secretKey,
    '',
  ].join('\n');
}

async function readIfPresent(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** The secret key (`AGE-SECRET-KEY-1…`) in a key file; an error naming the file when it holds none. */
export async function readBackupKeyFile(file: string): Promise<string> {
  const text = await readFile(file, 'utf8');
  try {
    return identityFromText(text);
  } catch {
    throw new Error(`${file} holds no age secret key (AGE-SECRET-KEY-1...)`);
  }
}

async function existing(file: string): Promise<GeneratedBackupKey | null> {
  const text = await readIfPresent(file);
  if (text === null) return null;
  let identity: string;
  try {
    identity = identityFromText(text);
  } catch {
    // Never replaced: archives may be encrypted to the key it held.
    throw new Error(`${file} holds no age secret key: put the backup key back, or move the file away to have a new key pair made`);
  }
  const { mode } = await stat(file);
  return { publicKey: await identityToRecipient(identity), secretKeyFile: file, created: false, readableByOthers: (mode & 0o077) !== 0 };
}

/**
 * The generated key pair of `dataDir`: made once, then read on every start. Made atomically:
 * written whole (owner-only, 0600) under a temporary name, flushed, then linked to its name,
 * which fails if another process made it meanwhile (its pair is then the one kept).
 */
export async function ensureGeneratedBackupKey(dataDir: string): Promise<GeneratedBackupKey> {
  const file = join(dataDir, GENERATED_BACKUP_KEY_FILE);
  const found = await existing(file);
  if (found) return found;
  await mkdir(dataDir, { recursive: true });
  const { publicKey, secretKey } = await generateBackupKeyPair();
  const temporary = `${file}.${randomBytes(6).toString('hex')}.partial`;
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.chmod(0o600); // whatever the umask
    await handle.writeFile(keyFileText(publicKey, secretKey));
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temporary, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return (await existing(file))!;
  } finally {
    await unlink(temporary);
  }
  const directory = await open(dataDir, 'r');
  await directory.sync().finally(() => directory.close());
  return { publicKey, secretKeyFile: file, created: true, readableByOthers: false };
}

/**
 * The standalone service's backup key: BACKUP_PUBLIC_KEY when set, none on the off-site
 * backend (backups refused until it is set), otherwise the generated pair of DATA_DIR.
 */
export async function withStandaloneBackupKey(config: ServiceConfig): Promise<{ config: ServiceConfig; generated: GeneratedBackupKey | null }> {
  if (config.backup.publicKey || config.backup.s3) return { config, generated: null };
  const generated = await ensureGeneratedBackupKey(config.dataDir);
  return { config: { ...config, backup: { ...config.backup, publicKey: generated.publicKey, generatedKeyFile: generated.secretKeyFile } }, generated };
}
