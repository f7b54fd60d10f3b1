import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { type EndpointDef, ENDPOINTS, FirmwareMessages, IdentityMessages, type Jwks } from '@app/contracts';
import { MessageBus, METRICS_CONTENT_TYPE, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { DownloadServer } from '../downloads/download-server.js';
import { ServiceHealth } from '../health/service-health.js';
import { GatewayMetrics } from '../observability/metrics.js';
import { buildOpenApiDocument } from '../openapi/openapi-document.js';
import { PageServer } from '../pages/page-server.js';
import { sendJson, sendText } from './http-io.js';

export type GatewayHandler = Extract<EndpointDef['target'], { kind: 'gateway' }>['handler'];

/** The endpoints the gateway answers itself: health, status, metrics, this OpenAPI document, downloads and pages. */
@Injectable()
export class GatewayEndpoints {
  private openApiText?: string;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    private readonly downloads: DownloadServer,
    private readonly health: ServiceHealth,
    private readonly metrics: GatewayMetrics,
    private readonly pages: PageServer,
    private readonly bus: MessageBus,
  ) {}

  async serve(
    handler: GatewayHandler,
    req: IncomingMessage,
    res: ServerResponse,
    params: Record<string, unknown>,
    head: boolean,
    clientIp: string,
  ): Promise<void> {
    switch (handler) {
      case 'healthz':
        return sendText(res, 200, 'ok\n', 'text/plain; charset=utf-8', head);
      case 'readyz': {
        const readiness = await this.health.readiness();
        return sendJson(res, readiness.ready ? 200 : 503, readiness, head);
      }
      case 'status': {
        const status = await this.health.status();
        return sendJson(res, status.status === 'down' ? 503 : 200, status, head);
      }
      case 'metrics':
        return sendText(res, 200, await this.metrics.render(), METRICS_CONTENT_TYPE, head);
      case 'openapi':
        this.openApiText ??= JSON.stringify(buildOpenApiDocument(ENDPOINTS, this.config.publicUrl));
        return sendText(res, 200, this.openApiText, 'application/json', head);
      case 'download':
        return this.downloads.serve(req, res, String(params.token), clientIp);
      case 'page':
        return this.pages.serve(req, res, params, head);
      case 'jwks':
        res.setHeader('Cache-Control', 'public, max-age=300');
        return sendJson(res, 200, await this.jwks(), head);
    }
  }

  /** Identity's token keys and the firmware app's update-answer keys (distinct kids): both, or the request fails (503). */
  private async jwks(): Promise<Jwks> {
    const [tokens, answers] = await Promise.all([this.bus.send(IdentityMessages.jwks, {}), this.bus.send(FirmwareMessages.updateSigningJwks, {})]);
    return { keys: [...tokens.keys, ...answers.keys] };
  }
}
