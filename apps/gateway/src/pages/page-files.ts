import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { GatewayErrors } from '@app/contracts';
import { API_REFERENCE_CSS } from './api-reference-assets.js';
import { consoleBuildDir } from './console-app.js';
import { HEALTH_CSS } from './health-page-assets.js';

/** A file of the /docs and /health pages, served as /static/<name>.<hash>.<ext>. */
interface PageFile {
  readonly url: string;
  readonly type: string;
  readonly body: Buffer;
  /** Compressed on first request (the renderer's bundle shrinks from 1.7 MB to about 0.5 MB). */
  gzip?: Buffer;
}

const TYPES = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' } as const;

/** The API reference renderer's published files (npm swagger-ui-dist), read once at start. */
function rendererFile(name: string): Buffer {
  const root = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  // The bundles end with a source-map comment naming a file we do not serve.
  return Buffer.from(readFileSync(join(root, name), 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$|\n\/\*# sourceMappingURL=\S+ \*\/\s*$/, '\n'));
}

/**
 * A page's script built with the console (console/src/docs/api-reference.ts,
 * console/src/health/health.ts: type-checked with it and sharing its API code) into
 * dist/console/pages/; without a build, `unbuilt` (a script that says so, or nothing where the
 * page is complete without its script).
 */
function builtScript(name: string, unbuilt: string): Buffer {
  const path = join(consoleBuildDir(), 'pages', `${name}.js`);
  if (existsSync(path)) return readFileSync(path);
  return Buffer.from(unbuilt);
}

function pageFile(name: string, ext: keyof typeof TYPES, body: Buffer | string): PageFile {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 12);
  return { url: `/static/${name}.${hash}.${ext}`, type: TYPES[ext], body: bytes };
}

const FILES = {
  swaggerUiJs: pageFile('swagger-ui-bundle', 'js', rendererFile('swagger-ui-bundle.js')),
  swaggerUiCss: pageFile('swagger-ui', 'css', rendererFile('swagger-ui.css')),
  apiReferenceJs: pageFile(
    'api-reference',
    'js',
    builtScript('api-reference', `document.getElementById('reference-status').textContent = 'This page\u2019s script is not built: run npm run build.';\n`),
  ),
  apiReferenceCss: pageFile('api-reference', 'css', API_REFERENCE_CSS),
  healthCss: pageFile('health', 'css', HEALTH_CSS),
  healthJs: pageFile('health', 'js', builtScript('health', '// The /health script is not built (npm run build): the page shows the state as rendered.\n')),
} as const;
const BY_NAME = new Map(Object.values(FILES).map((file) => [file.url.slice('/static/'.length), file]));

/** The URL of each page file (content-hashed). */
export const PAGE_FILE_URLS: Readonly<Record<keyof typeof FILES, string>> = Object.fromEntries(
  Object.entries(FILES).map(([key, file]) => [key, file.url]),
) as Record<keyof typeof FILES, string>;

/** GET /static/{file}: a hashed name never changes content, so it may be cached for a year. */
export function servePageFile(req: IncomingMessage, res: ServerResponse, name: string, head: boolean): void {
  const file = BY_NAME.get(name);
  if (!file) throw GatewayErrors.page_file_not_found();
  const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  const body = gzip ? (file.gzip ??= gzipSync(file.body)) : file.body;
  res.statusCode = 200;
  res.setHeader('Content-Type', file.type);
  res.setHeader('Content-Length', body.length);
  if (gzip) res.setHeader('Content-Encoding', 'gzip');
  res.setHeader('Vary', 'Accept-Encoding');
  res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(head ? undefined : body);
}
