import { DeviceReportBody, DeviceReportParams, type RequestContext } from '@app/contracts';
import { contractCheck } from '@app/platform';

const checkParams = contractCheck(DeviceReportParams, { where: 'path' });
const checkBody = contractCheck(DeviceReportBody, { where: 'body' });

/** POST /firmware/{domain}/reports/{hwid}: the request as sent; the signature and the claims are checked by the use case (they need the device's keys). */
export class SubmitDeviceReportCommand {
  private constructor(
    readonly ctx: RequestContext,
    readonly domain: string,
    readonly hwid: string,
    readonly report: DeviceReportBody,
  ) {}

  static create(input: { ctx: RequestContext; params: unknown; body: unknown }): SubmitDeviceReportCommand {
    const params = checkParams(input.params);
    return new SubmitDeviceReportCommand(input.ctx, params.domain.toLowerCase(), params.hwid, checkBody(input.body));
  }
}
