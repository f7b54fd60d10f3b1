import { GatewayErrors } from '../errors/gateway.errors.js';
import { AdminErrors } from '../admin/admin.errors.js';
import { Type } from '@sinclair/typebox';
import { AdminMessages } from '../admin/admin.messages.js';
import { defineEndpoint } from '../endpoints/endpoint.js';
import { HealthHistoryQuery, HealthHistorySchema, ReadinessSchema, StatusSchema } from './health.schemas.js';
import { NoParams } from '../schemas.js';

const tag = 'Health' as const;

export const healthEndpoints = [
  defineEndpoint({
    operationId: 'healthz',
    method: 'GET',
    path: '/healthz',
    tag,
    summary: 'Liveness of the gateway process',
    auth: { kind: 'public' },
    errorMode: 'json',
    body: { kind: 'none' },
    responses: { 200: { description: 'Alive', contentType: 'text/plain', schema: Type.String() } },
    errors: [],
    target: { kind: 'gateway', handler: 'healthz' },
  }),
  defineEndpoint({
    operationId: 'readyz',
    method: 'GET',
    path: '/readyz',
    tag,
    summary: 'Readiness: the gateway reaches the bus (database and object store reported, not deciding)',
    auth: { kind: 'public' },
    errorMode: 'json',
    body: { kind: 'none' },
    responses: { 200: { description: 'Ready', schema: ReadinessSchema }, 503: { description: 'Not ready', schema: ReadinessSchema } },
    errors: [],
    target: { kind: 'gateway', handler: 'readyz' },
  }),
  defineEndpoint({
    operationId: 'status',
    method: 'GET',
    path: '/status',
    tag,
    summary: 'Service status: ok, degraded (an app or the object store is down) or 503 without database',
    auth: { kind: 'public' },
    errorMode: 'json',
    body: { kind: 'none' },
    responses: { 200: { description: 'ok or degraded', schema: StatusSchema }, 503: { description: 'Database down', schema: StatusSchema } },
    errors: [],
    target: { kind: 'gateway', handler: 'status' },
  }),
  defineEndpoint({
    operationId: 'healthHistory',
    method: 'GET',
    path: '/health/history',
    tag,
    summary: 'Daily uptime history',
    auth: { kind: 'public' },
    errorMode: 'json',
    params: NoParams,
    query: HealthHistoryQuery,
    body: { kind: 'none' },
    responses: { 200: { description: 'One entry per day, newest first', schema: HealthHistorySchema } },
    errors: [AdminErrors.health_days_invalid],
    target: { kind: 'message', message: AdminMessages.healthHistory, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
  defineEndpoint({
    operationId: 'metrics',
    method: 'GET',
    path: '/metrics',
    tag,
    summary: 'Prometheus metrics (METRICS_TOKEN or an administrator credential)',
    auth: { kind: 'metrics' },
    errorMode: 'json',
    body: { kind: 'none' },
    responses: { 200: { description: 'Prometheus text format', contentType: 'text/plain; version=0.0.4' } },
    errors: [],
    target: { kind: 'gateway', handler: 'metrics' },
  }),
  defineEndpoint({
    operationId: 'openapi',
    method: 'GET',
    path: '/openapi.json',
    tag,
    summary: 'This document',
    auth: { kind: 'public' },
    errorMode: 'json',
    body: { kind: 'none' },
    responses: { 200: { description: 'OpenAPI 3.1 document', schema: Type.Object({ openapi: Type.String(), paths: Type.Object({}) }) } },
    errors: [],
    target: { kind: 'gateway', handler: 'openapi' },
  }),
];

export const downloadEndpoints = [
  ...(['GET', 'HEAD'] as const).map((method) =>
    defineEndpoint({
      operationId: method === 'GET' ? 'download' : 'downloadHead',
      method,
      path: '/dl/{token}',
      tag: 'Downloads' as const,
      summary: 'Signed 5-minute download link: the file (Range gives 206) or 302 to a 60-second pre-signed URL',
      auth: { kind: 'public' as const },
      errorMode: 'text' as const,
      params: Type.Object({ token: Type.String({ minLength: 1, maxLength: 4096 }) }),
      body: { kind: 'none' as const },
      responses: {
        200: { description: 'The file', contentType: 'application/octet-stream' },
        206: { description: 'The requested range', contentType: 'application/octet-stream' },
        302: { description: 'Redirect to a pre-signed object-store URL valid for 60 seconds' },
      },
      errors: [
        GatewayErrors.download_link_not_found,
        GatewayErrors.download_file_not_found,
        GatewayErrors.download_link_expired,
        GatewayErrors.range_not_satisfiable,
        GatewayErrors.downloads_rate_limited,
      ],
      target: { kind: 'gateway' as const, handler: 'download' as const },
    }),
  ),
];
