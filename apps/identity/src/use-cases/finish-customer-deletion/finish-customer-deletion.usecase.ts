import { Inject, Injectable } from '@nestjs/common';
import { type CustomerId, FirmwareMessages, IdentityEvents, LogdataMessages, RegistryMessages } from '@app/contracts';
import { JsonLogger, MessageBus } from '@app/infra';
import { IdentityStore } from '../../repositories/identity.store.js';

/** The apps that keep a customer's data; each erases its rows and stored files when asked (idempotent). */
const ERASURES = [FirmwareMessages.eraseCustomer, RegistryMessages.eraseCustomer, LogdataMessages.eraseCustomer] as const;

/** A recorded deletion (customer status `deleting`) to finish. */
export interface RecordedDeletion {
  readonly customerId: CustomerId;
  readonly domain: string;
}

/**
 * Finishes a customer deletion. A deletion is recorded first (DeleteCustomerUseCase: status
 * `deleting`, so the customer is unknown to every lookup and its credentials fail); then every
 * app is asked to erase the customer's data, and once all have confirmed, the customer row goes
 * with its memberships, tokens and sessions (ON DELETE CASCADE), and the people who are then a
 * member nowhere. An app that does not answer leaves the record in place:
 * schedules/customer-deletions.schedule.ts resumes recorded deletions at start and every
 * CUSTOMER_DELETION_RETRY_MS until done. Two replicas finishing the same deletion is harmless
 * (every step is idempotent). The input comes from the store (a recorded deletion), never from
 * a message.
 */
@Injectable()
export class FinishCustomerDeletionUseCase {
  private readonly logger = new JsonLogger('identity');
  private readonly running = new Set<string>();

  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  /** True when the customer is gone entirely; false when an app has not erased its part yet (retried later). */
  async execute(deletion: RecordedDeletion): Promise<boolean> {
    const { customerId, domain } = deletion;
    if (this.running.has(customerId)) return false;
    this.running.add(customerId);
    try {
      const answers = await Promise.allSettled(ERASURES.map((message) => this.bus.send(message, { customerId })));
      const failed = answers.flatMap((answer, i) => (answer.status === 'rejected' ? [{ message: ERASURES[i].pattern, reason: answer.reason as unknown }] : []));
      if (failed.length > 0) {
        for (const { message, reason } of failed) {
          this.logger.warn('customer deletion waits for an app', {
            domain,
            customer_id: customerId,
            message,
            error: reason instanceof Error ? reason.message : String(reason),
          });
        }
        return false;
      }
      await this.store.transaction(async (repos) => {
        const members = await repos.memberships.listMembers(customerId);
        await repos.customers.deleteRow({ customerId });
        await repos.users.deleteWithoutMembership(members.map((m) => m.userId));
      });
      this.bus.emit(IdentityEvents.customerChanged, { id: customerId, domain });
      this.logger.info('customer deleted', { domain, customer_id: customerId });
      return true;
    } finally {
      this.running.delete(customerId);
    }
  }

  /** Every recorded deletion, once more (a failure is logged; the next round tries again). */
  async executeRecorded(): Promise<void> {
    try {
      for (const customer of await this.store.repos.customers.listDeleting()) await this.execute({ customerId: customer.id, domain: customer.domain });
    } catch (err) {
      this.logger.warn('resuming customer deletions failed', { error: err instanceof Error ? err.message : String(err) });
    }
  }
}
