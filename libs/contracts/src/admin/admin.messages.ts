import type { EndpointCall } from '../endpoints/endpoint.js';
import { isUuid } from '../schemas.js';
import type { HealthHistory, HealthHistoryQuery, HealthPart, PartState, StatusDocument } from '../health/health.schemas.js';
import { defineEvent, defineMessage } from '../messages/message.js';
import type { AuditPage, AuditQuery, CustomerAuditQuery, SecurityEventIdParams, SecurityEventsQuery, SecurityEventView } from './admin.schemas.js';

/** One request-log entry: one per HTTP request, answered or abandoned by its client. */
export interface RequestLogEntry {
  readonly ts: string;
  readonly domain: string | null;
  readonly actor: string | null;
  readonly method: string;
  readonly route: string;
  readonly path: string;
  readonly status: number;
  readonly ip: string;
  readonly user_agent: string;
  readonly bytes_in: number;
  readonly bytes_out: number;
  readonly duration_ms: number;
  readonly request_id: string;
  /**
   * Why the gateway refused the request, where the security detectors need to tell it from
   * other refusals with the same status: REFUSAL_CUSTOMER_NOT_FOUND. Absent (or null) otherwise.
   */
  readonly refusal?: string | null;
}

/** A credential named a customer (`customer=`) it may not act on, or that does not exist: 404 `customer not found`. */
export const REFUSAL_CUSTOMER_NOT_FOUND = 'customer_not_found';

export interface RequestLogBatch {
  readonly entries: readonly RequestLogEntry[];
}

/** An audit entry: every change by people, tokens or administrators, with before and after. */
export interface AuditEntryInput {
  readonly ts: string;
  readonly domain: string | null;
  /** RequestContext.auditActor (`admin:` prefix when an administrator acts on another customer). */
  readonly actor: string;
  /** Dotted name such as `token.create`, `device.update`, `firmware.update`. */
  readonly action: string;
  readonly target_type: string;
  readonly target_id: string;
  readonly before: Record<string, unknown> | null;
  readonly after: Record<string, unknown> | null;
}

export type SecuritySeverity = 'info' | 'warn' | 'critical';

/** A security event as reported by an app; the admin app assigns id and notification state. */
export interface SecurityEventInput {
  readonly ts: string;
  readonly kind: string;
  readonly severity: SecuritySeverity;
  readonly ip: string | null;
  readonly domain: string | null;
  readonly detail: Record<string, unknown>;
}

/**
 * An audit entry or a security event relayed from the outbox of the app where it arose. `id`
 * (a UUID made there) makes storing it idempotent: the relay delivers at least once, the
 * admin app keeps the first copy of each id.
 */
export type RelayedRecord =
  | { readonly id: string; readonly kind: 'audit'; readonly payload: AuditEntryInput }
  | { readonly id: string; readonly kind: 'security_event'; readonly payload: SecurityEventInput };

/** The form of a delivery id (RelayedRecord.id, a request-log batch_id): a UUID, the database's uuid type. */
export function isDeliveryId(value: unknown): value is string {
  return isUuid(value);
}

export interface RelayedRecords {
  readonly records: readonly RelayedRecord[];
}

/** A gateway's request-log batch, acknowledged: `batch_id` (a UUID per batch) makes a resent batch a no-op. */
export interface AcknowledgedRequestLogBatch extends RequestLogBatch {
  readonly batch_id: string;
}

export interface HealthSample {
  readonly ts: string;
  readonly status: StatusDocument['status'];
  /** Each part's state at `ts` (absent from gateways older than the per-part history). */
  readonly parts?: Readonly<Partial<Record<HealthPart, PartState>>>;
}

export const AdminMessages = {
  healthHistory: defineMessage<EndpointCall<Record<string, never>, HealthHistoryQuery, undefined>, HealthHistory>('admin.health.history'),
  /** GET /admin/audit, GET /admin/security/events, POST /admin/security/events/{id}/ack. */
  listAudit: defineMessage<EndpointCall<Record<string, never>, AuditQuery, undefined>, AuditPage>('admin.audit.list'),
  /** GET /audit: the caller's customer's entries, administrators shown as SERVICE_ADMINISTRATOR. */
  listCustomerAudit: defineMessage<EndpointCall<Record<string, never>, CustomerAuditQuery, undefined>, AuditPage>('admin.audit.customer-list'),
  listSecurityEvents: defineMessage<EndpointCall<Record<string, never>, SecurityEventsQuery, undefined>, { items: SecurityEventView[] }>(
    'admin.security-events.list',
  ),
  ackSecurityEvent: defineMessage<EndpointCall<SecurityEventIdParams, Record<string, never>, undefined>, void>('admin.security-events.ack'),
  /** Outbox relays deliver audit entries and security events; the reply is the acknowledgement (then the rows go). */
  storeRecords: defineMessage<RelayedRecords, { stored: number }>('admin.records.store', { timeoutMs: 10_000 }),
  /** Gateways deliver request-log batches; the reply is the acknowledgement (until then the batch is kept for a retry). */
  storeRequestLog: defineMessage<AcknowledgedRequestLogBatch, { stored: number }>('admin.request-log.store', { byReference: true, timeoutMs: 10_000 }),
} as const;

export const AdminEvents = {
  /** Gateways send request-log entries in batches; one admin replica stores each batch. */
  requestLog: defineEvent<RequestLogBatch>('admin.request-log', 'queue', { byReference: true }),
  /** Any app records a change; one admin replica stores it (audit log). */
  audit: defineEvent<AuditEntryInput>('admin.audit', 'queue'),
  /** Any app reports a security event; critical ones are also mailed to the operators. */
  securityEvent: defineEvent<SecurityEventInput>('admin.security-event', 'queue'),
  /** A gateway's periodic /status evaluation, kept for /health/history. */
  healthSample: defineEvent<HealthSample>('admin.health-sample', 'queue'),
} as const;
