import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { type CustomerId, FirmwareMessages, IdentityEvents, LogdataMessages, RegistryMessages } from '@app/contracts';
import { JsonLogger, MessageBus } from '@app/infra';
import { CUSTOMER_DELETION_RETRY_MS } from '../domain/limits.js';
import { IdentityStore } from '../repositories/identity.store.js';

/** The apps that keep a customer's data; each erases its rows and stored files when asked (idempotent). */
const ERASURES = [FirmwareMessages.eraseCustomer, RegistryMessages.eraseCustomer, LogdataMessages.eraseCustomer] as const;

/**
 * Finishes customer deletions. A deletion is recorded first (customer status `deleting`: the
 * customer is unknown to every lookup and its credentials fail); then every app is asked to
 * erase the customer's data, and once all have confirmed, the customer row goes with its
 * memberships, tokens and sessions (ON DELETE CASCADE), and the people who are then a member
 * nowhere. An app that does not answer leaves the record in place: every identity replica
 * resumes recorded deletions at start and every CUSTOMER_DELETION_RETRY_MS until done. Two
 * replicas finishing the same deletion is harmless (every step is idempotent).
 */
@Injectable()
export class CustomerDeletions implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new JsonLogger('identity');
  private readonly running = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.resumeAll(), CUSTOMER_DELETION_RETRY_MS);
    this.timer.unref();
    setImmediate(() => void this.resumeAll());
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Every recorded deletion, once more. */
  async resumeAll(): Promise<void> {
    try {
      for (const customer of await this.store.repos.customers.listDeleting()) await this.finish(customer.id, customer.domain);
    } catch (err) {
      this.logger.warn('resuming customer deletions failed', { error: err instanceof Error ? err.message : String(err) });
    }
  }

  /** True when the customer is gone entirely; false when an app has not erased its part yet (retried later). */
  async finish(customerId: CustomerId, domain: string): Promise<boolean> {
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
}
