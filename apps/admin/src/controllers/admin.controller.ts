import { Controller, Inject } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { AdminEvents, AdminMessages, type EventPayload, type MessageRequest } from '@app/contracts';
import { GetHealthHistoryCommand } from '../use-cases/get-health-history/get-health-history.command.js';
import { GetHealthHistory } from '../use-cases/get-health-history/get-health-history.usecase.js';
import { RecordHealthSample } from '../use-cases/record-health-sample/record-health-sample.usecase.js';
import { StoreRequestLogCommand } from '../use-cases/store-request-log/store-request-log.command.js';
import { StoreRequestLog } from '../use-cases/store-request-log/store-request-log.usecase.js';

type Events<E> = Record<string, EventPayload<E>>;

/** The gateways' request log and health samples, and the health history. */
@Controller()
export class AdminController {
  constructor(
    @Inject(StoreRequestLog) private readonly storeRequestLogBatch: StoreRequestLog,
    @Inject(RecordHealthSample) private readonly recordHealthSample: RecordHealthSample,
    @Inject(GetHealthHistory) private readonly getHealthHistory: GetHealthHistory,
  ) {}

  /** A gateway's batch, acknowledged by the reply and stored once by its batch id. */
  @MessagePattern(AdminMessages.storeRequestLog.pattern)
  async storeRequestLog(@Payload() batch: MessageRequest<typeof AdminMessages.storeRequestLog>) {
    return this.storeRequestLogBatch.execute(StoreRequestLogCommand.create(batch));
  }

  /** The unacknowledged batches of earlier gateway versions (no batch id: stored without the guard). */
  @EventPattern<Events<typeof AdminEvents.requestLog>>(AdminEvents.requestLog.subject)
  async requestLog(@Payload() batch: EventPayload<typeof AdminEvents.requestLog>) {
    await this.storeRequestLogBatch.execute(StoreRequestLogCommand.create({ entries: batch?.entries }));
  }

  @EventPattern<Events<typeof AdminEvents.healthSample>>(AdminEvents.healthSample.subject)
  healthSample(@Payload() sample: EventPayload<typeof AdminEvents.healthSample>) {
    return this.recordHealthSample.execute(sample);
  }

  @MessagePattern(AdminMessages.healthHistory.pattern)
  async healthHistory(@Payload() call: MessageRequest<typeof AdminMessages.healthHistory>) {
    return this.getHealthHistory.execute(GetHealthHistoryCommand.create({ query: call?.query }));
  }
}
