import { PALETTE_CSS, pageHead } from '@app/contracts';

/** The shell's styles, shared by the pages' stylesheets (the colours: the service's palette). */
export const SHELL_CSS = `${PALETTE_CSS}:root { font-family: system-ui, sans-serif; color: var(--ink); background: var(--paper); line-height: 1.45; }
body { margin: 0; }
.skip { position: absolute; left: -10000px; }
.skip:focus { left: 0.5rem; top: 0.5rem; background: var(--paper); padding: 0.3rem 0.6rem; }
header.site { background: var(--ink); padding: 0.5rem 1rem; }
header.site a { color: var(--paper); margin-right: 1rem; }
.content { max-width: 60rem; margin: 0 auto; padding: 1rem 1rem 3rem; }
h1 { font-size: 1.6rem; margin: 0.5rem 0; }
h2 { font-size: 1.25rem; margin-top: 2rem; }
a { color: var(--accent); }
.hint { color: var(--muted); font-size: 0.9rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.35rem 0.5rem; border-bottom: 1px solid var(--line); }
.visually-hidden { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0, 0, 0, 0); white-space: nowrap; border: 0; }
.error { color: var(--danger); }
`;

export interface ShellInput {
  readonly title: string;
  /** Trusted HTML (escape every value that comes from a request or a database). */
  readonly body: string;
  readonly stylesheets: readonly string[];
  readonly scripts?: readonly string[];
  /** The page's content wraps a renderer that marks its own main landmark (one per page). */
  readonly contentLandmark?: 'main' | 'none';
}

/**
 * The shell of the /health and /docs pages: stylesheets and scripts from /static/ only (the
 * Content-Security-Policy forbids inline ones), a skip link, and the links between the pages.
 */
export function renderShell(input: ShellInput): string {
  return [
    ...pageHead(input.title, input.stylesheets, input.scripts),
    '<body>',
    '<a class="skip" href="#content">Skip to content</a>',
    '<header class="site"><nav aria-label="Service pages"><a href="/health">Service health</a> <a href="/docs">API reference</a> <a href="/console">Console</a></nav></header>',
    input.contentLandmark === 'none' ? '<div id="content" class="content">' : '<main id="content" class="content">',
    input.body,
    input.contentLandmark === 'none' ? '</div>' : '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
