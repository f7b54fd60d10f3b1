import { SHELL_CSS } from './page-shell.js';

/**
 * The start script of /docs (served from /static/, the page has no inline script): loads
 * /openapi.json into Swagger UI (swagger-ui-dist, served by the gateway too). "Try it" sends
 * requests to the page's own origin, the only one the Content-Security-Policy lets it reach;
 * the sandbox tokens' buttons put a token into Swagger UI's Bearer authorization. Plain ES2017.
 */
export const API_REFERENCE_INIT_JS = String.raw`'use strict';
(function () {
  var status = document.getElementById('reference-status');
  function say(text) { status.textContent = text; }
  fetch('/openapi.json', { credentials: 'same-origin', headers: { Accept: 'application/json' } })
    .then(function (res) {
      if (!res.ok) throw new Error('/openapi.json answered ' + res.status);
      return res.json();
    })
    .then(function (spec) {
      // Without servers, "Try it" uses this page's origin (and shows no unlabelled server picker).
      delete spec.servers;
      var ui = window.SwaggerUIBundle({
        spec: spec,
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
      new MutationObserver(labelControls).observe(document.getElementById('api-reference'), { childList: true, subtree: true });
      var buttons = document.querySelectorAll('button[data-use-token]');
      Array.prototype.forEach.call(buttons, function (button) {
        button.hidden = false;
        button.addEventListener('click', function () {
          ui.preauthorizeApiKey('bearer', button.getAttribute('data-use-token'));
          say('The ' + button.getAttribute('data-bundle') + ' sandbox token is set for "Try it out" (Authorize shows it).');
        });
      });
    })
    .catch(function (err) { say('The API reference could not be loaded: ' + err.message); });

  // Swagger UI leaves some controls without an accessible name and its example blocks scroll
  // without being reachable by keyboard: name them after their parameter, make them focusable.
  function labelControls() {
    var controls = document.querySelectorAll('#api-reference select:not([aria-label]), #api-reference input:not([aria-label]), #api-reference textarea:not([aria-label])');
    Array.prototype.forEach.call(controls, function (control) {
      if (control.labels && control.labels.length) return;
      var row = control.closest('tr[data-param-name]');
      var name = row ? row.getAttribute('data-param-name') : control.getAttribute('placeholder') || control.className || 'value';
      control.setAttribute('aria-label', name);
    });
    var blocks = document.querySelectorAll('#api-reference pre:not([tabindex])');
    Array.prototype.forEach.call(blocks, function (block) { block.setAttribute('tabindex', '0'); });
  }
})();
`;

/**
 * The page around the renderer (the renderer brings its own stylesheet), and the renderer's
 * colours changed where its own fail the 4.5:1 text contrast (method badges, buttons, labels,
 * numbers in highlighted examples, whose colour the renderer sets as a style property).
 */
export const API_REFERENCE_CSS = `${SHELL_CSS}.content { max-width: 90rem; }
.intro { max-width: 60rem; }
code { font-family: ui-monospace, monospace; font-size: 0.85rem; }
code.token { word-break: break-all; }
#sandbox table { margin: 0.5rem 0 1rem; }
#sandbox td { vertical-align: top; }
#sandbox button { font: inherit; padding: 0.25rem 0.6rem; cursor: pointer; white-space: nowrap; }
#sandbox summary { cursor: pointer; color: var(--accent); }
#sandbox details code { display: block; margin-top: 0.3rem; }
#reference-status { min-height: 1.2em; }
.swagger-ui .info { margin: 1rem 0; }
.swagger-ui .info .title small, .swagger-ui .info .title small pre { background: #4f5663; }
.swagger-ui .info .title small.version-stamp { background: #4d7200; }
.swagger-ui .opblock.opblock-get .opblock-summary-method, .swagger-ui .btn.execute { background: #1f6fc5; border-color: #1f6fc5; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #1d7a4f; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #a45a00; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #c62828; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0f7a66; }
.swagger-ui .opblock.opblock-head .opblock-summary-method { background: #9012fe; }
.swagger-ui .btn.authorize { color: #1d7a4f; border-color: #1d7a4f; }
.swagger-ui .btn.authorize svg { fill: #1d7a4f; }
.swagger-ui .btn.try-out__btn, .swagger-ui .btn.cancel { color: #c62828; border-color: #c62828; }
.swagger-ui .parameter__in, .swagger-ui .parameter__deprecated, .swagger-ui .prop-format { color: #555555; }
.swagger-ui .download-contents { background: #4f5663; }
.swagger-ui .microlight span[style*="rgb(211, 99, 99)"] { color: #ff9999 !important; }
`;
