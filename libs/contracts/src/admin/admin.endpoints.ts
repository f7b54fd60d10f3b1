import { Type } from '@sinclair/typebox';
import { defineEndpoint } from '../endpoints/endpoint.js';
import { AdminMessages } from './admin.messages.js';
import { AuditEntrySchema, AuditQuery, SecurityEventIdParams, SecurityEventSchema, SecurityEventsQuery } from './admin.schemas.js';

const NoParams = Type.Object({});

/** SPEC "Administrator endpoints": the audit log and the security events (stored by the admin app). */
export const adminEndpoints = [
  defineEndpoint({
    operationId: 'adminAudit',
    method: 'GET',
    path: '/admin/audit',
    tag: 'Admin',
    summary: 'Audit log: every change with before and after, newest first',
    auth: { kind: 'principal', tenant: false, admin: 'read', notInSandbox: true },
    errorMode: 'json',
    params: NoParams,
    query: AuditQuery,
    body: { kind: 'none' },
    responses: { 200: { description: 'Audit entries', schema: Type.Object({ items: Type.Array(AuditEntrySchema) }) } },
    errors: [400, 401, 403, 503],
    target: { kind: 'message', message: AdminMessages.listAudit, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
  defineEndpoint({
    operationId: 'adminSecurityEvents',
    method: 'GET',
    path: '/admin/security/events',
    tag: 'Admin',
    summary: 'Security events, newest first',
    auth: { kind: 'principal', tenant: false, admin: 'read', notInSandbox: true },
    errorMode: 'json',
    params: NoParams,
    query: SecurityEventsQuery,
    body: { kind: 'none' },
    responses: { 200: { description: 'Security events', schema: Type.Object({ items: Type.Array(SecurityEventSchema) }) } },
    errors: [400, 401, 403, 503],
    target: { kind: 'message', message: AdminMessages.listSecurityEvents, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
  defineEndpoint({
    operationId: 'adminAckSecurityEvent',
    method: 'POST',
    path: '/admin/security/events/{id}/ack',
    tag: 'Admin',
    summary: 'Acknowledge a security event (sets acked_at and acked_by; idempotent)',
    auth: { kind: 'principal', tenant: false, admin: 'full', notInSandbox: true },
    errorMode: 'json',
    params: SecurityEventIdParams,
    body: { kind: 'none' },
    responses: { 204: { description: 'Acknowledged' } },
    errors: [400, 401, 403, 404, 503],
    target: { kind: 'message', message: AdminMessages.ackSecurityEvent, reply: () => ({ kind: 'empty', status: 204 }) },
  }),
];
