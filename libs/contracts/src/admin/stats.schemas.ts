import { Type, type Static } from '@sinclair/typebox';
import { CustomerQuery, DayOrTimestamp, Limit, Offset, Timestamp } from '../schemas.js';

/** The counters of one day (docs/api.md "Usage statistics" defines each). */
export const StatsDay = Type.Object({
  day: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
  requests: Type.Integer(),
  errors: Type.Integer(),
  firmware_uploads: Type.Integer(),
  logdata_uploads: Type.Integer(),
  firmware_downloads: Type.Integer(),
  notes_downloads: Type.Integer(),
  logdata_downloads: Type.Integer(),
  update_checks: Type.Integer(),
});
export type StatsDay = Static<typeof StatsDay>;

export const StatsCustomer = Type.Object({
  domain: Type.String({ description: 'The customer, or `(none)` for requests no account can be charged for' }),
  requests: Type.Integer(),
  errors: Type.Integer(),
  update_checks: Type.Integer(),
});
export type StatsCustomer = Static<typeof StatsCustomer>;

export const CustomerStatsSummary = Type.Object({
  from: Type.String({ description: 'First day counted (YYYY-MM-DD, UTC)' }),
  to: Type.String({ description: 'Last day counted (YYYY-MM-DD, UTC)' }),
  days: Type.Array(StatsDay),
});
export type CustomerStatsSummary = Static<typeof CustomerStatsSummary>;

export const AdminStatsSummary = Type.Object({
  from: Type.String({ description: 'First day counted (YYYY-MM-DD, UTC)' }),
  to: Type.String({ description: 'Last day counted (YYYY-MM-DD, UTC)' }),
  days: Type.Array(StatsDay),
  customers: Type.Array(StatsCustomer),
});
export type AdminStatsSummary = Static<typeof AdminStatsSummary>;

export const StatsSummaryQuery = Type.Object({
  from: Type.Optional(DayOrTimestamp('from', 'First day (default: 30 days ago)')),
  to: Type.Optional(DayOrTimestamp('to', 'Last day (default: today)')),
});
export type StatsSummaryQuery = Static<typeof StatsSummaryQuery>;

export const CustomerStatsSummaryQuery = Type.Object({
  ...StatsSummaryQuery.properties,
  customer: CustomerQuery,
});
export type CustomerStatsSummaryQuery = Static<typeof CustomerStatsSummaryQuery>;

const Status = Type.Integer({ minimum: 100, maximum: 999, 'x-error': 'status must be an integer from 100 to 999' });
const EventsCommon = {
  route: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Route pattern, e.g. `/firmware/{id}`' })),
  status: Type.Optional(Status),
  from: Type.Optional(DayOrTimestamp('from', 'Earliest entry (default: 7 days ago)')),
  to: Type.Optional(DayOrTimestamp('to', 'Latest entry (default: now)')),
  limit: Limit(1000, 100),
  offset: Offset,
};

export const AdminStatsEventsQuery = Type.Object({
  domain: Type.Optional(Type.String({ minLength: 1, maxLength: 253, description: 'Only entries of this customer (`(none)`: of no customer)' })),
  ip: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Only entries from this address' })),
  ...EventsCommon,
});
export type AdminStatsEventsQuery = Static<typeof AdminStatsEventsQuery>;

export const CustomerStatsEventsQuery = Type.Object({
  ...EventsCommon,
  customer: CustomerQuery,
});
export type CustomerStatsEventsQuery = Static<typeof CustomerStatsEventsQuery>;

/** A request-log entry as listed (customers see the address cut to its /24 or /48 network). */
export const RequestLogEntrySchema = Type.Object({
  ts: Timestamp,
  domain: Type.Union([Type.String(), Type.Null()]),
  actor: Type.Union([Type.String(), Type.Null()]),
  method: Type.String(),
  route: Type.String(),
  path: Type.String(),
  status: Type.Integer(),
  ip: Type.String(),
  user_agent: Type.String(),
  bytes_in: Type.Integer(),
  bytes_out: Type.Integer(),
  duration_ms: Type.Integer(),
  request_id: Type.String(),
});
export type RequestLogEntryView = Static<typeof RequestLogEntrySchema>;

export const RequestLogPage = Type.Object({
  items: Type.Array(RequestLogEntrySchema),
  next_offset: Type.Union([Type.Integer(), Type.Null()], { description: 'The offset of the next page; null on the last one' }),
});
export type RequestLogPage = Static<typeof RequestLogPage>;
