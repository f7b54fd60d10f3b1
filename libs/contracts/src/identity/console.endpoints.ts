import { Type } from '@sinclair/typebox';
import { GatewayErrors } from '../errors/gateway.errors.js';
import { gatewayPage, html } from '../pages/gateway-page.js';
import { NoParams } from '../schemas.js';

/** The console's deep links: a page (`/console/firmware`), an item (`/console/firmware/<id>`), an item's part. */
const ConsoleSection = Type.String({ pattern: '^[a-z][a-z0-9-]{0,31}$', 'x-error': 'unknown console page' });
const ConsoleItem = Type.String({ minLength: 1, maxLength: 256, 'x-error': 'unknown console page' });
const consoleApp = (operationId: string, path: string, params: ReturnType<typeof Type.Object>, summary: string) =>
  gatewayPage({
    operationId,
    path,
    tag: 'Auth',
    summary,
    params,
    responses: { 200: html("The console's index.html (the app routes in the browser; never cached, so a new build shows at once)") },
  });

/**
 * Pages served by the gateway itself (/console, /login, /docs), public: the documentation and
 * the login pages need no credentials. The console is a single-page app built from console/
 * (docs/console.md): every /console path answers its index.html, and the app asks the API
 * with the session cookies.
 */
export const consoleEndpoints = [
  gatewayPage({
    operationId: 'loginPage',
    path: '/login',
    tag: 'Auth',
    summary: 'Console login page (email, then the mailed code)',
    params: NoParams,
    responses: { 200: html('HTML page') },
  }),
  gatewayPage({
    operationId: 'consolePage',
    path: '/console',
    tag: 'Auth',
    summary: 'The console: firmware, devices, fleet, log files, tags, tokens, members, usage (docs/console.md)',
    params: NoParams,
    responses: { 200: html("The console's index.html; its script sends /login the way when there is no session") },
  }),
  consoleApp('consoleSectionPage', '/console/{section}', Type.Object({ section: ConsoleSection }), 'A console page (deep link)'),
  consoleApp('consoleItemPage', '/console/{section}/{item}', Type.Object({ section: ConsoleSection, item: ConsoleItem }), "A console page's item (deep link)"),
  consoleApp(
    'consoleItemPartPage',
    '/console/{section}/{item}/{part}',
    Type.Object({ section: ConsoleSection, item: ConsoleItem, part: ConsoleItem }),
    "Part of a console page's item (deep link)",
  ),
  gatewayPage({
    operationId: 'consoleBundleAsset',
    path: '/console/assets/{file}',
    tag: 'Auth',
    summary: "The console's built scripts and stylesheets, named by their content's hash (cached for a year)",
    params: Type.Object({ file: Type.String({ pattern: '^[A-Za-z0-9_-]{1,100}\\.(js|css|svg|woff2)$', 'x-error': 'unknown asset' }) }),
    responses: { 200: { description: 'JavaScript, CSS, SVG or a font', contentType: 'text/javascript' } },
    errors: [GatewayErrors.asset_not_found],
  }),
  gatewayPage({
    operationId: 'docsPage',
    path: '/docs',
    tag: 'Health',
    summary: 'Interactive API reference rendered from /openapi.json (parameters, bodies, responses, examples, Try it out), with the public sandbox tokens',
    params: NoParams,
    responses: { 200: html('HTML page') },
  }),
  gatewayPage({
    operationId: 'consoleAsset',
    path: '/assets/{file}',
    tag: 'Auth',
    summary: "The pages' script and stylesheet",
    params: Type.Object({ file: Type.String({ pattern: '^[a-z0-9-]+\\.(js|css)$', 'x-error': 'unknown asset' }) }),
    responses: { 200: { description: 'JavaScript or CSS', contentType: 'text/javascript' } },
    errors: [GatewayErrors.asset_not_found],
  }),
];
