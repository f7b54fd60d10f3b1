import { ERROR_STATUS, type ErrorCode, type ErrorHeaders, ServiceError } from '../errors.js';
import { type CatalogedError, registerErrorCode } from './error-registry.js';

/**
 * One error of a catalog: its category (the HTTP status) and its message, a fixed text or a
 * function of the parameters the text names. Headers every answer of it carries (e.g.
 * WWW-Authenticate) may be given here; per-raise headers (Retry-After) when raised.
 */
export interface ErrorSpec {
  readonly category: ErrorCode;
  readonly message: string | ((params: never) => string);
  readonly headers?: ErrorHeaders;
}

/** Builds the ServiceError of one catalog entry: `(params, headers?)` when its message has parameters, else `(headers?)`. */
type Raise<M> = M extends (params: infer P) => string ? (params: P, headers?: ErrorHeaders) => ServiceError : (headers?: ErrorHeaders) => ServiceError;

/** A catalog entry: called, it builds its ServiceError; as a value, it describes the error (endpoint `errors` lists, /docs/errors). */
export type CatalogError<M = string> = Raise<M> &
  CatalogedError & {
    /** Whether `error` is this catalog error (matching on the code, never on the text). */
    is(error: unknown): error is ServiceError;
  };

export type ErrorCatalog<S extends Record<string, ErrorSpec>> = { readonly [K in keyof S & string]: CatalogError<S[K]['message']> };

const SNAKE_CASE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/**
 * An error catalog (docs/architecture.md "Errors"): each key is an error code, snake_case and
 * unique across all catalogs (a second definition throws when its catalog loads), written with
 * its category and its message once. Use cases raise its entries
 * (`throw LogdataErrors.log_file_not_found()`); endpoints list them in `errors`.
 */
export function defineErrors<const S extends Record<string, ErrorSpec>>(domain: string, specs: S): ErrorCatalog<S> {
  const catalog: Record<string, unknown> = {};
  for (const [code, spec] of Object.entries(specs)) {
    if (!SNAKE_CASE.test(code)) throw new Error(`error code ${code} of the ${domain} catalog is not snake_case`);
    const info: CatalogedError = { code, domain, category: spec.category, status: ERROR_STATUS[spec.category], pattern: patternOf(spec.message) };
    registerErrorCode(info);
    const message = spec.message as string | ((params: unknown) => string);
    const raise = (...args: unknown[]): ServiceError => {
      const [params, headers] = typeof message === 'function' ? [args[0], args[1]] : [undefined, args[0]];
      const text = typeof message === 'function' ? message(params) : message;
      const allHeaders = spec.headers || headers ? { ...spec.headers, ...(headers as ErrorHeaders | undefined) } : undefined;
      return new ServiceError(spec.category, text, allHeaders, code);
    };
    catalog[code] = Object.assign(raise, info, { is: (error: unknown): error is ServiceError => ServiceError.is(error) && error.reason === code });
  }
  return catalog as ErrorCatalog<S>;
}

/** The message, or its pattern: the function called with `{name}` for each parameter. */
function patternOf(message: ErrorSpec['message']): string {
  if (typeof message === 'string') return message;
  const placeholders = new Proxy({}, { get: (_target, name) => `{${String(name)}}` });
  try {
    return (message as (params: unknown) => string)(placeholders);
  } catch {
    return '(a message with parameters)';
  }
}
