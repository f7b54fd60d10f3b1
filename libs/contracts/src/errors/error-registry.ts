import type { ErrorCode } from '../errors.js';

/** What the catalogs say about one error code (docs/api.md "Limits and errors"). */
export interface CatalogedError {
  /** snake_case, unique across all catalogs: what problem+json's `code` carries and clients match on. */
  readonly code: string;
  /** The catalog that defines it (`common`, `gateway`, `logdata`, ...). */
  readonly domain: string;
  readonly category: ErrorCode;
  readonly status: number;
  /** The message text, or its pattern with `{name}` for each parameter (the /docs/errors page). */
  readonly pattern: string;
}

const cataloged = new Map<string, CatalogedError>();

/**
 * Records a catalog's code (defineErrors): a code defined twice is a programming error,
 * refused when the second catalog loads. Kept apart from errors.ts so that ServiceError can
 * look codes up without importing the catalogs that import it.
 */
export function registerErrorCode(entry: CatalogedError): void {
  const earlier = cataloged.get(entry.code);
  if (earlier) throw new Error(`error code ${entry.code} is defined twice: in the ${earlier.domain} and the ${entry.domain} catalog`);
  cataloged.set(entry.code, entry);
}

/** The catalog entry of a code, if any catalog defines it. */
export function catalogedError(code: string): CatalogedError | undefined {
  return cataloged.get(code);
}

/** Every code of every loaded catalog, in the order defined. */
export function allCatalogedErrors(): CatalogedError[] {
  return [...cataloged.values()];
}
