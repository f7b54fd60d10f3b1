import createClient from 'openapi-fetch';
import type { paths } from './openapi.gen';
import { apiError } from './problem';
import { session } from './session';

/**
 * The API client, typed by the OpenAPI document (`paths`, generated at build time by
 * openapi-typescript): a changed contract that the console no longer matches is a type error.
 * Every request goes through the session (CSRF, renewal, `customer=`).
 */
export const api = createClient<paths>({ baseUrl: window.location.origin, fetch: session.fetch });

export type Paths = paths;

/** The data of a successful answer, or an ApiError with the service's own message. */
export function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || !result.response.ok) {
    throw apiError(result.response.status, result.error, result.response.headers.get('Retry-After'));
  }
  return result.data as T;
}
