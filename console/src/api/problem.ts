/**
 * An answer other than success, carrying the service's own message (problem+json `detail`)
 * and its error code (problem+json `code`, docs/api.md "Limits and errors"): match on `code`.
 */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
    /** A 429's or 503's Retry-After in seconds, when the answer gave one. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

interface ProblemLike {
  detail?: unknown;
  title?: unknown;
  code?: unknown;
}

/** The service's message for a failed answer: problem+json `detail`, a text error line, or the status. */
export function messageOf(status: number, body: unknown, retryAfter?: string | null): string {
  const problem = (typeof body === 'object' && body !== null ? body : {}) as ProblemLike;
  let message =
    typeof problem.detail === 'string' && problem.detail
      ? problem.detail
      : typeof body === 'string' && body.trim()
        ? body.trim()
        : typeof problem.title === 'string'
          ? problem.title
          : `The service answered ${status}`;
  if (status === 429 && retryAfter) message += ` (try again in ${retryAfter} s)`;
  return message;
}

/** The ApiError of a failed answer's status, body (problem+json, or a text error line) and Retry-After: every client path builds it here. */
export function apiError(status: number, body: unknown, retryAfter?: string | null): ApiError {
  const code = typeof body === 'object' && body !== null && typeof (body as ProblemLike).code === 'string' ? ((body as ProblemLike).code as string) : undefined;
  const seconds = retryAfter && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter.trim()) : undefined;
  return new ApiError(messageOf(status, body, retryAfter), status, code, seconds);
}

export async function errorOf(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // a text/plain error line
  }
  return apiError(response.status, body, response.headers.get('Retry-After'));
}

/** Any thrown value as one line for a person. */
export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
