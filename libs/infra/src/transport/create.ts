import type { CustomTransportStrategy } from '@nestjs/microservices';
import type { AppName } from '@app/contracts';
import type { ServiceConfig } from '../config/config.js';
import { InProcessMessageBus, InProcessServer } from './in-process.js';
import type { MessageBus } from './message-bus.js';
import { NatsMessageBus } from './nats-bus.js';
import { NatsMessageServer } from './nats-server.js';

export { IN_PROCESS_TRANSPORT, resetInProcessBroker } from './in-process.js';

/** One NATS bus (one connection) per process per app and NATS URL. */
const natsBuses = new Map<string, NatsMessageBus>();

/** NATS when NATS_URL is set, otherwise the process-wide in-process broker. */
export function createMessageBus(config: ServiceConfig, app: AppName): MessageBus {
  if (!config.natsUrl) return new InProcessMessageBus(app);
  const key = `${config.natsUrl}\u0000${app}`;
  let bus = natsBuses.get(key);
  if (!bus) {
    bus = new NatsMessageBus(config.natsUrl, app);
    natsBuses.set(key, bus);
  }
  return bus;
}

/** The Nest server strategy an app listens with: NATS in queue group `<app>`, or the in-process broker. */
export function createMessageServer(config: ServiceConfig, app: AppName): CustomTransportStrategy {
  return config.natsUrl ? new NatsMessageServer(config.natsUrl, app) : new InProcessServer(app);
}

/**
 * Drains and closes every NATS connection opened by createMessageBus (pending emits are
 * flushed). Call on shutdown, after the app's microservice is closed. A later
 * createMessageBus opens a fresh connection.
 */
export async function closeMessageBuses(): Promise<void> {
  const buses = [...natsBuses.values()];
  natsBuses.clear();
  await Promise.allSettled(buses.map((bus) => bus.close()));
}
