import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { AppDataEvents, IdentityEvents, IdentityMessages, type CustomerInfo } from '@app/contracts';
import { MessageBus, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '../tokens.js';
import { TtlCache } from './ttl-cache.js';

/**
 * Customers by id and by domain (IdentityMessages.resolveCustomer), cached like credentials
 * for CREDENTIAL_CACHE_SECONDS; status and domain changes reach every process as
 * IdentityEvents.customerChanged and drop the entries at once. Used by the gateway (token
 * customers, `customer=`) and by the firmware app's update check (customer by domain).
 * Also the union of every active customer's cors_origins (preflights), cached and dropped the
 * same way.
 */
@Injectable()
export class CustomerDirectory implements OnModuleInit, OnModuleDestroy {
  private readonly cache: TtlCache<string, CustomerInfo | null>;
  private readonly allOrigins: TtlCache<'all', ReadonlySet<string>>;
  private readonly unsubscribe: Array<() => void> = [];

  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
  ) {
    this.cache = new TtlCache(50_000, config.credentialCacheSeconds * 1000);
    this.allOrigins = new TtlCache(1, config.credentialCacheSeconds * 1000);
  }

  onModuleInit(): void {
    this.unsubscribe.push(
      this.bus.subscribe(IdentityEvents.customerChanged, ({ id, domain, previousDomain }) => {
        this.cache.delete(`id:${id}`);
        this.cache.delete(`domain:${domain}`);
        if (previousDomain) this.cache.delete(`domain:${previousDomain}`);
        this.allOrigins.delete('all');
      }),
      // A restore replaced every customer: everything goes.
      this.bus.subscribe(AppDataEvents.replaced('identity'), () => {
        this.cache.clear();
        this.allOrigins.clear();
      }),
    );
  }

  onModuleDestroy(): void {
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
  }

  byId(id: string): Promise<CustomerInfo | null> {
    return this.cache.getOrLoad(`id:${id}`, () => this.bus.send(IdentityMessages.resolveCustomer, { id }));
  }

  /** The customer of a domain; a cached answer comes back as it is (the update check asks on every request). */
  byDomain(domain: string): CustomerInfo | null | Promise<CustomerInfo | null> {
    const normalised = domain.toLowerCase();
    return this.cache.valueOrLoad(`domain:${normalised}`, () => this.bus.send(IdentityMessages.resolveCustomer, { domain: normalised }));
  }

  /** Every origin some active customer allows, lower-cased; a cached answer comes back as it is. */
  corsOriginsOfAll(): ReadonlySet<string> | Promise<ReadonlySet<string>> {
    return this.allOrigins.valueOrLoad('all', async () => {
      const { origins } = await this.bus.send(IdentityMessages.corsOriginsOfAll, {});
      return new Set(origins.map((o) => o.toLowerCase()));
    });
  }
}
