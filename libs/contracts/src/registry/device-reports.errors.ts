import { ErrorCode } from '../errors.js';
import { defineErrors } from '../errors/define-errors.js';
import { DEVICE_REPORT_LIMITS } from './device-reports.schemas.js';

/**
 * Refusals of a device report (docs/api.md "Device reports"). The signature refusals are 401
 * so that an address sending many is counted by the auth_failures security detector; they
 * never say whether the device exists or has keys (no enumeration).
 */
export const DeviceReportErrors = defineErrors('registry', {
  device_report_unsigned: {
    category: ErrorCode.Unauthenticated,
    message: 'device report is not signed: send a JWS signed with a key registered on the device',
  },
  device_report_signature_invalid: {
    category: ErrorCode.Unauthenticated,
    message: 'device report signature does not verify with a key registered on the device',
  },
  device_report_stale: {
    category: ErrorCode.Unauthenticated,
    message: `device report iat must be within ${DEVICE_REPORT_LIMITS.maxAgeSeconds} seconds of the service's clock`,
  },
  device_report_invalid: { category: ErrorCode.BadRequest, message: (p: { problem: string }) => `device report payload is invalid: ${p.problem}` },
  device_report_id_reused: { category: ErrorCode.Conflict, message: 'report_id was already used by another report of this device' },
});
