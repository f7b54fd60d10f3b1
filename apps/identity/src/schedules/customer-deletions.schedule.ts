import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CUSTOMER_DELETION_RETRY_MS } from '../domain/limits.js';
import { FinishCustomerDeletionUseCase } from '../use-cases/finish-customer-deletion/finish-customer-deletion.usecase.js';

/** Every identity replica resumes recorded customer deletions at start and every CUSTOMER_DELETION_RETRY_MS. */
@Injectable()
export class CustomerDeletionsSchedule implements OnApplicationBootstrap, OnModuleDestroy {
  private timer: NodeJS.Timeout | null = null;

  constructor(@Inject(FinishCustomerDeletionUseCase) private readonly finish: FinishCustomerDeletionUseCase) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.finish.executeRecorded(), CUSTOMER_DELETION_RETRY_MS);
    this.timer.unref();
    setImmediate(() => void this.finish.executeRecorded());
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
