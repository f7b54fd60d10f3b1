import { VerifyRequest } from '@app/contracts';
import { contractCheck } from '@app/platform';
import { normalizeEmail } from '../../domain/email.js';

const checkBody = contractCheck(VerifyRequest, { where: 'body property' });

/** POST /auth/verify: prove control of the address with the mailed 6-digit code (the contract's VerifyRequest). */
export class VerifyLoginCommand {
  private constructor(
    readonly email: string,
    readonly code: string,
    readonly ip: string | null,
  ) {}

  static create(input: { body: unknown; ip?: string | null }): VerifyLoginCommand {
    const body = checkBody(input.body);
    return new VerifyLoginCommand(normalizeEmail(body.email), body.code, input.ip ?? null);
  }
}
