import { AdminErrors } from './admin.errors.js';
import { defineEndpoint } from '../endpoints/endpoint.js';
import { StatsMessages } from './stats.messages.js';
import {
  AdminStatsEventsQuery,
  AdminStatsSummary,
  CustomerStatsEventsQuery,
  CustomerStatsSummary,
  CustomerStatsSummaryQuery,
  RequestLogPage,
  StatsSummaryQuery,
} from './stats.schemas.js';
import { NoParams } from '../schemas.js';

const COUNTERS = 'Daily counters, each defined in docs/api.md "Usage statistics"; a request shows within 30 s.';

/** Usage statistics and the request log: the operators' view of every customer, and each customer's own. */
export const statsEndpoints = [
  defineEndpoint({
    operationId: 'adminStatsSummary',
    method: 'GET',
    path: '/admin/stats/summary',
    tag: 'Admin',
    summary: 'Usage per day and per customer (requests no account can be charged for under `(none)`)',
    auth: { kind: 'principal', tenant: false, admin: 'read', notInSandbox: true },
    errorMode: 'json',
    params: NoParams,
    query: StatsSummaryQuery,
    body: { kind: 'none' },
    responses: { 200: { description: COUNTERS, schema: AdminStatsSummary } },
    errors: [AdminErrors.range_bound_invalid, AdminErrors.range_reversed, AdminErrors.range_too_long],
    target: { kind: 'message', message: StatsMessages.adminSummary, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
  defineEndpoint({
    operationId: 'adminStatsEvents',
    method: 'GET',
    path: '/admin/stats/events',
    tag: 'Admin',
    summary: 'The request log, newest first, with full addresses and user agents',
    auth: { kind: 'principal', tenant: false, admin: 'read', notInSandbox: true },
    errorMode: 'json',
    params: NoParams,
    query: AdminStatsEventsQuery,
    body: { kind: 'none' },
    responses: { 200: { description: 'Request-log entries', schema: RequestLogPage } },
    errors: [AdminErrors.range_bound_invalid, AdminErrors.range_reversed],
    target: { kind: 'message', message: StatsMessages.adminEvents, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
  defineEndpoint({
    operationId: 'statsSummary',
    method: 'GET',
    path: '/stats/summary',
    tag: 'Stats',
    summary: "The customer's usage per day",
    auth: { kind: 'principal', scope: 'stats:read', tenant: true },
    errorMode: 'json',
    params: NoParams,
    query: CustomerStatsSummaryQuery,
    body: { kind: 'none' },
    responses: { 200: { description: COUNTERS, schema: CustomerStatsSummary } },
    errors: [AdminErrors.range_bound_invalid, AdminErrors.range_reversed, AdminErrors.range_too_long],
    target: { kind: 'message', message: StatsMessages.customerSummary, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
  defineEndpoint({
    operationId: 'statsEvents',
    method: 'GET',
    path: '/stats/events',
    tag: 'Stats',
    summary: "The customer's access log, newest first; addresses cut to their network (IPv4 /24, IPv6 /48)",
    auth: { kind: 'principal', scope: 'stats:read', tenant: true },
    errorMode: 'json',
    params: NoParams,
    query: CustomerStatsEventsQuery,
    body: { kind: 'none' },
    responses: { 200: { description: 'Request-log entries of the customer', schema: RequestLogPage } },
    errors: [AdminErrors.range_bound_invalid, AdminErrors.range_reversed],
    target: { kind: 'message', message: StatsMessages.customerEvents, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
];
