import { isUuid } from '@app/contracts';

/** GET /admin/backups/{id}: an id that is no UUID names no run (404, like an unknown one). */
export class GetBackupRunCommand {
  private constructor(readonly id: string | null) {}

  static create(input: { id: unknown }): GetBackupRunCommand {
    return new GetBackupRunCommand(isUuid(input.id) ? input.id.toLowerCase() : null);
  }
}
