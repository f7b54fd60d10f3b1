import { Type, type Static } from '@sinclair/typebox';
import { NullableTimestamp, Timestamp } from '../schemas.js';

/** Maintenance mode refuses writes with 503 and this Retry-After (docs/api.md "Maintenance mode"). */
export const MAINTENANCE_RETRY_AFTER_SECONDS = 300;
/** The 503 message while maintenance is on and no message was set. */
export const DEFAULT_MAINTENANCE_MESSAGE = 'the service is in maintenance: writes are paused, try again later';
export const MAINTENANCE_MESSAGE_MAX = 500;
/** The longest ttl_seconds of an IP block: 365 days (longer blocks are permanent ones). */
export const IP_BLOCK_MAX_TTL_SECONDS = 365 * 24 * 60 * 60;
export const IP_BLOCK_REASON_MAX = 500;
/** The 403 message of a request from a blocked address. */
export const ADDRESS_BLOCKED_MESSAGE = 'address blocked';
/** The body field that confirms a block covering the caller's own address. */
export const CONFIRM_OWN_ADDRESS_FIELD = 'confirm_own_address';

/** The 409 message of a block that would lock its caller out (sent without the confirmation). */
export function ownAddressBlockMessage(cidr: string, address: string): string {
  return `${cidr} covers your own address ${address}: every request from it would get 403 ${ADDRESS_BLOCKED_MESSAGE}. To block it anyway, send ${CONFIRM_OWN_ADDRESS_FIELD}: true`;
}

export const MaintenanceSettingSchema = Type.Object(
  {
    enabled: Type.Boolean(),
    message: Type.String({ description: 'The text of the 503 answers while enabled' }),
  },
  { $id: 'MaintenanceSetting' },
);
export type MaintenanceSetting = Static<typeof MaintenanceSettingSchema>;

export const UpdateMaintenanceRequest = Type.Object({
  enabled: Type.Boolean({ 'x-error': 'enabled must be true or false' }),
  message: Type.Optional(
    Type.String({
      maxLength: MAINTENANCE_MESSAGE_MAX,
      description: 'Omitted or empty: the default message',
      'x-error': `message must be at most ${MAINTENANCE_MESSAGE_MAX} characters`,
    }),
  ),
});
export type UpdateMaintenanceRequest = Static<typeof UpdateMaintenanceRequest>;

export const IpBlockSchema = Type.Object(
  {
    cidr: Type.String({ description: 'Network address and prefix length, e.g. 203.0.113.7/32 or 2001:db8::/48' }),
    reason: Type.Union([Type.String(), Type.Null()]),
    created_by: Type.String({ description: 'The administrator (user:<id> or token:<id>)' }),
    created_at: Timestamp,
    expires_at: NullableTimestamp,
  },
  { $id: 'IpBlock' },
);
export type IpBlockView = Static<typeof IpBlockSchema>;

export const CreatedIpBlockSchema = Type.Object({ cidr: Type.String(), expires_at: NullableTimestamp, reason: Type.Union([Type.String(), Type.Null()]) });
export type CreatedIpBlock = Static<typeof CreatedIpBlockSchema>;

export const CreateIpBlockRequest = Type.Object({
  cidr: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'An IPv4 or IPv6 address (a /32 or /128 network) or a CIDR network (normalised to its network address)',
    'x-error': 'cidr must be an IP address or CIDR network',
  }),
  reason: Type.Optional(Type.String({ maxLength: IP_BLOCK_REASON_MAX, 'x-error': `reason must be at most ${IP_BLOCK_REASON_MAX} characters` })),
  ttl_seconds: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: IP_BLOCK_MAX_TTL_SECONDS,
      description: 'Omitted: permanent',
      'x-error': `ttl_seconds must be an integer from 1 to ${IP_BLOCK_MAX_TTL_SECONDS}`,
    }),
  ),
  [CONFIRM_OWN_ADDRESS_FIELD]: Type.Optional(
    Type.Boolean({
      description: "true: block even when the network covers the caller's own address (without it such a block answers 409 and is not stored)",
      'x-error': `${CONFIRM_OWN_ADDRESS_FIELD} must be true or false`,
    }),
  ),
});
export type CreateIpBlockRequest = Static<typeof CreateIpBlockRequest>;

export const IpBlocksQuery = Type.Object({
  all: Type.Optional(Type.Boolean({ description: 'true: expired blocks too', 'x-error': 'all must be true or false' })),
});
export type IpBlocksQuery = Static<typeof IpBlocksQuery>;

export const DeleteIpBlockQuery = Type.Object({
  cidr: Type.String({ minLength: 1, maxLength: 100, 'x-error': 'cidr must be an IP address or CIDR network' }),
});
export type DeleteIpBlockQuery = Static<typeof DeleteIpBlockQuery>;
