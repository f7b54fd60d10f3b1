import type { Static, TSchema } from '@sinclair/typebox';
import { asCustomerId, CommonErrors, type CustomerId, isUuid } from '@app/contracts';
import { coercingAjv, exactAjv, validatedValue } from './schema-validation.js';

export interface ContractCheckOptions {
  /**
   * Coerce strings to the schema's types and apply defaults (query objects): the checked value is
   * a copy, never the caller's object. Scalars are never coerced.
   */
  readonly coerce?: boolean;
  /** Names the failing place in the generic message ("body property x is required"). Default `value`. */
  readonly where?: string;
}

/**
 * A contract schema (libs/contracts) compiled once, as a function that answers the valid value
 * or throws ServiceError 400. The message is the schema's `x-error` when the failing schema has
 * one, so the rule and its wording are written once, in the contract, for the gateway and the
 * apps alike (schema-validation.ts).
 */
export function contractCheck<T extends TSchema>(schema: T, options: ContractCheckOptions = {}): (value: unknown) => Static<T> {
  const validate = (options.coerce ? coercingAjv : exactAjv).compile(schema);
  const where = options.where ?? 'value';
  return (value: unknown): Static<T> => {
    const checked = options.coerce && value && typeof value === 'object' && !Array.isArray(value) ? { ...value } : value;
    return validatedValue(validate, checked, where);
  };
}

/** A customer id as sent by another app (a UUID, any case), or undefined. */
export function customerIdOf(value: unknown): CustomerId | undefined {
  return isUuid(value) ? asCustomerId(value.toLowerCase()) : undefined;
}

/**
 * The customer ids of a cross-tenant count request (the admin customer list), lower-cased in
 * the order given; 400 names the first one that is no UUID.
 */
export function customerIdsOf(ids: readonly unknown[] | undefined): CustomerId[] {
  return (ids ?? []).map(requireCustomerId);
}

/** The customer of a message from another app (not an endpoint call, whose tenant is in its context); 400 when it is no UUID. */
export function requireCustomerId(value: unknown): CustomerId {
  const customerId = customerIdOf(value);
  if (!customerId) throw CommonErrors.invalid_request({ detail: `customer id must be a UUID: ${String(value)}` });
  return customerId;
}
