import { Type } from '@sinclair/typebox';
import { defineEndpoint } from '../endpoints/endpoint.js';

/**
 * The public health page and the files of the /docs and /health pages, served by the gateway
 * itself. The files are named by their content hash, so they are cached for a year and a new
 * version gets a new name.
 */
export const pageEndpoints = [
  defineEndpoint({
    operationId: 'healthPage',
    method: 'GET',
    path: '/health',
    tag: 'Health',
    summary: 'Public status page: the state of each part now and its daily uptime over the last 90 days (no JavaScript)',
    auth: { kind: 'public' },
    errorMode: 'json',
    params: Type.Object({}),
    body: { kind: 'none' },
    responses: { 200: { description: 'HTML page', contentType: 'text/html', schema: Type.String() } },
    errors: [],
    target: { kind: 'gateway', handler: 'page' },
  }),
  defineEndpoint({
    operationId: 'errorCodesPage',
    method: 'GET',
    path: '/docs/errors',
    tag: 'Health',
    summary:
      "Every error code the service answers (problem+json's `code`; its `type` links here): status, message or its pattern, the operations that may answer it",
    auth: { kind: 'public' },
    errorMode: 'json',
    params: Type.Object({}),
    body: { kind: 'none' },
    responses: { 200: { description: 'HTML page', contentType: 'text/html', schema: Type.String() } },
    errors: [],
    target: { kind: 'gateway', handler: 'page' },
  }),
  defineEndpoint({
    operationId: 'pageFile',
    method: 'GET',
    path: '/static/{file}',
    tag: 'Health',
    summary: 'A stylesheet or script of the /docs and /health pages, named by its content hash (cached for a year)',
    auth: { kind: 'public' },
    errorMode: 'json',
    params: Type.Object({
      file: Type.String({
        pattern: '^[a-z0-9.-]+$',
        maxLength: 100,
        'x-error': 'unknown file',
        examples: ['health.0123456789ab.css'],
      }),
    }),
    body: { kind: 'none' },
    responses: { 200: { description: 'JavaScript or CSS', contentType: 'text/css' } },
    errors: [400, 404],
    target: { kind: 'gateway', handler: 'page' },
  }),
];
