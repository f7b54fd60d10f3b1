import { Type } from '@sinclair/typebox';
import { type AnyEndpointDef, defineEndpoint } from '../endpoints/endpoint.js';
import { CommonErrors } from '../errors/common.errors.js';
import { CustomerQuery, Limit, NoParams, Offset } from '../schemas.js';
import { DeviceReportErrors } from './device-reports.errors.js';
import { DeviceReportMessages } from './device-reports.messages.js';
import { DEVICE_REPORT_LIMITS, DeviceReport, DeviceReportBody, DeviceReportList, DeviceReportParams } from './device-reports.schemas.js';
import { RegistryErrors } from './registry.errors.js';
import { DeviceParams } from './registry.schemas.js';

/** A report body: the JWS members and JSON punctuation (docs/api.md "Device reports"). */
const REPORT_MAX_BYTES = 16 * 1024;

export const deviceReportEndpoints: AnyEndpointDef[] = [
  defineEndpoint({
    // Beside the update check: public, the customer named by its domain like the check (a device
    // knows only that), and not under /devices, whose paths are the console's (credentials).
    operationId: 'submitDeviceReport',
    method: 'POST',
    path: '/firmware/{domain}/reports/{hwid}',
    tag: 'Devices',
    summary: "A device reports an install's outcome (public; signed with a key registered on the device)",
    auth: { kind: 'public' },
    errorMode: 'json',
    params: DeviceReportParams,
    query: NoParams,
    body: {
      kind: 'json',
      schema: DeviceReportBody,
      required: true,
      maxBytes: REPORT_MAX_BYTES,
    },
    rateLimit: { bucket: 'device-report', scope: 'ip', setting: 'deviceReportRatePerMinute' },
    responses: {
      201: { description: "Stored; recorded against the device's rollout offers of the build (rollout_offers counts them)", schema: DeviceReport },
      200: {
        description: 'The same report (report_id and claims) again, e.g. a retry after a lost answer: stored once, answered as stored',
        schema: DeviceReport,
      },
      429: {
        description:
          'More than DEVICE_REPORT_RATE_PER_MINUTE (default 30) reports in a minute from this address (over all gateways with REDIS_URL, else per gateway process)',
        headers: { 'Retry-After': 'Seconds until the address may report again' },
      },
    },
    // Public: the customer is named by the path, so its 404 is listed here.
    errors: [
      CommonErrors.customer_not_found,
      DeviceReportErrors.device_report_unsigned,
      DeviceReportErrors.device_report_signature_invalid,
      DeviceReportErrors.device_report_stale,
      DeviceReportErrors.device_report_invalid,
      DeviceReportErrors.device_report_id_reused,
    ],
    target: {
      kind: 'message',
      message: DeviceReportMessages.submit,
      reply: (result) => ({ kind: 'json', status: result.created ? 201 : 200, body: result.report }),
    },
  }),
  defineEndpoint({
    operationId: 'listDeviceReports',
    method: 'GET',
    path: '/devices/{hwid}/reports',
    tag: 'Devices',
    summary: "A device's install reports, newest first",
    auth: { kind: 'principal', scope: 'devices:read', tenant: true },
    errorMode: 'json',
    params: DeviceParams,
    query: Type.Object({ customer: CustomerQuery, limit: Type.Optional(Limit(DEVICE_REPORT_LIMITS.listMaxLimit, 20)), offset: Type.Optional(Offset) }),
    body: { kind: 'none' },
    responses: { 200: { description: 'A page of reports; next_offset is null on the last page', schema: DeviceReportList } },
    errors: [RegistryErrors.device_not_found],
    target: { kind: 'message', message: DeviceReportMessages.list, reply: (page) => ({ kind: 'json', status: 200, body: page }) },
  }),
];
