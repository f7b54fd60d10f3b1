import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { BackupMessages, type MessageRequest } from '@app/contracts';
import { BackupRuns } from '../backups/backup-runs.service.js';
import { RestoreBackupCommand } from '../use-cases/restore-backup/restore-backup.command.js';
import { RestoreBackup } from '../use-cases/restore-backup/restore-backup.usecase.js';
import { StartBackup } from '../use-cases/start-backup/start-backup.usecase.js';
import { VerifyBackupCommand } from '../use-cases/verify-backup/verify-backup.command.js';
import { VerifyBackup } from '../use-cases/verify-backup/verify-backup.usecase.js';

/** /admin/backups and /admin/restores. */
@Controller()
export class BackupsController {
  constructor(
    @Inject(BackupRuns) private readonly runs: BackupRuns,
    @Inject(StartBackup) private readonly startBackup: StartBackup,
    @Inject(VerifyBackup) private readonly verifyBackup: VerifyBackup,
    @Inject(RestoreBackup) private readonly restoreBackup: RestoreBackup,
  ) {}

  @MessagePattern(BackupMessages.list.pattern)
  list(@Payload() call: MessageRequest<typeof BackupMessages.list>) {
    return this.runs.list(call);
  }

  @MessagePattern(BackupMessages.get.pattern)
  get(@Payload() call: MessageRequest<typeof BackupMessages.get>) {
    return this.runs.get(call);
  }

  @MessagePattern(BackupMessages.start.pattern)
  start(@Payload() call: MessageRequest<typeof BackupMessages.start>) {
    return this.startBackup.execute(call.ctx.actor);
  }

  @MessagePattern(BackupMessages.verify.pattern)
  verify(@Payload() call: MessageRequest<typeof BackupMessages.verify>) {
    return this.verifyBackup.start(
      VerifyBackupCommand.create({ archiveName: call.body.archive_name, keyB64: call.body.backup_key_b64, actor: call.ctx.actor }),
    );
  }

  @MessagePattern(BackupMessages.verifyReport.pattern)
  verifyReport(@Payload() call: MessageRequest<typeof BackupMessages.verifyReport>) {
    return this.runs.report(call);
  }

  @MessagePattern(BackupMessages.restore.pattern)
  restore(@Payload() call: MessageRequest<typeof BackupMessages.restore>) {
    return this.restoreBackup.start(
      RestoreBackupCommand.create({ archiveName: call.body.archive_name, confirm: call.body.confirm, keyB64: call.body.backup_key_b64, actor: call.ctx.actor }),
    );
  }
}
