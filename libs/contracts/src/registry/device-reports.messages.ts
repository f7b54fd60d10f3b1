import type { EndpointCall } from '../endpoints/endpoint.js';
import { defineMessage } from '../messages/message.js';
import type { DeviceCustomerQuery, DeviceParams } from './registry.schemas.js';
import type { DeviceReport, DeviceReportBody, DeviceReportList, DeviceReportParams } from './device-reports.schemas.js';
import type { NoParams } from '../schemas.js';

/** The stored report, and whether this request stored it (false: the same report_id and claims again). */
export interface DeviceReportResult {
  readonly report: DeviceReport;
  readonly created: boolean;
}

export interface DeviceReportListQuery {
  readonly customer?: string;
  readonly limit?: number;
  readonly offset?: number;
}

export const DeviceReportMessages = {
  submit: defineMessage<EndpointCall<DeviceReportParams, NoParams, DeviceReportBody>, DeviceReportResult>('registry.devices.reports.submit'),
  list: defineMessage<EndpointCall<DeviceParams, DeviceReportListQuery & DeviceCustomerQuery, undefined>, DeviceReportList>('registry.devices.reports.list'),
};
