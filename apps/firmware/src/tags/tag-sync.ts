import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { asCustomerId, type CustomerId, RegistryMessages } from '@app/contracts';
import { JobQueue, JsonLogger, MessageBus } from '@app/infra';
import { FirmwareStore } from '../repositories/firmware.store.js';

export const TAG_SYNC_QUEUE = 'firmware-tag-sync';
/** How long one process may replay a customer's operations before another may take over. */
const LEASE_MS = 120_000;
/** How long a request waits for the registry before answering 202 (pending). */
const INLINE_TIMEOUT_MS = 5_000;
const JOB_TIMEOUT_MS = 60_000;
/** Every replica looks for pending operations this often (a lost or exhausted job is re-queued). */
const SWEEP_MS = 60_000;
const JOB_ATTEMPTS = 10;

export type DrainResult = { readonly state: 'done' | 'pending' | 'busy'; readonly devices: ReadonlyMap<number, number> };

/**
 * Brings the registry's device tags in line with a tag rename or delete already applied to
 * the builds: the operations are kept in firmware.tag_sync_op (written with the builds'
 * change) and replayed in order, by one process at a time per customer (a lease row), through
 * RegistryMessages.renameTag/deleteTag (idempotent). A request tries at once; when the
 * registry cannot apply it (down, slow), a job in the queue `firmware-tag-sync` retries with
 * back-off, and every replica sweeps for pending operations each minute, until applied.
 */
@Injectable()
export class TagSync implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new JsonLogger('firmware');
  private sweeper?: NodeJS.Timeout;

  constructor(
    @Inject(FirmwareStore) private readonly store: FirmwareStore,
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(JobQueue) private readonly jobs: JobQueue,
  ) {}

  onApplicationBootstrap(): void {
    this.jobs.process<{ customerId: string }>(
      TAG_SYNC_QUEUE,
      async (job) => {
        const result = await this.drain(asCustomerId(String(job.data?.customerId)), JOB_TIMEOUT_MS);
        if (result.state !== 'done') throw new Error(`tag changes of customer ${job.data?.customerId} not applied by the registry yet (${result.state})`);
      },
      { concurrency: 4 },
    );
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_MS);
    this.sweeper.unref();
    void this.sweep();
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }

  /** After a local change: applied to the devices now (true), or queued for retries (false). */
  async apply(customerId: CustomerId, opId: number): Promise<{ applied: boolean; devices: number | null }> {
    let result: DrainResult = { state: 'busy', devices: new Map() };
    for (let attempt = 0; attempt < 10; attempt++) {
      result = await this.drain(customerId, INLINE_TIMEOUT_MS);
      if (result.state !== 'busy') break;
      await new Promise((resolve) => setTimeout(resolve, 200)); // another request replays this customer's operations
    }
    const devices = result.devices.get(opId);
    if (devices !== undefined) return { applied: true, devices };
    if (await this.store.repos.tagSync.isApplied({ customerId, id: opId })) return { applied: true, devices: null };
    await this.schedule(customerId);
    return { applied: false, devices: null };
  }

  /** Replays the customer's pending operations in order while the registry applies them. */
  async drain(customerId: CustomerId, timeoutMs: number): Promise<DrainResult> {
    const owner = randomUUID();
    const devices = new Map<number, number>();
    if (!(await this.store.repos.tagSync.acquireLease({ customerId, owner, ttlMs: LEASE_MS }))) return { state: 'busy', devices };
    try {
      for (;;) {
        const op = await this.store.repos.tagSync.nextPending({ customerId });
        if (!op) return { state: 'done', devices };
        let reply: { devices: number };
        try {
          reply =
            op.kind === 'rename'
              ? await this.bus.send(RegistryMessages.renameTag, { customerId, from: op.tag, to: op.toTag! }, { timeoutMs })
              : await this.bus.send(RegistryMessages.deleteTag, { customerId, tag: op.tag }, { timeoutMs });
        } catch (err) {
          const error = err instanceof Error ? err.message : String(err);
          await this.store.repos.tagSync.markFailed({ customerId, id: op.id, error });
          this.logger.warn('registry did not apply a tag change yet; it will be retried', { customer_id: customerId, op: op.id, kind: op.kind, error });
          return { state: 'pending', devices };
        }
        await this.store.repos.tagSync.markApplied({ customerId, id: op.id });
        devices.set(op.id, Number(reply?.devices ?? 0));
      }
    } finally {
      await this.store.repos.tagSync.releaseLease({ customerId, owner }).catch(() => undefined);
    }
  }

  private async schedule(customerId: CustomerId): Promise<void> {
    try {
      await this.jobs.add(TAG_SYNC_QUEUE, 'sync', { customerId }, { jobId: `tag-sync:${customerId}`, attempts: JOB_ATTEMPTS, delayMs: 1_000 });
    } catch (err) {
      // The periodic sweep queues it again.
      this.logger.warn('could not queue a tag change for the registry', { customer_id: customerId, error: err instanceof Error ? err.message : String(err) });
    }
  }

  private async sweep(): Promise<void> {
    try {
      for (const customerId of await this.store.repos.tagSync.customersWithPending()) await this.schedule(customerId);
    } catch (err) {
      this.logger.warn('could not look for pending tag changes', { error: err instanceof Error ? err.message : String(err) });
    }
  }
}
