import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectStatus } from './support/auth.js';
import type { HttpReply } from './support/http.js';
import { startRuntime, type Runtime } from './support/runtime.js';

/** The pages /login, /console and /docs (the documentation with the sandbox tokens). */

function expectPage(reply: HttpReply): string {
  expect(reply.status).toBe(200);
  expect(reply.contentType).toBe('text/html; charset=utf-8');
  const csp = reply.header('content-security-policy') ?? '';
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain('unsafe-inline');
  expect(reply.header('x-frame-options')).toBe('DENY');
  expect(reply.header('x-content-type-options')).toBe('nosniff');
  // No inline script or style: the only script is /assets/console.js.
  expect(reply.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  expect(reply.text).not.toMatch(/<style|\sstyle="|\son[a-z]+="/);
  return reply.text;
}

describe('pages', () => {
  let rt: Runtime;

  beforeAll(async () => {
    rt = await startRuntime();
  });
  afterAll(async () => {
    await rt?.stop();
  });

  it('GET /login: the email form and the code form, no credentials needed', async () => {
    const html = expectPage(await rt.http.get('/login'));
    expect(html).toContain('<form id="email-form"');
    expect(html).toContain('<form id="code-form"');
    expect(html).toContain('<script src="/assets/console.js" defer></script>');
  });

  it('GET /console: the console shell (its script asks /auth/me)', async () => {
    const html = expectPage(await rt.http.get('/console'));
    expect(html).toContain('data-page="console"');
    expect(html).toContain('id="logout"');
  });

  it('serves the script and the stylesheet; unknown assets are 404', async () => {
    const js = expectStatus(await rt.http.get('/assets/console.js'), 200);
    expect(js.contentType).toBe('text/javascript; charset=utf-8');
    expect(js.text).toContain("'/auth/verify'");
    expect(js.text).toContain("'X-CSRF-Token'");
    expect(expectStatus(await rt.http.get('/assets/console.css'), 200).contentType).toBe('text/css; charset=utf-8');
    expect((await rt.http.get('/assets/nothing.js')).status).toBe(404);
  });

  it('GET /docs: every operation of /openapi.json by area tag, and the sandbox tokens', async () => {
    const html = expectPage(await rt.http.get('/docs'));
    const openapi = (await rt.http.get('/openapi.json')).json<{ paths: Record<string, Record<string, unknown>> }>();
    for (const [path, methods] of Object.entries(openapi.paths)) {
      for (const method of Object.keys(methods))
        expect(html).toContain(`<span class="method">${method.toUpperCase()}</span> <code>${path.replaceAll('&', '&amp;')}</code>`);
    }
    for (const tag of ['Auth', 'Tokens', 'Members', 'Admin', 'Health']) expect(html).toContain(`<h2>${tag}</h2>`);
    expect(html).toContain('<h2>Sandbox</h2>');
    expect(html).toContain(rt.sandboxDomain);
    expect([...html.matchAll(/data-bundle="([a-z-]+)"/g)].map((m) => m[1]).sort()).toEqual(['full', 'read-only', 'uploader']);
  });

  it('the pages are in /openapi.json with the Auth and Health tags', async () => {
    const paths = (await rt.http.get('/openapi.json')).json<{ paths: Record<string, Record<string, { tags: string[] }>> }>().paths;
    expect(paths['/login'].get.tags).toEqual(['Auth']);
    expect(paths['/console'].get.tags).toEqual(['Auth']);
    expect(paths['/docs'].get.tags).toEqual(['Health']);
    expect(Object.keys(paths['/members']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths['/members/{email}']).sort()).toEqual(['delete', 'patch']);
    expect(Object.keys(paths['/auth/magic']).sort()).toEqual(['get', 'post']);
  });
});
