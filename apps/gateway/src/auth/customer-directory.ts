import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { IdentityEvents, IdentityMessages, type CustomerInfo } from '@app/contracts';
import { MessageBus, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { TtlCache } from './ttl-cache.js';

/** Customers by id and by domain, cached like credentials (status changes reach us as events). */
@Injectable()
export class CustomerDirectory implements OnModuleInit, OnModuleDestroy {
  private readonly cache: TtlCache<string, CustomerInfo | null>;
  private unsubscribe?: () => void;

  constructor(
    private readonly bus: MessageBus,
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
  ) {
    this.cache = new TtlCache(50_000, config.credentialCacheSeconds * 1000);
  }

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe(IdentityEvents.customerChanged, ({ id, domain, previousDomain }) => {
      this.cache.delete(`id:${id}`);
      this.cache.delete(`domain:${domain}`);
      if (previousDomain) this.cache.delete(`domain:${previousDomain}`);
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  byId(id: string): Promise<CustomerInfo | null> {
    return this.cache.getOrLoad(`id:${id}`, () => this.bus.send(IdentityMessages.resolveCustomer, { id }));
  }

  byDomain(domain: string): Promise<CustomerInfo | null> {
    const normalised = domain.toLowerCase();
    return this.cache.getOrLoad(`domain:${normalised}`, () => this.bus.send(IdentityMessages.resolveCustomer, { domain: normalised }));
  }
}
