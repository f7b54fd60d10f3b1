import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { BackupList, BackupRunDetail, BackupRunIdParams, BackupRunView, BackupsQuery, EndpointCall, NoParams, VerifyReportRequest } from '@app/contracts';
import { AdminErrors, isUuid } from '@app/contracts';
import { BackupStore } from '@app/infra';
import { AuditService } from '../audit/audit.service.js';
import { Clock } from '../services/clock.js';
import { auditBackup } from './backup-audit.js';
import { BackupKeys } from './backup-keys.js';
import { AdminStore } from '../repositories/admin.store.js';

/** The run records (docs/api.md "Backups and restores"): listing, reading, recording an outside verify. Queueing a backup is StartBackup. */
@Injectable()
export class BackupRuns {
  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(BackupStore) private readonly store: BackupStore,
    @Inject(AuditService) private readonly audit: AuditService,
    @Inject(BackupKeys) private readonly keys: BackupKeys,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async list(call: EndpointCall<NoParams, BackupsQuery, undefined>): Promise<BackupList> {
    return { backend: this.store.kind, key: this.keys.view(), items: await this.adminStore.repos.backupRuns.list(call.query?.limit ?? 50) };
  }

  async get(call: EndpointCall<BackupRunIdParams, NoParams, undefined>): Promise<BackupRunDetail> {
    const run = isUuid(call.params.id) ? await this.adminStore.repos.backupRuns.get(call.params.id.toLowerCase()) : null;
    if (!run) throw AdminErrors.backup_run_not_found();
    return run;
  }

  /** POST /admin/backups/verify-report: a finished `verify` run as an outside verifier saw it. */
  async report(call: EndpointCall<NoParams, NoParams, VerifyReportRequest>): Promise<BackupRunView> {
    const id = randomUUID();
    const now = this.clock.now();
    const { archive_name, ok } = call.body;
    const detail = call.body.detail?.trim() ?? '';
    await this.adminStore.repos.backupRuns.insert(
      { id, kind: 'verify', status: ok ? 'succeeded' : 'failed', archiveName: archive_name, initiatedBy: `verify-report:${call.ctx.actor}`, createdAt: now },
      { startedAt: now, finishedAt: now, error: ok ? null : detail || 'the outside verifier reported a failure', log: ok && detail ? `${detail}\n` : '' },
    );
    await auditBackup(this.audit, call.ctx.actor, 'backup.verify_report', id, { archive_name, ok });
    const run = await this.adminStore.repos.backupRuns.get(id);
    const { log: _log, ...view } = run!;
    return view;
  }
}
