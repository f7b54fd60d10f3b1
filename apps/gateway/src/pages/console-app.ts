import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GatewayErrors } from '@app/contracts';
import { sendHtml } from './page-headers.js';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
};

/** Hashed file names never change content: browsers keep them a year without asking again. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

interface Asset {
  readonly body: Buffer;
  readonly type: string;
}

/** The project root: the nearest folder above this module holding package.json (same from dist/ and from the sources). */
function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json not found above the gateway');
    dir = parent;
  }
  return dir;
}

/** Where `npm run build` puts the console, the login page and the /docs start script. */
export function consoleBuildDir(): string {
  return join(projectRoot(), 'dist', 'console');
}

/**
 * The console: a single-page app that `npm run build` compiles from console/ into
 * dist/console/ (docs/console.md). Every /console path answers its index.html (the app routes
 * in the browser, so deep links survive a reload), never cached so a new build shows at once;
 * the files under /console/assets/ carry their content's hash in the name and are cached for a
 * year. Read once into memory: a few hundred kilobytes.
 */
export class ConsoleApp {
  private readonly index: string | null;
  /** GET /login: built from console/login.html by the same build (docs/console.md). */
  private readonly login: string | null;
  private readonly assets = new Map<string, Asset>();

  constructor(dir = consoleBuildDir()) {
    const indexPath = join(dir, 'index.html');
    this.index = existsSync(indexPath) ? readFileSync(indexPath, 'utf8') : null;
    const loginPath = join(dir, 'login.html');
    this.login = existsSync(loginPath) ? readFileSync(loginPath, 'utf8') : null;
    const assetDir = join(dir, 'assets');
    if (!existsSync(assetDir)) return;
    for (const name of readdirSync(assetDir)) {
      const type = CONTENT_TYPES[extname(name)];
      if (type) this.assets.set(name, { body: readFileSync(join(assetDir, name)), type });
    }
  }

  servePage(res: ServerResponse, head: boolean): void {
    if (this.index === null) throw GatewayErrors.console_not_built();
    sendHtml(res, 200, this.index, head, { 'Cache-Control': 'no-cache' });
  }

  /** The login page: like the console's pages, its script and stylesheet are the build's hashed assets. */
  serveLogin(res: ServerResponse, head: boolean): void {
    if (this.login === null) throw GatewayErrors.console_not_built();
    sendHtml(res, 200, this.login, head);
  }

  serveAsset(res: ServerResponse, file: string, head: boolean): void {
    const asset = this.assets.get(file);
    if (!asset) throw GatewayErrors.asset_not_found();
    res.statusCode = 200;
    res.setHeader('Content-Type', asset.type);
    res.setHeader('Content-Length', asset.body.length);
    res.setHeader('Cache-Control', IMMUTABLE);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.end(head ? undefined : asset.body);
  }
}
