import { Email } from '@app/contracts';
import { contractCheck } from '@app/platform';

const checkEmail = contractCheck(Email);

/** Lower-cased, trimmed email: the form stored and compared everywhere. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** An address that is not a validated body's (a path parameter, a setting) by the contract's Email rule, normalized. */
export function emailOf(value: unknown): string {
  return normalizeEmail(checkEmail(typeof value === 'string' ? value.trim() : value));
}
