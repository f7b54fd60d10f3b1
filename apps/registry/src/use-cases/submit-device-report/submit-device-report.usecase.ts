import { Inject, Injectable } from '@nestjs/common';
import {
  asCustomerId,
  CommonErrors,
  DEVICE_REPORT_LIMITS,
  type DeviceReport,
  DeviceReportErrors,
  type DeviceReportResult,
  ReportClaims,
  ServiceError,
} from '@app/contracts';
import { contractCheck, CustomerDirectory } from '@app/platform';
import { requireSigned, verifiedPayload } from '../../domain/report-signature.js';
import type { DeviceReportRecord } from '../../repositories/device-report.repository.js';
import { RegistryStore } from '../../repositories/registry.store.js';
import type { SubmitDeviceReportCommand } from './submit-device-report.command.js';

const checkClaims = contractCheck(ReportClaims, { where: 'payload' });

export function toDeviceReportView(record: DeviceReportRecord): DeviceReport {
  return {
    report_id: record.reportId,
    hwid: record.hwid,
    build_id: record.buildId,
    fw_version: record.fwVersion,
    outcome: record.outcome,
    reason: record.reason,
    reported_at: record.reportedAt.toISOString(),
    received_at: record.receivedAt.toISOString(),
    rollout_offers: record.rolloutOffers,
  };
}

/**
 * A device's signed install report (docs/api.md "Device reports"): the signature is checked
 * against the keys registered on the device, then the claims (they must name this domain and
 * device, and be recent); the report is stored once per report id and recorded against the
 * device's rollout offers of the build, where `failed` and `rolled_back` become its outcome.
 */
@Injectable()
export class SubmitDeviceReport {
  constructor(
    @Inject(RegistryStore) private readonly store: RegistryStore,
    @Inject(CustomerDirectory) private readonly customers: CustomerDirectory,
  ) {}

  async execute(command: SubmitDeviceReportCommand, now: Date = new Date()): Promise<DeviceReportResult> {
    const customer = await this.customers.byDomain(command.domain);
    if (!customer || customer.status !== 'active') throw CommonErrors.customer_not_found();
    const report = command.report;
    requireSigned(report);
    const customerId = asCustomerId(customer.id);
    const device = await this.store.repos.devices.find({ customerId, hwid: command.hwid });
    // A withdrawn or unknown device has no keys that count: the same refusal as a wrong key.
    const claims = this.claimsOf(verifiedPayload(report, device?.status === 'active' ? device.keys : []));
    if (claims.domain.toLowerCase() !== command.domain || claims.hwid !== command.hwid) {
      throw DeviceReportErrors.device_report_invalid({ problem: 'domain and hwid must name the device the report is sent for' });
    }
    if (Math.abs(now.getTime() / 1000 - claims.iat) > DEVICE_REPORT_LIMITS.maxAgeSeconds) throw DeviceReportErrors.device_report_stale();
    const wanted = {
      customerId,
      hwid: command.hwid,
      reportId: claims.report_id,
      buildId: claims.build_id.toLowerCase(),
      fwVersion: claims.fw_version,
      outcome: claims.outcome,
      reason: claims.reason ?? null,
      reportedAt: new Date(claims.iat * 1000),
      clientIp: command.ctx.ip || null,
    };
    return this.store.transaction(async ({ reports, rolloutOffers }) => {
      const { record, created } = await reports.insertOnce(wanted);
      if (!created) {
        const same =
          record.buildId === wanted.buildId && record.outcome === wanted.outcome && record.fwVersion === wanted.fwVersion && record.reason === wanted.reason;
        if (!same) throw DeviceReportErrors.device_report_id_reused();
        return { report: toDeviceReportView(record), created: false };
      }
      const offers = await rolloutOffers.recordReport({
        customerId,
        hwid: wanted.hwid,
        buildId: wanted.buildId,
        outcome: wanted.outcome,
        reason: wanted.reason,
        at: wanted.reportedAt,
      });
      if (offers > 0) await reports.setRolloutOffers({ customerId, hwid: wanted.hwid, reportId: wanted.reportId, offers });
      return { report: toDeviceReportView({ ...record, rolloutOffers: offers }), created: true };
    });
  }

  private claimsOf(payload: unknown): ReportClaims {
    try {
      return checkClaims(payload);
    } catch (err) {
      if (err instanceof ServiceError) throw DeviceReportErrors.device_report_invalid({ problem: err.message });
      throw err;
    }
  }
}
