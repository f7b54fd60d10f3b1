/**
 * The magic-link pages share one shell: no inline script or style (the gateway's
 * Content-Security-Policy forbids them), one stylesheet served by the gateway under /assets/.
 * (The login page is built with the console: console/login.html.)
 */

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export interface PageInput {
  readonly title: string;
  /** Trusted HTML (escape every value that comes from a request or a database). */
  readonly body: string;
  /** data-page attribute of <body>: names the page (for its stylesheet and tests). */
  readonly page?: string;
}

/** The start of every page up to `</head>`: its title, stylesheets and deferred scripts (all same-origin files). */
export function pageHead(title: string, stylesheets: readonly string[], scripts: readonly string[] = []): string[] {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="same-origin">',
    `<title>${escapeHtml(title)}</title>`,
    ...stylesheets.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`),
    ...scripts.map((src) => `<script src="${escapeHtml(src)}" defer></script>`),
    '</head>',
  ];
}

export function renderPage(input: PageInput): string {
  return [
    ...pageHead(input.title, ['/assets/console.css']),
    `<body${input.page ? ` data-page="${escapeHtml(input.page)}"` : ''}>`,
    '<main>',
    input.body,
    '</main>',
    '</body>',
    '</html>',
    '',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

/**
 * GET /auth/magic: a confirmation page whose form POSTs the same link back. Mail scanners
 * that prefetch links only ever GET it, so the link survives until the person confirms.
 */
export function magicLinkConfirmationPage(query: { c: string; t: string }): string {
  const action = `/auth/magic?${new URLSearchParams({ c: query.c, t: query.t }).toString()}`;
  return renderPage({
    title: 'Confirm login',
    page: 'magic',
    body: [
      '<h1>Log in to the console</h1>',
      '<p>Confirm that you want to log in with the link from your email.</p>',
      `<form method="post" action="${escapeHtml(action)}">`,
      '<button type="submit" id="confirm">Log in</button>',
      '</form>',
      '<p class="hint">If you did not ask to log in, close this page.</p>',
    ].join('\n'),
  });
}

export function magicLinkFailedPage(): string {
  return renderPage({
    title: 'Login link not valid',
    page: 'magic-failed',
    body: [
      '<h1>This login link cannot be used</h1>',
      '<p>It is invalid, expired (links last 15 minutes) or already used.</p>',
      '<p><a href="/login">Ask for a new code</a></p>',
    ].join('\n'),
  });
}
