import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ServiceError } from '@app/contracts';
import { ConsoleApp } from './console-app.js';

/** The console's build served: index.html never cached, hashed assets cached a year, nothing else. */
describe('ConsoleApp', () => {
  let dir: string;
  let server: Server;
  let base: string;
  let app: ConsoleApp;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'console-app-'));
    await mkdir(join(dir, 'assets'));
    await writeFile(join(dir, 'index.html'), '<!doctype html><div id="app"></div><script type="module" src="/console/assets/index-Ab_9.js"></script>');
    await writeFile(join(dir, 'assets', 'index-Ab_9.js'), 'console.log(1)');
    await writeFile(join(dir, 'assets', 'index-Ab_9.js.map'), '{}');
    app = new ConsoleApp(dir);
    server = createServer((req, res) => {
      const path = req.url ?? '/';
      try {
        if (path.startsWith('/console/assets/')) app.serveAsset(res, path.slice('/console/assets/'.length), req.method === 'HEAD');
        else app.servePage(res, req.method === 'HEAD');
      } catch (err) {
        res.statusCode = ServiceError.is(err) ? err.status : 500;
        res.end(err instanceof Error ? err.message : String(err));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('answers index.html with the page headers and no-cache', async () => {
    const reply = await fetch(`${base}/console/devices/SN-1`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('cache-control')).toBe('no-cache');
    expect(reply.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await reply.text()).toContain('<div id="app">');
  });

  it('answers a hashed asset as immutable for a year, and 404 for anything it does not hold', async () => {
    const reply = await fetch(`${base}/console/assets/index-Ab_9.js`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(reply.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await reply.text()).toBe('console.log(1)');
    expect((await fetch(`${base}/console/assets/index-Ab_9.js.map`)).status).toBe(404);
    expect((await fetch(`${base}/console/assets/other-Ab_9.js`)).status).toBe(404);
  });

  it('answers 503 with what to do when the console is not built', async () => {
    const unbuilt = new ConsoleApp(join(dir, 'missing'));
    let thrown: unknown;
    try {
      unbuilt.servePage({} as never, false);
    } catch (err) {
      thrown = err;
    }
    expect(ServiceError.is(thrown) && { status: thrown.status, message: thrown.message }).toEqual({
      status: 503,
      message: 'the console is not built: run npm run build',
    });
  });
});
