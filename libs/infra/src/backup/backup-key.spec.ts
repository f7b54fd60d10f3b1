import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { identityToRecipient } from 'age-encryption';
import { loadConfig } from '../config/config.js';
import { generateBackupKeyPair } from './backup-archive.js';
import { ensureGeneratedBackupKey, GENERATED_BACKUP_KEY_FILE, readBackupKeyFile, withStandaloneBackupKey } from './backup-key.js';

describe('the generated backup key pair', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'fds-backup-key-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is created once, owner-only (0600), as a key file whose secret half matches the public key', async () => {
    const first = await ensureGeneratedBackupKey(join(dataDir, 'fresh'));
    expect(first).toEqual({
      publicKey: expect.stringMatching(/^age1[02-9ac-hj-np-z]{58}$/),
      secretKeyFile: join(dataDir, 'fresh', GENERATED_BACKUP_KEY_FILE),
      created: true,
      readableByOthers: false,
    });
    expect((await stat(first.secretKeyFile)).mode & 0o777).toBe(0o600);
    const identity = await readBackupKeyFile(first.secretKeyFile);
    expect(await identityToRecipient(identity)).toBe(first.publicKey);
    // As age-keygen writes it: comments, then the key (the CLI's `backup verify --key` reads it).
    expect(await readFile(first.secretKeyFile, 'utf8')).toMatch(new RegExp(`^# [^\\n]*\\n(# [^\\n]*\\n)*${identity}\\n$`));
    // Nothing left beside it.
    expect(await readdir(join(dataDir, 'fresh'))).toEqual([GENERATED_BACKUP_KEY_FILE]);
  });

  it('is reused on every later start, never replaced', async () => {
    const first = await ensureGeneratedBackupKey(dataDir);
    const text = await readFile(first.secretKeyFile, 'utf8');
    const again = await ensureGeneratedBackupKey(dataDir);
    expect(again).toEqual({ ...first, created: false });
    expect(await readFile(first.secretKeyFile, 'utf8')).toBe(text);
  });

  it('is one pair when several starts race to make it', async () => {
    const made = await Promise.all(Array.from({ length: 6 }, () => ensureGeneratedBackupKey(dataDir)));
    expect(new Set(made.map((m) => m.publicKey)).size).toBe(1);
    expect(made.filter((m) => m.created)).toHaveLength(1);
    expect(await identityToRecipient(await readBackupKeyFile(made[0].secretKeyFile))).toBe(made[0].publicKey);
    expect(await readdir(dataDir)).toEqual([GENERATED_BACKUP_KEY_FILE]);
  });

  it('refuses a key file that holds no key rather than replacing it, and says when others may read it', async () => {
    const file = join(dataDir, GENERATED_BACKUP_KEY_FILE);
    await writeFile(file, 'not a key\n', { mode: 0o600 });
    await expect(ensureGeneratedBackupKey(dataDir)).rejects.toThrow(`${file} holds no age secret key`);
    expect(await readFile(file, 'utf8')).toBe('not a key\n');

    const { secretKey, publicKey } = await generateBackupKeyPair();
    await writeFile(file, `${secretKey}\n`);
    await chmod(file, 0o644);
    expect(await ensureGeneratedBackupKey(dataDir)).toMatchObject({ publicKey, created: false, readableByOthers: true });
  });

  it('is made by the standalone service only on the local backend without BACKUP_PUBLIC_KEY', async () => {
    const { publicKey } = await generateBackupKeyPair();
    const configured = await withStandaloneBackupKey(loadConfig({ DATA_DIR: dataDir, BACKUP_PUBLIC_KEY: publicKey }));
    expect(configured.generated).toBeNull();
    expect(configured.config.backup).toMatchObject({ publicKey, generatedKeyFile: null });
    const offSite = await withStandaloneBackupKey(loadConfig({ DATA_DIR: dataDir, BACKUP_S3_BUCKET: 'vault' }));
    expect(offSite.generated).toBeNull();
    expect(offSite.config.backup).toMatchObject({ publicKey: null, generatedKeyFile: null });
    expect(await readdir(dataDir)).toEqual([]);

    const local = await withStandaloneBackupKey(loadConfig({ DATA_DIR: dataDir }));
    expect(local.generated).toMatchObject({ created: true });
    expect(local.config.backup).toMatchObject({ publicKey: local.generated!.publicKey, generatedKeyFile: join(dataDir, GENERATED_BACKUP_KEY_FILE) });
  });
});
