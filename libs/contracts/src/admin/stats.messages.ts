import type { EndpointCall } from '../endpoints/endpoint.js';
import { defineMessage } from '../messages/message.js';
import type {
  AdminStatsEventsQuery,
  AdminStatsSummary,
  CustomerStatsEventsQuery,
  CustomerStatsSummary,
  CustomerStatsSummaryQuery,
  RequestLogPage,
  StatsSummaryQuery,
} from './stats.schemas.js';
import type { NoParams } from '../schemas.js';

/** Usage statistics and the request log, answered by the admin app. */
export const StatsMessages = {
  adminSummary: defineMessage<EndpointCall<NoParams, StatsSummaryQuery, undefined>, AdminStatsSummary>('admin.stats.summary'),
  adminEvents: defineMessage<EndpointCall<NoParams, AdminStatsEventsQuery, undefined>, RequestLogPage>('admin.stats.events'),
  customerSummary: defineMessage<EndpointCall<NoParams, CustomerStatsSummaryQuery, undefined>, CustomerStatsSummary>('admin.stats.customer-summary'),
  customerEvents: defineMessage<EndpointCall<NoParams, CustomerStatsEventsQuery, undefined>, RequestLogPage>('admin.stats.customer-events'),
} as const;
