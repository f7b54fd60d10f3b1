import type { Static, TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { asCustomerId, type CustomerId, ServiceError } from '@app/contracts';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

/** The gateway's settings (coerced and defaulted like query strings), so a value passes here exactly when it passes there. */
const coercing = addFormats(new Ajv({ coerceTypes: true, useDefaults: true, allErrors: false, verbose: true, strict: false }));
const exact = addFormats(new Ajv({ coerceTypes: false, useDefaults: true, allErrors: false, verbose: true, strict: false }));

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
 * apps alike.
 */
export function contractCheck<T extends TSchema>(schema: T, options: ContractCheckOptions = {}): (value: unknown) => Static<T> {
  const validate: ValidateFunction = (options.coerce ? coercing : exact).compile(schema);
  const where = options.where ?? 'value';
  return (value: unknown): Static<T> => {
    const checked = options.coerce && value && typeof value === 'object' && !Array.isArray(value) ? { ...value } : value;
    if (validate(checked)) return checked;
    const errors = validate.errors ?? [];
    const explained = errors.find((e) => typeof xError(e) === 'string');
    throw ServiceError.badRequest(describe(explained ?? errors[0], where));
  };
}

function xError(error: ErrorObject | undefined): unknown {
  return error?.parentSchema?.['x-error'];
}

function describe(error: ErrorObject | undefined, where: string): string {
  if (!error) return `invalid ${where}`;
  const field = error.instancePath.split('/').filter(Boolean).join('.');
  switch (error.keyword) {
    case 'required':
      return `${where} ${field ? `${field}.` : ''}${(error.params as { missingProperty: string }).missingProperty} is required`;
    case 'additionalProperties':
      return `unknown ${where} ${field ? `${field}.` : ''}${(error.params as { additionalProperty: string }).additionalProperty}`;
  }
  const custom = xError(error);
  if (typeof custom === 'string') return custom;
  return `${where} ${field || '(root)'} ${error.message ?? 'is invalid'}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A customer id as sent by another app (a UUID, any case), or undefined. */
export function customerIdOf(value: unknown): CustomerId | undefined {
  return typeof value === 'string' && UUID.test(value) ? asCustomerId(value.toLowerCase()) : undefined;
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
  if (!customerId) throw ServiceError.badRequest(`customer id must be a UUID: ${String(value)}`);
  return customerId;
}
