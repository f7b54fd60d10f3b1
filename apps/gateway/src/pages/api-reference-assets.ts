import { SHELL_CSS } from './page-shell.js';

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
