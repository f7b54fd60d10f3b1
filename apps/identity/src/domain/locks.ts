import type { CustomerId } from '@app/contracts';

/**
 * Changes of one customer's members take turns on this advisory lock, so two owners demoting
 * each other at once cannot leave the customer without an owner.
 */
export function memberChangesLock(customerId: CustomerId): string {
  return `identity.members:${customerId}`;
}
