/** The fixed login limits (docs/api.md "Logging in", "Limits and errors"), in one place. */
export const LOGIN_CODE_TTL_MS = 15 * 60 * 1000;
export const LOGIN_CODES_PER_HOUR = 5;
export const LOGIN_RATE_WINDOW_MS = 60 * 60 * 1000;
export const LOGIN_MAX_WRONG_GUESSES = 5;

export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const SESSION_IDLE_LIMIT_MS = 12 * 60 * 60 * 1000;
export const SESSION_TOTAL_LIMIT_SECONDS = 7 * 24 * 60 * 60;

export const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A token's last_used_at is written at most once per this interval per replica (the gateway
 * asks about a token at most once per CREDENTIAL_CACHE_SECONDS anyway).
 */
export const TOKEN_LAST_USED_FLUSH_MS = 5 * 1000;

/**
 * The sandbox's public tokens (SANDBOX_DOMAIN) live 365 days and are issued again at start-up
 * when one is missing, revoked, signed by a key no longer published, issued for another
 * PUBLIC_URL, or expires within SANDBOX_TOKEN_RENEW_DAYS.
 */
export const SANDBOX_TOKEN_DAYS = 365;
export const SANDBOX_TOKEN_RENEW_DAYS = 30;

/** Login attempts and challenges are kept this long (the limits look back one hour), then deleted. */
export const LOGIN_RECORDS_KEEP_MS = DAY_MS;
export const LOGIN_RECORDS_CLEANUP_EVERY_MS = 60 * 60 * 1000;

/** The answer to every POST /auth/login, invited or not. */
export const LOGIN_ACCEPTED = { sent: true, detail: 'If the address is invited, a code has been sent.' } as const;

/** How often each identity replica resumes unfinished customer deletions (also once at start). */
export const CUSTOMER_DELETION_RETRY_MS = 15_000;
