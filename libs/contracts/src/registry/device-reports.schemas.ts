import { Type, type Static } from '@sinclair/typebox';
import { CUSTOMER_DOMAIN_ANY_CASE_PATTERN, Timestamp } from '../schemas.js';
import { HwId } from './registry.schemas.js';

/**
 * Device reports (docs/api.md "Device reports", docs/device-protocol.md): a device says how
 * an install went, signed with a key registered on the device, as a flattened JWS (RFC 7515
 * §7.2.2) whose payload is ReportClaims.
 */

export const REPORT_OUTCOMES = ['installed', 'failed', 'rolled_back'] as const;
export type ReportOutcome = (typeof REPORT_OUTCOMES)[number];

export const DEVICE_REPORT_LIMITS = {
  /** Characters of `reason`. */
  maxReasonChars: 500,
  /** A report's `iat` may be this many seconds from the service's clock, either way (replays older than it are refused). */
  maxAgeSeconds: 300,
  /** Characters of `report_id` (a UUID fits). */
  maxReportIdChars: 64,
  /** Characters of each JWS member (payload and protected header base64url, the signature). */
  maxJwsMemberChars: 4096,
  /** Reports listed per page of a device's reports. */
  listMaxLimit: 100,
} as const;

/** The JWS algorithms a device key may sign with: Ed25519, EC P-256, RSA. */
export const REPORT_ALGORITHMS = ['EdDSA', 'ES256', 'RS256'] as const;

export const DeviceReportParams = Type.Object({
  domain: Type.String({
    maxLength: 253,
    pattern: CUSTOMER_DOMAIN_ANY_CASE_PATTERN,
    description: 'Customer domain (case-insensitive)',
    'x-error': 'domain must be a DNS name',
  }),
  hwid: HwId,
});
export type DeviceReportParams = Static<typeof DeviceReportParams>;

const Base64Url = (description: string) => Type.String({ maxLength: DEVICE_REPORT_LIMITS.maxJwsMemberChars, pattern: '^[A-Za-z0-9_-]*$', description });

/** The body: a flattened JWS. `protected` and `signature` are optional in the schema so that an unsigned report is refused as unsigned (401), not as malformed. */
export const DeviceReportBody = Type.Object(
  {
    protected: Type.Optional(Base64Url('base64url of the JWS protected header, e.g. {"alg":"EdDSA"}')),
    payload: Base64Url('base64url of the report claims (JSON): domain, hwid, build_id, fw_version, outcome, reason?, report_id, iat'),
    signature: Type.Optional(Base64Url('base64url of the signature over ASCII(protected + "." + payload) with the device key')),
  },
  { additionalProperties: false },
);
export type DeviceReportBody = Static<typeof DeviceReportBody>;

/** The signed claims (the JWS payload). */
export const ReportClaims = Type.Object(
  {
    domain: Type.String({ maxLength: 253 }),
    hwid: HwId,
    build_id: Type.String({ format: 'uuid', description: "The update item's id" }),
    fw_version: Type.String({ minLength: 1, maxLength: 64 }),
    outcome: Type.Union(REPORT_OUTCOMES.map((o) => Type.Literal(o))),
    reason: Type.Optional(Type.String({ maxLength: DEVICE_REPORT_LIMITS.maxReasonChars })),
    report_id: Type.String({ minLength: 8, maxLength: DEVICE_REPORT_LIMITS.maxReportIdChars, pattern: '^[A-Za-z0-9._:-]+$' }),
    iat: Type.Integer({ minimum: 0, description: 'Seconds since the epoch when the report was made' }),
  },
  { additionalProperties: true },
);
export type ReportClaims = Static<typeof ReportClaims>;

/** A stored report, as answered and as a device's reports list it. */
export const DeviceReport = Type.Object({
  report_id: Type.String(),
  hwid: Type.String(),
  build_id: Type.String(),
  fw_version: Type.String(),
  outcome: Type.Union(REPORT_OUTCOMES.map((o) => Type.Literal(o))),
  reason: Type.Union([Type.String(), Type.Null()]),
  reported_at: Timestamp,
  received_at: Timestamp,
  /** Rollout offers of the build this report was recorded against (0: the build reached the device outside a rollout). */
  rollout_offers: Type.Integer({ minimum: 0 }),
});
export type DeviceReport = Static<typeof DeviceReport>;

export const DeviceReportList = Type.Object({ items: Type.Array(DeviceReport), next_offset: Type.Union([Type.Integer(), Type.Null()]) });
export type DeviceReportList = Static<typeof DeviceReportList>;
