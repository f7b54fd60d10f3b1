import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { AppDataEvents, IdentityMessages, type VerificationKeySet } from '@app/contracts';
import { MessageBus } from '@app/infra';
import { importJWK, type CryptoKey } from 'jose';

const REFRESH_MS = 5 * 60_000;
/** An unknown kid triggers a reload at most this often (a forged kid cannot flood identity). */
const UNKNOWN_KID_RELOAD_MS = 5_000;

/**
 * Identity's public keys, fetched over the bus and kept, so tokens are verified locally; and
 * the ids of retired keys, whose tokens are answered as an older format.
 */
@Injectable()
export class VerificationKeys implements OnModuleInit, OnModuleDestroy {
  private keys = new Map<string, CryptoKey>();
  private retired = new Set<string>();
  private loadedAt = 0;
  private loading: Promise<void> | null = null;

  private unsubscribe?: () => void;

  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  onModuleInit(): void {
    // A restore replaced identity's signing keys: the next verification loads them again.
    this.unsubscribe = this.bus.subscribe(AppDataEvents.replaced('identity'), () => {
      this.loadedAt = 0;
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /** The key for `kid`, or null when identity does not publish it. */
  async get(kid: string): Promise<CryptoKey | null> {
    const now = Date.now();
    if (now - this.loadedAt > REFRESH_MS || (!this.keys.has(kid) && now - this.loadedAt > UNKNOWN_KID_RELOAD_MS)) {
      await this.reload();
    }
    return this.keys.get(kid) ?? null;
  }

  /** Whether `kid` named a key identity has taken out of service (as of the last load). */
  isRetired(kid: string): boolean {
    return this.retired.has(kid);
  }

  private reload(): Promise<void> {
    this.loading ??= this.bus
      .send(IdentityMessages.verificationKeys, {})
      .then(async (set: VerificationKeySet) => {
        const next = new Map<string, CryptoKey>();
        for (const jwk of set.keys) {
          if (jwk.alg !== 'EdDSA' || jwk.crv !== 'Ed25519') continue;
          next.set(jwk.kid, (await importJWK({ ...jwk }, 'EdDSA')) as CryptoKey);
        }
        this.keys = next;
        this.retired = new Set(set.retired ?? []);
        this.loadedAt = Date.now();
      })
      .finally(() => {
        this.loading = null;
      });
    return this.loading;
  }
}
