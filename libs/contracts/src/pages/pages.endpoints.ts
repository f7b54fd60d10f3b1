import { Type } from '@sinclair/typebox';
import { GatewayErrors } from '../errors/gateway.errors.js';
import { NoParams } from '../schemas.js';
import { gatewayPage, html } from './gateway-page.js';

/**
 * The public health page and the files of the /docs and /health pages, served by the gateway
 * itself. The files are named by their content hash, so they are cached for a year and a new
 * version gets a new name.
 */
export const pageEndpoints = [
  gatewayPage({
    operationId: 'healthPage',
    path: '/health',
    tag: 'Health',
    summary: 'Public status page: the state of each part now and its daily uptime over the last 90 days (no JavaScript)',
    params: NoParams,
    responses: { 200: html('HTML page') },
  }),
  gatewayPage({
    operationId: 'errorCodesPage',
    path: '/docs/errors',
    tag: 'Health',
    summary:
      "Every error code the service answers (problem+json's `code`; its `type` links here): status, message or its pattern, the operations that may answer it",
    params: NoParams,
    responses: { 200: html('HTML page') },
  }),
  gatewayPage({
    operationId: 'pageFile',
    path: '/static/{file}',
    tag: 'Health',
    summary: 'A stylesheet or script of the /docs and /health pages, named by its content hash (cached for a year)',
    params: Type.Object({
      file: Type.String({
        pattern: '^[a-z0-9.-]+$',
        maxLength: 100,
        'x-error': 'unknown file',
        examples: ['health.0123456789ab.css'],
      }),
    }),
    responses: { 200: { description: 'JavaScript or CSS', contentType: 'text/css' } },
    errors: [GatewayErrors.page_file_not_found],
  }),
];
