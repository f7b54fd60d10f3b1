import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { BackupMessages, type MessageRequest } from '@app/contracts';
import { GetBackupRunCommand } from '../use-cases/get-backup-run/get-backup-run.command.js';
import { GetBackupRun } from '../use-cases/get-backup-run/get-backup-run.usecase.js';
import { ListBackupsCommand } from '../use-cases/list-backups/list-backups.command.js';
import { ListBackups } from '../use-cases/list-backups/list-backups.usecase.js';
import { RecordVerifyReportCommand } from '../use-cases/record-verify-report/record-verify-report.command.js';
import { RecordVerifyReport } from '../use-cases/record-verify-report/record-verify-report.usecase.js';
import { RestoreBackupCommand } from '../use-cases/restore-backup/restore-backup.command.js';
import { RestoreBackup } from '../use-cases/restore-backup/restore-backup.usecase.js';
import { StartBackup } from '../use-cases/start-backup/start-backup.usecase.js';
import { VerifyBackupCommand } from '../use-cases/verify-backup/verify-backup.command.js';
import { VerifyBackup } from '../use-cases/verify-backup/verify-backup.usecase.js';

/** /admin/backups and /admin/restores. Handlers are async so that a command refused when built answers a rejected promise. */
@Controller()
export class BackupsController {
  constructor(
    @Inject(ListBackups) private readonly listBackups: ListBackups,
    @Inject(GetBackupRun) private readonly getBackupRun: GetBackupRun,
    @Inject(RecordVerifyReport) private readonly recordVerifyReport: RecordVerifyReport,
    @Inject(StartBackup) private readonly startBackup: StartBackup,
    @Inject(VerifyBackup) private readonly verifyBackup: VerifyBackup,
    @Inject(RestoreBackup) private readonly restoreBackup: RestoreBackup,
  ) {}

  @MessagePattern(BackupMessages.list.pattern)
  async list(@Payload() call: MessageRequest<typeof BackupMessages.list>) {
    return this.listBackups.execute(ListBackupsCommand.create({ query: call.query }));
  }

  @MessagePattern(BackupMessages.get.pattern)
  async get(@Payload() call: MessageRequest<typeof BackupMessages.get>) {
    return this.getBackupRun.execute(GetBackupRunCommand.create({ id: call.params.id }));
  }

  @MessagePattern(BackupMessages.start.pattern)
  async start(@Payload() call: MessageRequest<typeof BackupMessages.start>) {
    return this.startBackup.execute(call.ctx.actor);
  }

  @MessagePattern(BackupMessages.verify.pattern)
  async verify(@Payload() call: MessageRequest<typeof BackupMessages.verify>) {
    return this.verifyBackup.start(
      VerifyBackupCommand.create({ archiveName: call.body.archive_name, keyB64: call.body.backup_key_b64, actor: call.ctx.actor }),
    );
  }

  @MessagePattern(BackupMessages.verifyReport.pattern)
  async verifyReport(@Payload() call: MessageRequest<typeof BackupMessages.verifyReport>) {
    return this.recordVerifyReport.execute(RecordVerifyReportCommand.create({ body: call.body, actor: call.ctx.actor }));
  }

  @MessagePattern(BackupMessages.restore.pattern)
  async restore(@Payload() call: MessageRequest<typeof BackupMessages.restore>) {
    return this.restoreBackup.start(
      RestoreBackupCommand.create({ archiveName: call.body.archive_name, confirm: call.body.confirm, keyB64: call.body.backup_key_b64, actor: call.ctx.actor }),
    );
  }
}
