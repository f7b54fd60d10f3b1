import { AdminErrors } from '@app/contracts';
import { backupIdentity } from '../verify-backup/verify-backup.command.js';

/** POST /admin/restores: `confirm` must repeat the archive name exactly; `identity` null: the service's generated key. */
export class RestoreBackupCommand {
  private constructor(
    readonly archiveName: string,
    readonly identity: string | null,
    readonly actor: string,
  ) {}

  static create(input: { archiveName: string; confirm: string; keyB64: unknown; actor: string }): RestoreBackupCommand {
    if (input.confirm !== `restore ${input.archiveName}`) throw AdminErrors.restore_confirm_mismatch({ archive: input.archiveName });
    return new RestoreBackupCommand(input.archiveName, backupIdentity(input.keyB64), input.actor);
  }

  toJSON(): Record<string, unknown> {
    return { archiveName: this.archiveName, actor: this.actor };
  }
}
