import { VerifyReportRequest } from '@app/contracts';
import { contractCheck } from '@app/platform';

const validBody = contractCheck(VerifyReportRequest, { where: 'body' });

/** POST /admin/backups/verify-report, validated when built. */
export class RecordVerifyReportCommand {
  private constructor(
    readonly archiveName: string,
    readonly ok: boolean,
    /** Trimmed; empty when none was sent. */
    readonly detail: string,
    readonly actor: string,
  ) {}

  static create(input: { body: unknown; actor: string }): RecordVerifyReportCommand {
    const body = validBody(input.body);
    return new RecordVerifyReportCommand(body.archive_name, body.ok, body.detail?.trim() ?? '', input.actor);
  }
}
