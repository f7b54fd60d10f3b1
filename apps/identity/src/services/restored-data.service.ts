import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { AppDataEvents } from '@app/contracts';
import { MessageBus } from '@app/infra';
import { CsrfTokens } from './csrf-tokens.service.js';
import { SigningKeys } from './signing-keys.service.js';

/**
 * When a restore replaced identity's data (on any replica), every replica forgets what it
 * read of it: the signing keys and the CSRF secret are read again on next use.
 */
@Injectable()
export class RestoredData implements OnModuleInit, OnModuleDestroy {
  private unsubscribe?: () => void;

  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(SigningKeys) private readonly signingKeys: SigningKeys,
    @Inject(CsrfTokens) private readonly csrfTokens: CsrfTokens,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe(AppDataEvents.replaced('identity'), () => {
      this.signingKeys.invalidate();
      this.csrfTokens.forget();
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }
}
