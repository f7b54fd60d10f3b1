import { Controller, Inject } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { AdminEvents, AdminMessages, type EventPayload, type MessageRequest } from '@app/contracts';
import { HealthService } from '../services/health.service.js';
import { RequestLogService } from '../services/request-log.service.js';

type Events<E> = Record<string, EventPayload<E>>;

@Controller()
export class AdminController {
  constructor(
    @Inject(RequestLogService) private readonly requestLogs: RequestLogService,
    @Inject(HealthService) private readonly health: HealthService,
  ) {}

  /** A gateway's batch, acknowledged by the reply and stored once by its batch id. */
  @MessagePattern(AdminMessages.storeRequestLog.pattern)
  storeRequestLog(@Payload() batch: MessageRequest<typeof AdminMessages.storeRequestLog>) {
    return this.requestLogs.storeOnce(batch);
  }

  /** The unacknowledged batches of earlier gateway versions. */
  @EventPattern<Events<typeof AdminEvents.requestLog>>(AdminEvents.requestLog.subject)
  requestLog(@Payload() batch: EventPayload<typeof AdminEvents.requestLog>) {
    return this.requestLogs.store(batch);
  }

  @EventPattern<Events<typeof AdminEvents.healthSample>>(AdminEvents.healthSample.subject)
  healthSample(@Payload() sample: EventPayload<typeof AdminEvents.healthSample>) {
    return this.health.record(sample);
  }

  @MessagePattern(AdminMessages.healthHistory.pattern)
  healthHistory(@Payload() call: MessageRequest<typeof AdminMessages.healthHistory>) {
    return this.health.history(call);
  }
}
