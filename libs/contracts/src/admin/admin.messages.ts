import type { EndpointCall } from '../endpoints/endpoint.js';
import type { HealthHistory, HealthHistoryQuery, StatusDocument } from '../health/health.schemas.js';
import { defineEvent, defineMessage } from '../messages/message.js';

/** SPEC "Request-log entry". */
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
}

export interface RequestLogBatch {
  readonly entries: readonly RequestLogEntry[];
}

export interface HealthSample {
  readonly ts: string;
  readonly status: StatusDocument['status'];
}

export const AdminMessages = {
  healthHistory: defineMessage<EndpointCall<Record<string, never>, HealthHistoryQuery, undefined>, HealthHistory>('admin.health.history'),
} as const;

export const AdminEvents = {
  /** Gateways send request-log entries in batches; one admin replica stores each batch. */
  requestLog: defineEvent<RequestLogBatch>('admin.request-log', 'queue'),
  /** A gateway's periodic /status evaluation, kept for /health/history. */
  healthSample: defineEvent<HealthSample>('admin.health-sample', 'queue'),
} as const;
