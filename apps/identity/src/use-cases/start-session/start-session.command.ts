/** Start a console session for a person who proved control of their email (code or magic link). */
export class StartSessionCommand {
  private constructor(
    readonly userId: string,
    /** Client address, for the admin_login security event. */
    readonly ip: string | null,
    /** How the email was proved. */
    readonly method: 'code' | 'magic_link',
  ) {}

  static create(input: { userId: string; ip?: string | null; method?: 'code' | 'magic_link' }): StartSessionCommand {
    if (!input.userId) throw new Error('StartSessionCommand needs a user id');
    return new StartSessionCommand(input.userId, input.ip ?? null, input.method ?? 'code');
  }
}
