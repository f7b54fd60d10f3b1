import { asCustomerId, type CustomerId, ServiceError } from '@app/contracts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The customer of a message from another app (not an endpoint call, whose tenant is in its context). */
export function customerIdOf(value: unknown): CustomerId {
  if (typeof value !== 'string' || !UUID.test(value)) throw ServiceError.badRequest(`customer id must be a UUID: ${String(value)}`);
  return asCustomerId(value.toLowerCase());
}
