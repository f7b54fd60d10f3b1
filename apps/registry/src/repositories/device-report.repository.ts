import type { ReportOutcome } from '@app/contracts';
import { type Row, sql, type Tenant, toDate, toInt } from '@app/infra';
import type { EntityManager } from 'typeorm';

/** A stored device report (registry.device_report). */
export interface DeviceReportRecord {
  readonly hwid: string;
  readonly reportId: string;
  readonly buildId: string;
  readonly fwVersion: string;
  readonly outcome: ReportOutcome;
  readonly reason: string | null;
  readonly reportedAt: Date;
  readonly receivedAt: Date;
  readonly rolloutOffers: number;
}

const COLUMNS = 'hwid, report_id, build_id, fw_version, outcome, reason, reported_at, received_at, rollout_offers';

function toRecord(row: Row): DeviceReportRecord {
  return {
    hwid: String(row.hwid),
    reportId: String(row.report_id),
    buildId: String(row.build_id),
    fwVersion: String(row.fw_version),
    outcome: String(row.outcome) as ReportOutcome,
    reason: typeof row.reason === 'string' ? row.reason : null,
    reportedAt: toDate(row.reported_at),
    receivedAt: toDate(row.received_at),
    rolloutOffers: toInt(row.rollout_offers),
  };
}

/** Device reports: stored once per (device, report id), listed newest first. */
export class DeviceReportRepository {
  constructor(private readonly manager: EntityManager) {}

  /** Stores the report unless its id was used by this device already; answers the stored row and whether this call stored it. */
  async insertOnce(
    report: Tenant<Omit<DeviceReportRecord, 'receivedAt' | 'rolloutOffers'> & { clientIp: string | null }>,
  ): Promise<{ record: DeviceReportRecord; created: boolean }> {
    const inserted = await sql(
      this.manager,
      `INSERT INTO registry.device_report (customer_id, hwid, report_id, build_id, fw_version, outcome, reason, reported_at, client_ip)
       VALUES ($1, $2, $3, $4::uuid, $5, $6, $7, $8, $9)
       ON CONFLICT (customer_id, hwid, report_id) DO NOTHING
       RETURNING ${COLUMNS}`,
      [report.customerId, report.hwid, report.reportId, report.buildId, report.fwVersion, report.outcome, report.reason, report.reportedAt, report.clientIp],
    );
    if (inserted.rows[0]) return { record: toRecord(inserted.rows[0]), created: true };
    const existing = await sql(this.manager, `SELECT ${COLUMNS} FROM registry.device_report WHERE customer_id = $1 AND hwid = $2 AND report_id = $3`, [
      report.customerId,
      report.hwid,
      report.reportId,
    ]);
    return { record: toRecord(existing.rows[0]), created: false };
  }

  /** How many rollout offers the report was recorded against (rollout outcomes). */
  async setRolloutOffers(report: Tenant<{ hwid: string; reportId: string; offers: number }>): Promise<void> {
    await sql(this.manager, `UPDATE registry.device_report SET rollout_offers = $4 WHERE customer_id = $1 AND hwid = $2 AND report_id = $3`, [
      report.customerId,
      report.hwid,
      report.reportId,
      report.offers,
    ]);
  }

  /** A device's reports, newest first (device_report_recent_idx); one more than `limit` tells whether a next page exists. */
  async list(query: Tenant<{ hwid: string; limit: number; offset: number }>): Promise<DeviceReportRecord[]> {
    const result = await sql(
      this.manager,
      `SELECT ${COLUMNS} FROM registry.device_report WHERE customer_id = $1 AND hwid = $2 ORDER BY received_at DESC, report_id LIMIT $3 OFFSET $4`,
      [query.customerId, query.hwid, query.limit, query.offset],
    );
    return result.rows.map(toRecord);
  }

  /** Customer erasure. Returns the rows deleted. */
  async deleteCustomerRows(customerId: Tenant['customerId']): Promise<number> {
    return (await sql(this.manager, `DELETE FROM registry.device_report WHERE customer_id = $1`, [customerId])).affected;
  }
}
