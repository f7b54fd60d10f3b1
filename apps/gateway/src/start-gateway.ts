import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { JsonLogger, type ServiceConfig } from '@app/infra';
import { GatewayModule } from './gateway.module.js';
import { GatewayHttpServer } from './http/gateway-http-server.js';

export interface RunningGateway {
  readonly app: INestApplicationContext;
  readonly port: number;
}

/**
 * Starts the gateway's Nest context and its HTTP server on `port` (0: any free port). Stopping
 * on a signal is the caller's: the gateway's own process (main.ts) or the standalone service.
 */
export async function startGateway(config: ServiceConfig, port = config.port): Promise<RunningGateway> {
  const app = await NestFactory.createApplicationContext(GatewayModule.register(config), { logger: new JsonLogger('gateway') });
  const bound = await app.get(GatewayHttpServer).listen(port);
  new JsonLogger('gateway').info('listening', { port: bound, public_url: config.publicUrl, node: process.version });
  return { app, port: bound };
}
