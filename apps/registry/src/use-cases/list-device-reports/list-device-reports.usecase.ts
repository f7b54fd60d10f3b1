import { Inject, Injectable } from '@nestjs/common';
import { type DeviceReportList, RegistryErrors } from '@app/contracts';
import { RegistryStore } from '../../repositories/registry.store.js';
import { toDeviceReportView } from '../submit-device-report/submit-device-report.usecase.js';
import type { ListDeviceReportsCommand } from './list-device-reports.command.js';

/** A device's install reports, newest first (its history as the device told it). */
@Injectable()
export class ListDeviceReports {
  constructor(@Inject(RegistryStore) private readonly store: RegistryStore) {}

  async execute(command: ListDeviceReportsCommand): Promise<DeviceReportList> {
    const { customerId, hwid, limit, offset } = command;
    return this.store.transaction(async ({ devices, reports }) => {
      if (!(await devices.find({ customerId, hwid }))) throw RegistryErrors.device_not_found();
      const rows = await reports.list({ customerId, hwid, limit: limit + 1, offset });
      return { items: rows.slice(0, limit).map(toDeviceReportView), next_offset: rows.length > limit ? offset + limit : null };
    });
  }
}
