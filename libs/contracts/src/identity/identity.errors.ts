import { ErrorCode } from '../errors.js';
import { defineErrors } from '../errors/define-errors.js';

/**
 * The identity errors (docs/api.md "Authentication", "API tokens", "Members", "Administration"),
 * raised by apps/identity and listed by its endpoints. The credential refusals the gateway also
 * answers (invalid or revoked token, session ended, refresh refused, CSRF) are common: any
 * endpoint with credentials may answer them (CommonErrors).
 */
export const IdentityErrors = defineErrors('identity', {
  customer_exists: { category: ErrorCode.Conflict, message: 'customer already exists' },
  customer_delete_unconfirmed: { category: ErrorCode.BadRequest, message: 'confirm must repeat the domain' },
  operator_customer_undeletable: { category: ErrorCode.BadRequest, message: 'the operator customer cannot be deleted' },
  sandbox_customer_undeletable: { category: ErrorCode.BadRequest, message: 'the sandbox customer cannot be deleted (it comes from SANDBOX_DOMAIN)' },
  operator_customer_unsuspendable: { category: ErrorCode.BadRequest, message: 'the operator customer cannot be suspended' },
  /** The operator's and the sandbox's domains come from OPERATOR_DOMAIN / SANDBOX_DOMAIN. */
  customer_domain_configured: {
    category: ErrorCode.BadRequest,
    message: (p: { domain: string; setting: string }) => `the domain of ${p.domain} is set by ${p.setting} and cannot be changed here`,
  },
  /** A token for a suspended customer (the operator's command line). */
  customer_suspended: { category: ErrorCode.Conflict, message: 'customer is suspended' },
  token_not_found: { category: ErrorCode.NotFound, message: 'token not found' },
  token_bundle_exceeds_scopes: { category: ErrorCode.Forbidden, message: 'bundle exceeds your scopes' },
  user_not_found: { category: ErrorCode.NotFound, message: 'user not found' },
  user_disabled: { category: ErrorCode.Forbidden, message: 'user is disabled' },
  user_self_disable: { category: ErrorCode.BadRequest, message: 'you cannot disable yourself' },
  member_not_found: { category: ErrorCode.NotFound, message: 'member not found' },
  member_exists: { category: ErrorCode.Conflict, message: 'already a member of this customer' },
  last_owner_demote: { category: ErrorCode.Conflict, message: 'the last owner cannot be demoted: make another member owner first' },
  last_owner_remove: { category: ErrorCode.Conflict, message: 'the last owner cannot be removed: make another member owner first' },
  login_code_invalid: { category: ErrorCode.Unauthenticated, message: 'invalid or expired code' },
  /** Codes requested for one address within the hour. */
  login_rate_limited: { category: ErrorCode.RateLimited, message: 'too many login codes requested for this address; try again later' },
  /** Login requests from one client address within the hour. */
  login_ip_rate_limited: { category: ErrorCode.RateLimited, message: 'too many login requests from this address; try again later' },
  verify_rate_limited: { category: ErrorCode.RateLimited, message: 'too many login attempts; try again later' },
  login_cross_site: { category: ErrorCode.Forbidden, message: 'login links must be confirmed from the service’s own page' },
  logout_session_only: { category: ErrorCode.Forbidden, message: 'only a console session can log out; revoke API tokens with DELETE /tokens/{id}' },
  switch_session_only: { category: ErrorCode.Forbidden, message: 'only a console session can switch customers' },
  switch_not_a_member: { category: ErrorCode.Forbidden, message: 'you are not a member of this customer' },
  switch_customer_suspended: { category: ErrorCode.Forbidden, message: 'this customer is suspended' },
});
