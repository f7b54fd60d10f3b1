import { Inject, Injectable } from '@nestjs/common';
import type { CorsOriginsOfAll } from '@app/contracts';
import { IdentityStore } from '../../repositories/identity.store.js';

/** Every origin an active customer allows (the gateway checks CORS preflights against it). */
@Injectable()
export class ListCorsOriginsUseCase {
  constructor(@Inject(IdentityStore) private readonly store: IdentityStore) {}

  async execute(): Promise<CorsOriginsOfAll> {
    return { origins: await this.store.repos.customers.corsOriginsOfActive() };
  }
}
