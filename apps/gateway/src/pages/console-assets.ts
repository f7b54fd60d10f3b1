import { PALETTE_CSS } from '@app/contracts';

/**
 * The stylesheet of the magic-link pages (libs/contracts identity.pages.ts), served from
 * /assets/ (the Content-Security-Policy allows styles from the service's own origin only, none
 * inline). The login page is built with the console (console/login.html).
 */
export const CONSOLE_CSS = `${PALETTE_CSS}:root { font-family: system-ui, sans-serif; color: var(--ink); background: var(--wash); }
main { max-width: 56rem; margin: 2rem auto; padding: 0 1rem 3rem; }
h1 { font-size: 1.6rem; }
label { display: block; margin: 1rem 0 0.3rem; font-weight: 600; }
input { font: inherit; padding: 0.4rem 0.5rem; width: 20rem; max-width: 100%; }
button { font: inherit; margin-top: 0.8rem; padding: 0.4rem 0.9rem; cursor: pointer; }
button.link { background: none; border: none; padding: 0; color: var(--accent); text-decoration: underline; }
.error { color: var(--danger); min-height: 1.2em; }
.hint { color: var(--muted); font-size: 0.9rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.3rem 1rem; }
dt { font-weight: 600; }
table { border-collapse: collapse; width: 100%; margin: 0.5rem 0 1.5rem; }
th, td { text-align: left; padding: 0.3rem 0.5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
code { font-family: ui-monospace, monospace; font-size: 0.85rem; }
code.token { word-break: break-all; }
.method { font-weight: 700; font-family: ui-monospace, monospace; }
`;
