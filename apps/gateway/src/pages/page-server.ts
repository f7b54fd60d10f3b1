import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { ENDPOINTS, IdentityMessages, type SandboxTokens, ServiceError } from '@app/contracts';
import { JsonLogger, MessageBus, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG, TtlCache } from '@app/platform';
import { buildOpenApiDocument } from '../openapi/openapi-document.js';
import { CONSOLE_CSS, CONSOLE_JS } from './console-assets.js';
import { consolePage, loginPage } from './console-pages.js';
import { docsPage } from './docs-page.js';
import { sendHtml } from './page-headers.js';

const ASSETS: Readonly<Record<string, { body: string; type: string }>> = {
  'console.js': { body: CONSOLE_JS, type: 'text/javascript; charset=utf-8' },
  'console.css': { body: CONSOLE_CSS, type: 'text/css; charset=utf-8' },
};
const SANDBOX_CACHE_MS = 30_000;
const SANDBOX_TIMEOUT_MS = 2_000;

/**
 * The pages the gateway serves itself (endpoints with target `page`): /login, /console, /docs
 * and their /assets/. Static except /docs, rendered from the OpenAPI document and the sandbox's
 * public tokens (asked of identity, cached 30 s).
 */
@Injectable()
export class PageServer {
  private readonly logger = new JsonLogger('gateway');
  private readonly sandbox = new TtlCache<'sandbox', SandboxTokens | null>(1, SANDBOX_CACHE_MS);
  private readonly login = loginPage();
  private readonly console = consolePage();

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  async serve(req: IncomingMessage, res: ServerResponse, params: Record<string, unknown>, head: boolean): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/login') return sendHtml(res, 200, this.login, head);
    if (path === '/console') return sendHtml(res, 200, this.console, head);
    if (path === '/docs') return sendHtml(res, 200, await this.docs(), head);
    const asset = ASSETS[String(params.file ?? '')];
    if (!asset) throw ServiceError.notFound('unknown asset');
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
    const document = buildOpenApiDocument(ENDPOINTS, this.config.publicUrl) as Parameters<typeof docsPage>[0];
    return docsPage(document, sandbox, this.config.publicUrl);
  }
}
