import { CommonErrors, type ErrorHeaders, type ServiceError } from '@app/contracts';

/** Every authentication failure, its catalog code and its WWW-Authenticate header (docs/api.md "API tokens", "Limits and errors"). */
const REALM: ErrorHeaders = { 'WWW-Authenticate': 'Bearer realm="service"' };
const INVALID_TOKEN: ErrorHeaders = { 'WWW-Authenticate': 'Bearer realm="service", error="invalid_token"' };

/** What identity may answer a renewal with that ends the request's session: its code and text stay, the realm is added. */
const RENEWAL_REFUSALS = [CommonErrors.refresh_invalid, CommonErrors.refresh_reused, CommonErrors.session_ended];

export const AuthErrors = {
  missing: CommonErrors.unauthenticated,
  notBearer: () => CommonErrors.authorization_not_bearer(REALM),
  invalid: (reason: string) => CommonErrors.token_invalid({ reason }, INVALID_TOKEN),
  revokedOrExpired: () => CommonErrors.token_revoked(INVALID_TOKEN),
  oldFormat: () => CommonErrors.token_format_outdated(INVALID_TOKEN),
  sessionEnded: () => CommonErrors.session_ended(REALM),
  sessionForOtherCustomer: () => CommonErrors.access_cookie_other_customer(REALM),
  /**
   * A renewal identity refused, as the request's answer (401 with identity's code and text), or
   * null when it is no refusal of the session. A replay within the operator's refresh grace (409
   * on POST /auth/refresh) does not authenticate the request either.
   */
  renewalRefused: (err: unknown): ServiceError | null => {
    if (CommonErrors.refresh_raced.is(err)) return CommonErrors.renewal_raced(REALM);
    const refusal = RENEWAL_REFUSALS.find((entry) => entry.is(err));
    return refusal ? refusal(REALM) : null;
  },
  metrics: () => CommonErrors.metrics_unauthenticated(),
  missingScope: (scope: string) => CommonErrors.missing_scope({ scope }),
  csrf: () => CommonErrors.csrf_invalid(),
  customerNotFound: () => CommonErrors.customer_not_found(),
  sandbox: () => CommonErrors.not_in_sandbox(),
} as const;
