import { validEmail } from '../shared/validate.js';

/** POST /auth/login: send a code and a magic link to an invited address. */
export class RequestLoginCommand {
  private constructor(readonly email: string) {}

  static create(input: { email: unknown }): RequestLoginCommand {
    return new RequestLoginCommand(validEmail(input.email));
  }
}
