import { describe, expect, it } from '@jest/globals';
import { ServiceError } from '@app/contracts';
import { generateBackupKeyPair } from '@app/infra';
import { RestoreBackupCommand } from './restore-backup/restore-backup.command.js';
import { VerifyBackupCommand } from './verify-backup/verify-backup.command.js';

const NAME = 'backup-20261126T181500Z-3f9a2c1b.age';

function refusal(make: () => unknown): string {
  try {
    make();
  } catch (err) {
    expect(ServiceError.is(err)).toBe(true);
    return (err as ServiceError).message;
  }
  throw new Error('expected a refusal');
}

describe('backup commands', () => {
  it('a restore needs confirm to repeat the archive name exactly, and the key', async () => {
    const { secretKey } = await generateBackupKeyPair();
    const keyB64 = Buffer.from(`# created: now\n${secretKey}\n`).toString('base64');
    const command = RestoreBackupCommand.create({ archiveName: NAME, confirm: `restore ${NAME}`, keyB64, actor: 'token:1' });
    expect(command.identity).toBe(secretKey);
    expect(JSON.stringify(command)).not.toContain(secretKey);
    for (const confirm of [NAME, `restore  ${NAME}`, `Restore ${NAME}`, `restore ${NAME} `, 'restore']) {
      expect(refusal(() => RestoreBackupCommand.create({ archiveName: NAME, confirm, keyB64, actor: 'token:1' }))).toBe(
        `confirm must be exactly "restore ${NAME}"`,
      );
    }
    // No key: the use case takes the service's generated key, or refuses when there is none (BackupKeys).
    expect(RestoreBackupCommand.create({ archiveName: NAME, confirm: `restore ${NAME}`, keyB64: undefined, actor: 'token:1' }).identity).toBeNull();
    expect(refusal(() => RestoreBackupCommand.create({ archiveName: NAME, confirm: `restore ${NAME}`, keyB64: '  ', actor: 'token:1' }))).toMatch(
      /age secret key/,
    );
  });

  it('a verify refuses what is no age secret key, and never shows the key', async () => {
    const { secretKey, publicKey } = await generateBackupKeyPair();
    expect(refusal(() => VerifyBackupCommand.create({ keyB64: Buffer.from(publicKey).toString('base64'), actor: 'token:1' }))).toMatch(/age secret key/);
    const command = VerifyBackupCommand.create({ keyB64: Buffer.from(secretKey).toString('base64'), actor: 'token:1' });
    expect(command.archiveName).toBeNull();
    expect(JSON.stringify(command)).not.toContain(secretKey);
  });
});
