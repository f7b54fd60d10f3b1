/**
 * Medium-test support for the registry app: a bus that records what the app emits (audit
 * entries, deviceChanged) and answers nothing, and reference filtering of device lists.
 */
import { Test, type TestingModule } from '@nestjs/testing';
import { type ErrorCode, type EventDef, type MessageDef, ServiceError } from '@app/contracts';
import { MessageBus, ObjectStore, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { DataSource } from 'typeorm';
import { DevicesController } from '../../apps/registry/src/controllers/devices.controller.js';
import { RegistryController } from '../../apps/registry/src/controllers/registry.controller.js';
import { REGISTRY_CONTROLLERS, REGISTRY_PROVIDERS } from '../../apps/registry/src/registry.module.js';

export class RecordingBus extends MessageBus {
  readonly events: { subject: string; payload: any }[] = [];

  send<Req, Res>(message: MessageDef<Req, Res>): Promise<Res> {
    return Promise.reject(new Error(`the registry should not send ${message.pattern}`));
  }
  emit<P>(event: EventDef<P>, payload: P): void {
    this.events.push({ subject: event.subject, payload: JSON.parse(JSON.stringify(payload)) });
  }
  serve(): () => void {
    throw new Error('RecordingBus serves no messages');
  }

  subscribe(): () => void {
    return () => undefined;
  }
  of(subject: string): any[] {
    return this.events.filter((e) => e.subject === subject).map((e) => e.payload);
  }
  clear(): void {
    this.events.length = 0;
  }
}

export interface ModelDevice {
  hwid: string;
  tags: string[];
  status: 'active' | 'withdrawn';
  hasKeys: boolean;
}

export interface ModelFilter {
  tags?: string[];
  tagMode?: 'any' | 'all';
  q?: string;
  status?: 'active' | 'withdrawn';
  hasKeys?: boolean;
}

/** What GET /devices must answer, computed the obvious way: filter, then byte order. */
export function expectedHwids(devices: readonly ModelDevice[], filter: ModelFilter): string[] {
  const tags = filter.tags ?? [];
  return devices
    .filter((d) => (tags.length === 0 ? true : filter.tagMode === 'all' ? tags.every((t) => d.tags.includes(t)) : tags.some((t) => d.tags.includes(t))))
    .filter((d) => (filter.q ? d.hwid.startsWith(filter.q) : true))
    .filter((d) => (filter.status ? d.status === filter.status : true))
    .filter((d) => (filter.hasKeys === undefined ? true : d.hasKeys === filter.hasKeys))
    .map((d) => d.hwid)
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** The registry app's controllers and use cases on `dataSource` with the service's `config` (as InfraModule gives it), a test object store and bus. */
export async function registryModule(
  config: ServiceConfig,
  dataSource: DataSource,
  store: ObjectStore,
  bus: MessageBus,
): Promise<{ moduleRef: TestingModule; devices: DevicesController; registry: RegistryController }> {
  const moduleRef = await Test.createTestingModule({
    controllers: REGISTRY_CONTROLLERS,
    providers: [
      ...REGISTRY_PROVIDERS,
      { provide: SERVICE_CONFIG, useValue: config },
      { provide: DataSource, useValue: dataSource },
      { provide: ObjectStore, useValue: store },
      { provide: MessageBus, useValue: bus },
    ],
  }).compile();
  return { moduleRef, devices: moduleRef.get(DevicesController), registry: moduleRef.get(RegistryController) };
}

/** 'ok', or the code of the ServiceError the promise was refused with. */
export async function codeOf(promise: Promise<unknown>): Promise<ErrorCode | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    if (ServiceError.is(err)) return err.code;
    throw err;
  }
}
