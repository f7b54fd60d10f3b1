import { LoginRequest } from '@app/contracts';
import { contractCheck } from '@app/platform';
import { normalizeEmail } from '../../domain/email.js';

const checkBody = contractCheck(LoginRequest, { where: 'body property' });

/** POST /auth/login: send a code and a magic link to an invited address (the contract's LoginRequest). */
export class RequestLoginCommand {
  private constructor(
    readonly email: string,
    /** Client address (per-IP limit); null for callers other than the gateway. */
    readonly ip: string | null,
  ) {}

  static create(input: { body: unknown; ip?: string | null }): RequestLoginCommand {
    return new RequestLoginCommand(normalizeEmail(checkBody(input.body).email), input.ip || null);
  }
}
