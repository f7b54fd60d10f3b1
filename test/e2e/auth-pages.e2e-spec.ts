import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectStatus } from './support/auth.js';
import type { HttpReply } from './support/http.js';
import { startRuntime, type Runtime } from './support/runtime.js';

/** The pages /login, /console and /docs (the API reference with the sandbox tokens); /health is in health.e2e-spec.ts. */

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
  // No inline script or style: scripts come from /assets/ or /static/.
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
    // Built with the console (console/login.html): its script and stylesheet are hashed /console/assets/ files.
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets.map((a) => a.split('.').pop()).sort()).toEqual(['css', 'js']);
    for (const asset of assets) {
      const reply = expectStatus(await rt.http.get(asset), 200);
      expect(reply.header('cache-control')).toBe('public, max-age=31536000, immutable');
    }
    const script = (await rt.http.get(assets.find((a) => a.endsWith('.js'))!)).text;
    expect(script).toContain('/auth/verify');
  });

  it('GET /console and every /console/... deep link: the console app (docs/console.md), never cached; its hashed assets cached a year', async () => {
    for (const path of ['/console', '/console/firmware', '/console/firmware/00000000-0000-4000-8000-000000000000', '/console/devices/SN%2F1/preview']) {
      const reply = await rt.http.get(path);
      const html = expectPage(reply);
      expect(reply.header('cache-control')).toBe('no-cache');
      expect(html).toContain('<div id="app">');
    }
    const html = (await rt.http.get('/console')).text;
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets.map((a) => a.split('.').pop()).sort()).toEqual(['css', 'js']);
    for (const asset of assets) {
      const reply = expectStatus(await rt.http.get(asset), 200);
      expect(reply.header('cache-control')).toBe('public, max-age=31536000, immutable');
    }
    expect((await rt.http.get('/console/assets/nothing-AAAAAAAA.js')).status).toBe(404);
  });

  it("serves the magic-link pages' stylesheet; unknown assets (the old login script among them) are 404", async () => {
    expect((await rt.http.get('/assets/console.js')).status).toBe(404);
    expect(expectStatus(await rt.http.get('/assets/console.css'), 200).contentType).toBe('text/css; charset=utf-8');
    expect((await rt.http.get('/assets/nothing.js')).status).toBe(404);
  });

  it('GET /docs: the API reference renderer and its start script from /static/, and the sandbox tokens', async () => {
    const reply = await rt.http.get('/docs');
    const html = expectPage(reply);
    // The renderer's stylesheet draws its icons as data: images; nothing else is relaxed.
    expect(reply.header('content-security-policy')).toContain("img-src 'self' data:;");
    const scripts = [...html.matchAll(/<script src="([^"]+)" defer><\/script>/g)].map((m) => m[1]);
    expect(scripts).toEqual([
      expect.stringMatching(/^\/static\/swagger-ui-bundle\.[0-9a-f]{12}\.js$/),
      expect.stringMatching(/^\/static\/api-reference\.[0-9a-f]{12}\.js$/),
    ]);
    const styles = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((m) => m[1]);
    expect(styles).toEqual([
      expect.stringMatching(/^\/static\/swagger-ui\.[0-9a-f]{12}\.css$/),
      expect.stringMatching(/^\/static\/api-reference\.[0-9a-f]{12}\.css$/),
    ]);
    for (const file of [...scripts, ...styles]) {
      const served = expectStatus(await rt.http.get(file), 200);
      expect(served.header('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(served.contentType).toBe(file.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8');
    }
    // Built with the console (console/src/docs/api-reference.ts): loads /openapi.json into Swagger UI.
    const start = expectStatus(await rt.http.get(scripts[1]), 200).text;
    expect(start).toContain('/openapi.json');
    expect(start).toContain('SwaggerUIBundle');
    expect(html).toContain('<div id="api-reference"></div>');
    expect(html).toContain('<a href="/health">service health</a>');
    expect(html).toContain('<h2 id="sandbox-title">Sandbox</h2>');
    expect(html).toContain(rt.sandboxDomain);
    expect([...html.matchAll(/<code class="token" data-bundle="([a-z-]+)"/g)].map((m) => m[1]).sort()).toEqual(['full', 'read-only', 'uploader']);
    expect([...html.matchAll(/<button type="button" hidden data-use-token="[^"]+" data-bundle="([a-z-]+)"/g)].map((m) => m[1]).sort()).toEqual([
      'full',
      'read-only',
      'uploader',
    ]);
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
