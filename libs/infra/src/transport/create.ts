import type { CustomTransportStrategy } from '@nestjs/microservices';
import type { AppName } from '@app/contracts';
import type { ServiceConfig } from '../config/config.js';
import type { MessageBus } from './message-bus.js';

/** NATS when NATS_URL is set, otherwise the process-wide in-process broker. */
export function createMessageBus(config: ServiceConfig, app: AppName): MessageBus {
  throw new Error('not implemented yet');
}

/** The Nest server strategy an app listens with: NATS in queue group `<app>`, or the in-process broker. */
export function createMessageServer(config: ServiceConfig, app: AppName): CustomTransportStrategy {
  throw new Error('not implemented yet');
}
