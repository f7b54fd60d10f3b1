import { AdminErrors } from '@app/contracts';
import { ArchiveError, identityFromBase64 } from '@app/infra';

/**
 * The age identity from `backup_key_b64`; null when the request brings none (the use case then
 * takes the service's generated key, if it has one: BackupKeys); 400 naming the problem when it
 * is no key. Held in memory only.
 */
export function backupIdentity(keyB64: unknown): string | null {
  if (keyB64 === undefined || keyB64 === null) return null;
  if (typeof keyB64 !== 'string' || !keyB64.trim()) throw AdminErrors.backup_key_invalid();
  try {
    return identityFromBase64(keyB64);
  } catch (err) {
    if (err instanceof ArchiveError) throw AdminErrors.backup_key_invalid();
    throw err;
  }
}

/** POST /admin/backups/verify. `archiveName` null: the latest archive; `identity` null: the service's generated key. */
export class VerifyBackupCommand {
  private constructor(
    readonly archiveName: string | null,
    readonly identity: string | null,
    readonly actor: string,
  ) {}

  static create(input: { archiveName?: string; keyB64: unknown; actor: string }): VerifyBackupCommand {
    return new VerifyBackupCommand(input.archiveName ?? null, backupIdentity(input.keyB64), input.actor);
  }

  /** Never the key: a command may end up in a log line. */
  toJSON(): Record<string, unknown> {
    return { archiveName: this.archiveName, actor: this.actor };
  }
}
