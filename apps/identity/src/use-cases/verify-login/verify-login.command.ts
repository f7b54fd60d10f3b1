import { CommonErrors } from '@app/contracts';
import { validEmail } from '../shared/validate.js';

/** POST /auth/verify: prove control of the address with the mailed 6-digit code. */
export class VerifyLoginCommand {
  private constructor(
    readonly email: string,
    readonly code: string,
    readonly ip: string | null,
  ) {}

  static create(input: { email: unknown; code: unknown; ip?: string | null }): VerifyLoginCommand {
    if (typeof input.code !== 'string' || !/^[0-9]{6}$/.test(input.code)) throw CommonErrors.invalid_request({ detail: 'code must be exactly 6 digits' });
    return new VerifyLoginCommand(validEmail(input.email), input.code, input.ip ?? null);
  }
}
