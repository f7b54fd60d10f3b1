/** SPEC "Limits" and "Console login", in one place. */
export const LOGIN_CODE_TTL_MS = 15 * 60 * 1000;
export const LOGIN_CODES_PER_HOUR = 5;
export const LOGIN_RATE_WINDOW_MS = 60 * 60 * 1000;
export const LOGIN_MAX_WRONG_GUESSES = 5;

export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const SESSION_IDLE_LIMIT_MS = 12 * 60 * 60 * 1000;
export const SESSION_TOTAL_LIMIT_SECONDS = 7 * 24 * 60 * 60;

export const API_TOKEN_DEFAULT_DAYS = 90;
export const API_TOKEN_MAX_DAYS = 365;
export const DAY_MS = 24 * 60 * 60 * 1000;

/** A token's last_used_at is written at most once per this interval per replica. */
export const TOKEN_LAST_USED_FLUSH_MS = 60 * 1000;

/** The answer to every POST /auth/login, invited or not. */
export const LOGIN_ACCEPTED = { sent: true, detail: 'If the address is invited, a code has been sent.' } as const;
export const INVALID_CODE_MESSAGE = 'invalid or expired code';
