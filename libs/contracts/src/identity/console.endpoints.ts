import { Type } from '@sinclair/typebox';
import { defineEndpoint } from '../endpoints/endpoint.js';
import { NoParams } from '../schemas.js';

const html = (description: string) => ({ description, contentType: 'text/html', schema: Type.String() });

/** The console's deep links: a page (`/console/firmware`), an item (`/console/firmware/<id>`), an item's part. */
const ConsoleSection = Type.String({ pattern: '^[a-z][a-z0-9-]{0,31}$', 'x-error': 'unknown console page' });
const ConsoleItem = Type.String({ minLength: 1, maxLength: 256, 'x-error': 'unknown console page' });
const consoleApp = (operationId: string, path: string, params: ReturnType<typeof Type.Object>, summary: string) =>
  defineEndpoint({
    operationId,
    method: 'GET',
    path,
    tag: 'Auth',
    summary,
    auth: { kind: 'public' },
    errorMode: 'json',
    params,
    body: { kind: 'none' },
    responses: { 200: html("The console's index.html (the app routes in the browser; never cached, so a new build shows at once)") },
    errors: [],
    target: { kind: 'gateway', handler: 'page' },
  });

/**
 * Pages served by the gateway itself (/console, /login, /docs), public: the documentation and
 * the login pages need no credentials. The console is a single-page app built from console/
 * (docs/console.md): every /console path answers its index.html, and the app asks the API
 * with the session cookies.
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
    summary: 'The console: firmware, devices, fleet, log files, tags, tokens, members, usage (docs/console.md)',
    auth: { kind: 'public' },
    errorMode: 'json',
    params: NoParams,
    body: { kind: 'none' },
    responses: { 200: html("The console's index.html; its script sends /login the way when there is no session") },
    errors: [],
    target: { kind: 'gateway', handler: 'page' },
  }),
  consoleApp('consoleSectionPage', '/console/{section}', Type.Object({ section: ConsoleSection }), 'A console page (deep link)'),
  consoleApp('consoleItemPage', '/console/{section}/{item}', Type.Object({ section: ConsoleSection, item: ConsoleItem }), "A console page's item (deep link)"),
  consoleApp(
    'consoleItemPartPage',
    '/console/{section}/{item}/{part}',
    Type.Object({ section: ConsoleSection, item: ConsoleItem, part: ConsoleItem }),
    "Part of a console page's item (deep link)",
  ),
  defineEndpoint({
    operationId: 'consoleBundleAsset',
    method: 'GET',
    path: '/console/assets/{file}',
    tag: 'Auth',
    summary: "The console's built scripts and stylesheets, named by their content's hash (cached for a year)",
    auth: { kind: 'public' },
    errorMode: 'json',
    params: Type.Object({ file: Type.String({ pattern: '^[A-Za-z0-9_-]{1,100}\\.(js|css|svg|woff2)$', 'x-error': 'unknown asset' }) }),
    body: { kind: 'none' },
    responses: { 200: { description: 'JavaScript, CSS, SVG or a font', contentType: 'text/javascript' } },
    errors: [404],
    target: { kind: 'gateway', handler: 'page' },
  }),
  defineEndpoint({
    operationId: 'docsPage',
    method: 'GET',
    path: '/docs',
    tag: 'Health',
    summary: 'Interactive API reference rendered from /openapi.json (parameters, bodies, responses, examples, Try it out), with the public sandbox tokens',
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
