import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type DeviceReportList, DeviceReportMessages, type DeviceReportResult, type MessageRequest } from '@app/contracts';
import { ListDeviceReportsCommand } from '../use-cases/list-device-reports/list-device-reports.command.js';
import { ListDeviceReports } from '../use-cases/list-device-reports/list-device-reports.usecase.js';
import { SubmitDeviceReportCommand } from '../use-cases/submit-device-report/submit-device-report.command.js';
import { SubmitDeviceReport } from '../use-cases/submit-device-report/submit-device-report.usecase.js';

type Req<K extends keyof typeof DeviceReportMessages> = MessageRequest<(typeof DeviceReportMessages)[K]>;

/** Device reports (libs/contracts device-reports.endpoints.ts): a device's signed report, a device's reports. */
@Controller()
export class DeviceReportsController {
  constructor(
    @Inject(SubmitDeviceReport) private readonly submitReport: SubmitDeviceReport,
    @Inject(ListDeviceReports) private readonly listReports: ListDeviceReports,
  ) {}

  @MessagePattern(DeviceReportMessages.submit.pattern)
  async submit(@Payload() call: Req<'submit'>): Promise<DeviceReportResult> {
    return this.submitReport.execute(SubmitDeviceReportCommand.create({ ctx: call.ctx, params: call.params, body: call.body }));
  }

  @MessagePattern(DeviceReportMessages.list.pattern)
  async list(@Payload() call: Req<'list'>): Promise<DeviceReportList> {
    return this.listReports.execute(ListDeviceReportsCommand.create({ ctx: call.ctx, hwid: call.params?.hwid, query: call.query }));
  }
}
