import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { IdentityEvents, IdentityMessages, type CredentialKind } from '@app/contracts';
import { MessageBus, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { TtlCache } from './ttl-cache.js';

/**
 * Whether a token or session is still valid. Answers come from identity and are cached for
 * at most CREDENTIAL_CACHE_SECONDS (<= 30 s: SPEC's revocation delay); revocation events drop
 * entries at once on every replica, the TTL bounds the delay if an event is missed.
 */
@Injectable()
export class CredentialStatusCache implements OnModuleInit, OnModuleDestroy {
  private readonly cache: TtlCache<string, boolean>;
  private unsubscribe?: () => void;

  constructor(
    private readonly bus: MessageBus,
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
  ) {
    this.cache = new TtlCache(100_000, config.credentialCacheSeconds * 1000);
  }

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe(IdentityEvents.credentialRevoked, ({ kind, id }) => {
      this.cache.set(`${kind}:${id}`, false);
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  isActive(kind: CredentialKind, id: string): Promise<boolean> {
    return this.cache.getOrLoad(`${kind}:${id}`, async () => (await this.bus.send(IdentityMessages.credentialStatus, { kind, id })).active);
  }
}
