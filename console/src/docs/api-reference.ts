import { describe, errorOf } from '../api/problem';

/**
 * The start script of /docs (the gateway serves it from /static/; the page has no inline
 * script): loads /openapi.json into Swagger UI (swagger-ui-dist, loaded before it by the page).
 * "Try it" sends requests to the page's own origin, the only one the Content-Security-Policy
 * lets it reach; the sandbox tokens' buttons put a token into Swagger UI's Bearer
 * authorization. Built by the console's build as a classic script (docs/console.md).
 */

/** What this page uses of Swagger UI's global. */
interface SwaggerUi {
  preauthorizeApiKey(name: string, value: string): void;
}
declare global {
  interface Window {
    SwaggerUIBundle: (options: Record<string, unknown>) => SwaggerUi;
    apiReference?: SwaggerUi;
  }
}

const status = document.getElementById('reference-status');
const reference = document.getElementById('api-reference');

function say(text: string): void {
  if (status) status.textContent = text;
}

/**
 * Swagger UI leaves some controls without an accessible name and its example blocks scroll
 * without being reachable by keyboard: name them after their parameter, make them focusable.
 */
function labelControls(): void {
  const controls = document.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(
    '#api-reference select:not([aria-label]), #api-reference input:not([aria-label]), #api-reference textarea:not([aria-label])',
  );
  for (const control of controls) {
    if (control.labels && control.labels.length) continue;
    const row = control.closest('tr[data-param-name]');
    const name = row ? row.getAttribute('data-param-name') : control.getAttribute('placeholder') || control.className || 'value';
    control.setAttribute('aria-label', name ?? 'value');
  }
  for (const block of document.querySelectorAll('#api-reference pre:not([tabindex])')) block.setAttribute('tabindex', '0');
}

async function start(): Promise<void> {
  const response = await fetch('/openapi.json', { credentials: 'same-origin', headers: { Accept: 'application/json' } });
  if (!response.ok) throw await errorOf(response);
  const spec = (await response.json()) as { servers?: unknown };
  // Without servers, "Try it" uses this page's origin (and shows no unlabelled server picker).
  delete spec.servers;
  const ui = window.SwaggerUIBundle({
    spec,
    dom_id: '#api-reference',
    deepLinking: false,
    docExpansion: 'list',
    defaultModelsExpandDepth: -1,
    defaultModelRendering: 'example',
    displayOperationId: false,
    displayRequestDuration: true,
    filter: true,
    persistAuthorization: false,
    tryItOutEnabled: false,
    validatorUrl: null,
    supportedSubmitMethods: ['get', 'put', 'post', 'delete', 'patch', 'head'],
  });
  window.apiReference = ui;
  say('');
  labelControls();
  if (reference) new MutationObserver(labelControls).observe(reference, { childList: true, subtree: true });
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-use-token]')) {
    button.hidden = false;
    button.addEventListener('click', () => {
      ui.preauthorizeApiKey('bearer', button.getAttribute('data-use-token') ?? '');
      say(`The ${button.getAttribute('data-bundle') ?? ''} sandbox token is set for "Try it out" (Authorize shows it).`);
    });
  }
}

start().catch((error: unknown) => say(`The API reference could not be loaded: ${describe(error)}`));
