import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { AppDataEvents, type CredentialKind, type CredentialStatus, IdentityEvents, IdentityMessages } from '@app/contracts';
import { MessageBus, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG, TtlCache } from '@app/platform';

const REVOKED: CredentialStatus = { active: false };

/**
 * Whether a token or session is still valid, and what it may do now (scopes, administrator
 * level, the session's customer). Answers come from identity and are cached for at most
 * CREDENTIAL_CACHE_SECONDS (<= 30 s: a revocation takes effect within 30 s). Broadcast events act at once on
 * every replica: `credentialRevoked` caches the refusal, `credentialChanged` (role change,
 * customer switch, demotion) drops the entry so the next request asks again. The TTL bounds
 * the delay if an event is missed.
 */
@Injectable()
export class CredentialStatusCache implements OnModuleInit, OnModuleDestroy {
  private readonly cache: TtlCache<string, CredentialStatus>;
  private readonly unsubscribe: Array<() => void> = [];

  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
  ) {
    this.cache = new TtlCache(100_000, config.credentialCacheSeconds * 1000);
  }

  onModuleInit(): void {
    this.unsubscribe.push(
      this.bus.subscribe(IdentityEvents.credentialRevoked, ({ kind, id }) => {
        this.cache.delete(key(kind, id));
        this.cache.set(key(kind, id), REVOKED);
      }),
      this.bus.subscribe(IdentityEvents.credentialChanged, ({ kind, id }) => {
        this.cache.delete(key(kind, id));
      }),
      // A restore replaced every token and session: every status is asked again.
      this.bus.subscribe(AppDataEvents.replaced('identity'), () => this.cache.clear()),
    );
  }

  onModuleDestroy(): void {
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
  }

  /** The status, cached; `fresh` asks identity again (e.g. an access cookie names another customer than the cached session). */
  status(kind: CredentialKind, id: string, options: { fresh?: boolean } = {}): Promise<CredentialStatus> {
    if (options.fresh) this.cache.delete(key(kind, id));
    return this.cache.getOrLoad(key(kind, id), () => this.bus.send(IdentityMessages.credentialStatus, { kind, id }));
  }

  async isActive(kind: CredentialKind, id: string): Promise<boolean> {
    return (await this.status(kind, id)).active;
  }
}

function key(kind: CredentialKind, id: string): string {
  return `${kind}:${id}`;
}
