import { validEmail } from '../shared/validate.js';

/** POST /auth/login: send a code and a magic link to an invited address. */
export class RequestLoginCommand {
  private constructor(
    readonly email: string,
    /** Client address (per-IP limit); null for callers other than the gateway. */
    readonly ip: string | null,
  ) {}

  static create(input: { email: unknown; ip?: string | null }): RequestLoginCommand {
    return new RequestLoginCommand(validEmail(input.email), input.ip || null);
  }
}
