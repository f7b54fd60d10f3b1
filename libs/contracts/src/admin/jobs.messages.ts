import type { EndpointCall } from '../endpoints/endpoint.js';
import { defineMessage } from '../messages/message.js';
import type { JobsQuery, JobView } from './jobs.schemas.js';

/** The background jobs of both runtimes, answered by the admin app (it reads the job queue directly). */
export const JobMessages = {
  list: defineMessage<EndpointCall<Record<string, never>, JobsQuery, undefined>, { items: JobView[] }>('admin.jobs.list'),
};
