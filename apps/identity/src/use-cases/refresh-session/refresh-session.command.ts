/** POST /auth/refresh (CSRF required) or the gateway's renewal of an expired access cookie (no CSRF). */
export class RefreshSessionCommand {
  private constructor(
    readonly refreshToken: string | null,
    readonly csrfToken: string | null,
    readonly requireCsrf: boolean,
    readonly ip: string | null,
    readonly userAgent: string,
  ) {}

  static create(input: { refreshToken: unknown; csrfToken?: unknown; requireCsrf: boolean; ip?: string | null; userAgent?: string }): RefreshSessionCommand {
    const token = typeof input.refreshToken === 'string' && /^[A-Za-z0-9_-]{16,128}$/.test(input.refreshToken) ? input.refreshToken : null;
    const csrf = typeof input.csrfToken === 'string' && input.csrfToken.length <= 256 ? input.csrfToken : null;
    return new RefreshSessionCommand(token, csrf, input.requireCsrf, input.ip ?? null, (input.userAgent ?? '').slice(0, 512));
  }
}
