import { Type, type Static } from '@sinclair/typebox';
import { CustomerQuery, DayOrTimestamp, Limit, NullableTimestamp, Offset, Timestamp } from '../schemas.js';

/** An audit entry. `before`/`after` are {} where nothing existed before or after. */
export const AuditEntrySchema = Type.Object(
  {
    ts: Timestamp,
    domain: Type.Union([Type.String(), Type.Null()]),
    actor: Type.String({
      description:
        'user:<id>, token:<id>, system; administrator actions on another customer carry admin:. GET /audit shows administrators as `service administrator`.',
    }),
    actor_email: Type.Union([Type.String(), Type.Null()], {
      description: 'The email of the person behind a user:<id> actor (admin:user:<id> on GET /admin/audit) where known; null otherwise',
    }),
    action: Type.String({ description: 'Dotted name such as customer.update' }),
    target_type: Type.String(),
    target_id: Type.String(),
    before: Type.Object({}, { additionalProperties: true }),
    after: Type.Object({}, { additionalProperties: true }),
  },
  { $id: 'AuditEntry' },
);
export type AuditEntryView = Static<typeof AuditEntrySchema>;

/** How members of a customer see an administrator's action (docs/api.md "The audit log"). */
export const SERVICE_ADMINISTRATOR = 'service administrator';

/** A position in the audit log, `<milliseconds since 1970>-<entry number>`: the next_cursor of an earlier page. */
export const AUDIT_CURSOR_PATTERN = '^[0-9]{1,15}-[0-9]{1,18}$';

/** The filters and paging both audit lists take (GET /admin/audit, GET /audit). Every filter is an exact match. */
const AuditFilters = {
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Only entries of this action, e.g. `member.update`' })),
  actor: Type.Optional(
    Type.String({ minLength: 1, maxLength: 256, description: 'Only entries of this actor as listed, e.g. `user:<id>` or `admin:user:<id>`' }),
  ),
  target_type: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Only entries whose target is of this type, e.g. `device`' })),
  target_id: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Only entries of this target' })),
  from: Type.Optional(DayOrTimestamp('from', 'Earliest entry (a date alone: from its start, UTC)')),
  to: Type.Optional(DayOrTimestamp('to', 'Latest entry (a date alone: to its end, UTC)')),
  limit: Limit(1000, 100),
  offset: Offset,
  cursor: Type.Optional(
    Type.String({
      pattern: AUDIT_CURSOR_PATTERN,
      description: 'Only entries older than this position: the next_cursor of an earlier page (fast at any depth, unlike offset)',
      'x-error': 'cursor must be the next_cursor of an earlier page',
    }),
  ),
};

export const AuditQuery = Type.Object({
  domain: Type.Optional(Type.String({ minLength: 1, maxLength: 253, description: 'Only entries of this customer' })),
  ...AuditFilters,
});
export type AuditQuery = Static<typeof AuditQuery>;

export const CustomerAuditQuery = Type.Object({
  ...AuditFilters,
  customer: CustomerQuery,
});
export type CustomerAuditQuery = Static<typeof CustomerAuditQuery>;

/** A page of audit entries, newest first. */
export const AuditPage = Type.Object({
  items: Type.Array(AuditEntrySchema),
  next_offset: Type.Union([Type.Integer(), Type.Null()], { description: 'The offset of the next page (same other parameters); null on the last one' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'The cursor of the next page (send it instead of an offset, same filters); null on the last one',
  }),
});
export type AuditPage = Static<typeof AuditPage>;

export const SeveritySchema = Type.Union([Type.Literal('info'), Type.Literal('warn'), Type.Literal('critical')], {
  'x-error': 'severity must be info, warn or critical',
});

/** A security event with the id and notification state the admin app gave it. */
export const SecurityEventSchema = Type.Object(
  {
    id: Type.Integer(),
    ts: Timestamp,
    kind: Type.String(),
    severity: SeveritySchema,
    ip: Type.Union([Type.String(), Type.Null()]),
    domain: Type.Union([Type.String(), Type.Null()]),
    detail: Type.Object({}, { additionalProperties: true }),
    notified_at: NullableTimestamp,
    acked_at: NullableTimestamp,
    acked_by: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'SecurityEvent' },
);
export type SecurityEventView = Static<typeof SecurityEventSchema>;

export const SecurityEventsQuery = Type.Object({
  kind: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  severity: Type.Optional(SeveritySchema),
  unacked: Type.Optional(Type.Boolean({ 'x-error': 'unacked must be true or false' })),
  limit: Limit(1000, 100),
});
export type SecurityEventsQuery = Static<typeof SecurityEventsQuery>;

export const SecurityEventIdParams = Type.Object({ id: Type.Integer({ minimum: 1, 'x-error': 'id must be a positive integer' }) });
export type SecurityEventIdParams = Static<typeof SecurityEventIdParams>;
