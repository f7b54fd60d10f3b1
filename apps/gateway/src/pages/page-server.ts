import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { ENDPOINTS, IdentityMessages, type SandboxTokens, GatewayErrors } from '@app/contracts';
import { JsonLogger, MessageBus, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG, TtlCache } from '@app/platform';
import { buildOpenApiDocument } from '../openapi/openapi-document.js';
import { CONSOLE_CSS } from './console-assets.js';
import { ConsoleApp } from './console-app.js';
import { API_REFERENCE_HEADERS, apiReferencePage } from './api-reference.js';
import { errorCodesPage } from './error-codes-page.js';
import { HealthPage } from './health-page.js';
import { servePageFile } from './page-files.js';
import { sendHtml } from './page-headers.js';

const ASSETS: Readonly<Record<string, { body: string; type: string }>> = {
  'console.css': { body: CONSOLE_CSS, type: 'text/css; charset=utf-8' },
};
const SANDBOX_CACHE_MS = 30_000;
const SANDBOX_TIMEOUT_MS = 2_000;

/**
 * The pages the gateway serves itself (endpoints with target `page`): /login, the console app
 * (ConsoleApp: /console and every path below it), /docs, /health and their /assets/ and
 * /static/ files. Static except /docs (the API reference, with the sandbox's public tokens asked
 * of identity, cached 30 s) and /health (health-page.ts).
 */
@Injectable()
export class PageServer {
  private readonly logger = new JsonLogger('gateway');
  private readonly sandbox = new TtlCache<'sandbox', SandboxTokens | null>(1, SANDBOX_CACHE_MS);
  private readonly console = new ConsoleApp();
  private errorCodes: string | undefined;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(MessageBus) private readonly bus: MessageBus,
    private readonly healthPage: HealthPage,
  ) {}

  async serve(req: IncomingMessage, res: ServerResponse, params: Record<string, unknown>, head: boolean): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/login') return this.console.serveLogin(res, head);
    // Only the asset route has `file`; a deeper /console/assets/... path is a deep link like any other.
    if (path.startsWith('/console/assets/') && params.file !== undefined) return this.console.serveAsset(res, String(params.file), head);
    if (path === '/console' || path.startsWith('/console/')) return this.console.servePage(res, head);
    if (path === '/docs') return sendHtml(res, 200, await this.docs(), head, API_REFERENCE_HEADERS);
    if (path === '/docs/errors') return sendHtml(res, 200, (this.errorCodes ??= errorCodesPage(ENDPOINTS)), head);
    if (path === '/health') return sendHtml(res, 200, await this.healthPage.render(), head);
    if (path.startsWith('/static/')) return servePageFile(req, res, String(params.file ?? ''), head);
    const asset = ASSETS[String(params.file ?? '')];
    if (!asset) throw GatewayErrors.asset_not_found();
    res.statusCode = 200;
    res.setHeader('Content-Type', asset.type);
    res.setHeader('Content-Length', Buffer.byteLength(asset.body));
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.end(head ? undefined : asset.body);
  }

  private async docs(): Promise<string> {
    let sandbox: SandboxTokens | null | 'unavailable';
    try {
      sandbox = await this.sandbox.getOrLoad('sandbox', () => this.bus.send(IdentityMessages.sandboxTokens, {}, { timeoutMs: SANDBOX_TIMEOUT_MS }));
    } catch (err) {
      this.logger.warn('sandbox tokens unavailable for /docs', { error: err instanceof Error ? err.message : String(err) });
      sandbox = this.config.sandboxDomain ? 'unavailable' : null;
    }
    const { info } = buildOpenApiDocument(ENDPOINTS, this.config.publicUrl) as { info: { title: string; version: string } };
    return apiReferencePage(info, sandbox, this.config.publicUrl);
  }
}
