import { Type } from '@sinclair/typebox';
import { defineEndpoint } from '../endpoints/endpoint.js';
import { JobMessages } from './jobs.messages.js';
import { JobSchema, JobsQuery } from './jobs.schemas.js';

/** The background jobs (mail, scheduled work) of whichever job runtime runs. */
export const jobEndpoints = [
  defineEndpoint({
    operationId: 'adminJobs',
    method: 'GET',
    path: '/admin/jobs',
    tag: 'Admin',
    summary: 'Background jobs, queued, running and recently finished, newest first',
    auth: { kind: 'principal', tenant: false, admin: 'read', notInSandbox: true },
    errorMode: 'json',
    params: Type.Object({}),
    query: JobsQuery,
    body: { kind: 'none' },
    responses: { 200: { description: 'Jobs', schema: Type.Object({ items: Type.Array(JobSchema) }) } },
    errors: [],
    target: { kind: 'message', message: JobMessages.list, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
];
