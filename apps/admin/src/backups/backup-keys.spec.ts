import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ServiceError } from '@app/contracts';
import { type BackupStore, configureLogging, ensureGeneratedBackupKey, generateBackupKeyPair, type JobQueue, loadConfig, type ServiceConfig } from '@app/infra';
import { Clock } from '../services/clock.js';
import type { RunBackup } from '../use-cases/run-backup/run-backup.usecase.js';
import { BackupJobs, BACKUP_SCHEDULE_JOB } from './backup-jobs.service.js';
import { BACKUPS_NOT_CONFIGURED, BackupKeys } from './backup-keys.js';
import type { AdminStore } from '../repositories/admin.store.js';
import type { BackupRunRepository } from '../repositories/backup-run.repository.js';
import type { StartBackup } from '../use-cases/start-backup/start-backup.usecase.js';

async function failure(work: () => unknown): Promise<ServiceError> {
  try {
    await work();
  } catch (err) {
    if (ServiceError.is(err)) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('BackupKeys', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fds-backup-keys-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('with the generated pair: says where its secret half is, and reads with it when the request brings no key', async () => {
    const generated = await ensureGeneratedBackupKey(dir);
    const base = loadConfig({ DATA_DIR: dir });
    const keys = new BackupKeys({ ...base, backup: { ...base.backup, publicKey: generated.publicKey, generatedKeyFile: generated.secretKeyFile } });
    expect(keys.view()).toEqual({ source: 'generated', public_key: generated.publicKey, secret_key_file: generated.secretKeyFile });
    expect(keys.configured).toBe(true);
    const identity = await keys.identity(null);
    expect(identity).toMatch(/^AGE-SECRET-KEY-1/);
    const sent = (await generateBackupKeyPair()).secretKey;
    expect(await keys.identity(sent)).toBe(sent);

    // The file gone (or holding no key): 409 naming it, never a run that fails later.
    const gone = new BackupKeys({ ...base, backup: { ...base.backup, publicKey: generated.publicKey, generatedKeyFile: join(dir, 'gone.key') } });
    expect(await failure(() => gone.identity(null))).toMatchObject({
      status: 409,
      reason: 'backup_key_unreadable',
      message: `the service's backup key ${join(dir, 'gone.key')} cannot be read (ENOENT): put it back, or send backup_key_b64`,
    });
    await writeFile(join(dir, 'empty.key'), '# nothing\n');
    const empty = new BackupKeys({ ...base, backup: { ...base.backup, publicKey: generated.publicKey, generatedKeyFile: join(dir, 'empty.key') } });
    expect((await failure(() => empty.identity(null))).message).toContain('(it holds no age secret key)');
  });

  it('with BACKUP_PUBLIC_KEY: holds no secret key, so a verify or restore must bring one', async () => {
    const { publicKey } = await generateBackupKeyPair();
    const keys = new BackupKeys(loadConfig({ DATA_DIR: dir, BACKUP_PUBLIC_KEY: publicKey }));
    expect(keys.view()).toEqual({ source: 'configured', public_key: publicKey, secret_key_file: null });
    expect(await failure(() => keys.identity(null))).toMatchObject({
      status: 400,
      reason: 'backup_key_required',
      message: 'backup_key_b64 is required: the service holds only the public key',
    });
  });

  it('with no key at all (distributed, or the off-site backend): backups refused with what to set', async () => {
    const keys = new BackupKeys(loadConfig({ DATA_DIR: dir }));
    expect(keys.view()).toEqual({ source: 'none', public_key: null, secret_key_file: null });
    expect(keys.configured).toBe(false);
    expect(await failure(() => keys.assertConfigured())).toMatchObject({ status: 409, reason: 'backups_not_configured', message: BACKUPS_NOT_CONFIGURED });
    expect(BACKUPS_NOT_CONFIGURED).toContain('set BACKUP_PUBLIC_KEY');
  });
});

describe('the backup schedule without a key', () => {
  it('warns at start-up and at every check instead of doing nothing in silence', async () => {
    const lines: { level: string; msg: string; fix?: string }[] = [];
    configureLogging({ level: 'info', sink: (line) => lines.push(JSON.parse(line) as { level: string; msg: string }) });
    const handlers = new Map<string, () => Promise<void>>();
    const scheduled: string[] = [];
    const jobs = {
      process: (queue: string, handler: () => Promise<void>) => void handlers.set(queue, handler),
      schedule: async (queue: string) => void scheduled.push(queue),
    } as unknown as JobQueue;
    let queued = 0;
    const runs = { execute: async () => void queued++ } as unknown as StartBackup;
    const records = { latestBackupAt: async () => new Date(0) } as unknown as BackupRunRepository;
    const config: ServiceConfig = loadConfig({ DATA_DIR: '/nonexistent', BACKUP_SCHEDULE: '24h' });
    const service = new BackupJobs(
      jobs,
      runs,
      {} as RunBackup,
      {} as BackupStore,
      { repos: { backupRuns: records } } as unknown as AdminStore,
      config,
      new BackupKeys(config),
      new Clock(),
    );
    await service.onModuleInit();
    expect(scheduled).toContain(BACKUP_SCHEDULE_JOB.queue);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: 'backups are not configured: no backup runs, scheduled or asked for', fix: BACKUPS_NOT_CONFIGURED }),
    );
    await handlers.get(BACKUP_SCHEDULE_JOB.queue)!();
    await handlers.get(BACKUP_SCHEDULE_JOB.queue)!();
    expect(lines.filter((l) => l.msg === 'scheduled backup not made: backups are not configured')).toHaveLength(2);
    expect(queued).toBe(0);

    // With a key, the same check queues the backup that is due.
    const { publicKey } = await generateBackupKeyPair();
    const keyed = loadConfig({ DATA_DIR: '/nonexistent', BACKUP_PUBLIC_KEY: publicKey });
    lines.length = 0;
    await new BackupJobs(
      jobs,
      runs,
      {} as RunBackup,
      {} as BackupStore,
      { repos: { backupRuns: records } } as unknown as AdminStore,
      keyed,
      new BackupKeys(keyed),
      new Clock(),
    ).onModuleInit();
    await handlers.get(BACKUP_SCHEDULE_JOB.queue)!();
    expect(queued).toBe(1);
    expect(lines.filter((l) => l.level === 'warn')).toEqual([]);
  });
});
