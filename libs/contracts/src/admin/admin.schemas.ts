import { Type, type Static } from '@sinclair/typebox';
import { Limit, NullableTimestamp, Timestamp } from '../schemas.js';

/** An audit entry. `before`/`after` are {} where nothing existed before or after. */
export const AuditEntrySchema = Type.Object(
  {
    ts: Timestamp,
    domain: Type.Union([Type.String(), Type.Null()]),
    actor: Type.String({ description: 'user:<id>, token:<id>, system; administrator actions on another customer carry admin:' }),
    action: Type.String({ description: 'Dotted name such as customer.update' }),
    target_type: Type.String(),
    target_id: Type.String(),
    before: Type.Object({}, { additionalProperties: true }),
    after: Type.Object({}, { additionalProperties: true }),
  },
  { $id: 'AuditEntry' },
);
export type AuditEntryView = Static<typeof AuditEntrySchema>;

export const AuditQuery = Type.Object({
  domain: Type.Optional(Type.String({ minLength: 1, maxLength: 253, description: 'Only entries of this customer' })),
  limit: Limit(1000, 100),
});
export type AuditQuery = Static<typeof AuditQuery>;

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
