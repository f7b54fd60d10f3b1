import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { MAX_REQUEST_HEADER_BYTES } from '@app/contracts';
import type { ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { answerParserRefusal } from './parser-refusal.js';
import { RequestPipeline } from './request-pipeline.js';

/** The node:http server in front of the pipeline (no framework router: routes come from the declarations). */
@Injectable()
export class GatewayHttpServer implements OnApplicationShutdown {
  private server?: Server;

  constructor(
    private readonly pipeline: RequestPipeline,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async listen(port: number, host?: string): Promise<number> {
    const server = createServer(
      // The pipeline answers a missing Host itself, in the endpoint's error format.
      { keepAliveTimeout: 65_000, requestTimeout: 15 * 60_000, maxHeaderSize: MAX_REQUEST_HEADER_BYTES, requireHostHeader: false },
      (req, res) => this.pipeline.handle(req, res),
    );
    server.on('clientError', (err, socket) => answerParserRefusal(err, socket, this.config.publicUrl));
    // Expectations other than 100-continue are ignored (RFC 9110 allows it): the request is answered as usual.
    server.on('checkExpectation', (req, res) => this.pipeline.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    return (server.address() as AddressInfo).port;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), 2_000).unref();
    });
  }
}
