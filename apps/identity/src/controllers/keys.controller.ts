import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { IdentityMessages, type Jwks, type VerificationKeySet } from '@app/contracts';
import { SigningKeys } from '../services/signing-keys.service.js';

@Controller()
export class KeysController {
  constructor(@Inject(SigningKeys) private readonly keys: SigningKeys) {}

  /** GET /.well-known/jwks.json */
  @MessagePattern(IdentityMessages.jwks.pattern)
  jwks(): Promise<Jwks> {
    return this.keys.jwks();
  }

  /** The same public keys, for the gateway's local verification, and the ids of retired keys (older format). */
  @MessagePattern(IdentityMessages.verificationKeys.pattern)
  async verificationKeys(): Promise<VerificationKeySet> {
    return { ...(await this.keys.jwks()), retired: await this.keys.retiredKids() };
  }
}
