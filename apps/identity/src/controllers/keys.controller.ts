import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { IdentityMessages, type Jwks } from '@app/contracts';
import { SigningKeys } from '../services/signing-keys.service.js';

@Controller()
export class KeysController {
  constructor(@Inject(SigningKeys) private readonly keys: SigningKeys) {}

  /** GET /.well-known/jwks.json */
  @MessagePattern(IdentityMessages.jwks.pattern)
  jwks(): Promise<Jwks> {
    return this.keys.jwks();
  }

  /** The same public keys, for the gateway's local verification. */
  @MessagePattern(IdentityMessages.verificationKeys.pattern)
  verificationKeys(): Promise<Jwks> {
    return this.keys.jwks();
  }
}
