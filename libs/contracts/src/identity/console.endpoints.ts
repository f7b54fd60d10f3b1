import { Type } from '@sinclair/typebox';
import { defineEndpoint } from '../endpoints/endpoint.js';

const NoParams = Type.Object({});
const html = (description: string) => ({ description, contentType: 'text/html', schema: Type.String() });

/**
 * Pages served by the gateway itself (/console, /login, /docs), public: the documentation and
 * the login pages need no credentials. The console is a shell: its script asks
 * the API (/auth/me and friends) with the session cookies.
 */
export const consoleEndpoints = [
  defineEndpoint({
    operationId: 'loginPage',
    method: 'GET',
    path: '/login',
    tag: 'Auth',
    summary: 'Console login page (email, then the mailed code)',
    auth: { kind: 'public' },
    errorMode: 'json',
    params: NoParams,
    body: { kind: 'none' },
    responses: { 200: html('HTML page') },
    errors: [],
    target: { kind: 'gateway', handler: 'page' },
  }),
  defineEndpoint({
    operationId: 'consolePage',
    method: 'GET',
    path: '/console',
    tag: 'Auth',
    summary: 'The console (who is logged in, customer switch, logout)',
    auth: { kind: 'public' },
    errorMode: 'json',
    params: NoParams,
    body: { kind: 'none' },
    responses: { 200: html('HTML page; its script sends /login the way when there is no session') },
    errors: [],
    target: { kind: 'gateway', handler: 'page' },
  }),
  defineEndpoint({
    operationId: 'docsPage',
    method: 'GET',
    path: '/docs',
    tag: 'Health',
    summary: 'Documentation: the operations of /openapi.json by area, and the public sandbox tokens',
    auth: { kind: 'public' },
    errorMode: 'json',
    params: NoParams,
    body: { kind: 'none' },
    responses: { 200: html('HTML page') },
    errors: [],
    target: { kind: 'gateway', handler: 'page' },
  }),
  defineEndpoint({
    operationId: 'consoleAsset',
    method: 'GET',
    path: '/assets/{file}',
    tag: 'Auth',
    summary: "The pages' script and stylesheet",
    auth: { kind: 'public' },
    errorMode: 'json',
    params: Type.Object({ file: Type.String({ pattern: '^[a-z0-9-]+\\.(js|css)$', 'x-error': 'unknown asset' }) }),
    body: { kind: 'none' },
    responses: { 200: { description: 'JavaScript or CSS', contentType: 'text/javascript' } },
    errors: [404],
    target: { kind: 'gateway', handler: 'page' },
  }),
];
