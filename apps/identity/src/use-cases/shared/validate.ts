import { Type } from '@sinclair/typebox';
import { type Bundle, BUNDLES, CorsOrigins, CUSTOMER_DOMAIN_PATTERN, type Role, ROLES, CommonErrors } from '@app/contracts';
import { contractCheck } from '@app/platform';
import { looksLikeEmail, normalizeEmail } from '../../domain/secrets.js';

/**
 * Checks for commands. The gateway validates HTTP input against the endpoint schemas; a
 * command checks again because not every caller is the gateway (operator CLI, start-up,
 * other use cases), and because a command that exists is a valid one.
 */
export function validEmail(value: unknown, field = 'email'): string {
  if (typeof value !== 'string' || !looksLikeEmail(value.trim())) throw CommonErrors.invalid_request({ detail: `${field} must be a valid email address` });
  return normalizeEmail(value);
}

export function validText(value: unknown, field: string, min: number, max: number): string {
  if (typeof value !== 'string' || value.length < min || value.length > max)
    throw CommonErrors.invalid_request({ detail: `${field} must be ${min} to ${max} characters` });
  return value;
}

export function validInteger(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw CommonErrors.invalid_request({ detail: `${field} must be an integer from ${min} to ${max}` });
  }
  return value;
}

export function validBundle(value: unknown): Bundle {
  if (typeof value !== 'string' || !(BUNDLES as readonly string[]).includes(value))
    throw CommonErrors.invalid_request({ detail: `bundle must be one of ${BUNDLES.join(', ')}` });
  return value as Bundle;
}

export function validRole(value: unknown): Role {
  if (typeof value !== 'string' || !(ROLES as readonly string[]).includes(value))
    throw CommonErrors.invalid_request({ detail: `role must be one of ${ROLES.join(', ')}` });
  return value as Role;
}

const DOMAIN = new RegExp(CUSTOMER_DOMAIN_PATTERN);
export function validDomain(value: unknown, field = 'domain'): string {
  const domain = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (!DOMAIN.test(domain)) throw CommonErrors.invalid_request({ detail: `${field} must be a lower-case DNS name` });
  return domain;
}

const checkCorsOrigins = contractCheck(Type.Object({ cors_origins: CorsOrigins }), { where: 'body' });
/** A customer's CORS origins by the contract's rule (the gateway's message when one is not an origin), each once. */
export function validCorsOrigins(value: unknown): string[] {
  return [...new Set(checkCorsOrigins({ cors_origins: value }).cors_origins)];
}
