import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type MessageRequest, StatsMessages } from '@app/contracts';
import { StatsService } from '../stats/stats.service.js';

/** Usage statistics and the request log, for the operators and for each customer. */
@Controller()
export class StatsController {
  constructor(@Inject(StatsService) private readonly stats: StatsService) {}

  @MessagePattern(StatsMessages.adminSummary.pattern)
  adminSummary(@Payload() call: MessageRequest<typeof StatsMessages.adminSummary>) {
    return this.stats.adminSummary(call);
  }

  @MessagePattern(StatsMessages.adminEvents.pattern)
  adminEvents(@Payload() call: MessageRequest<typeof StatsMessages.adminEvents>) {
    return this.stats.adminEvents(call);
  }

  @MessagePattern(StatsMessages.customerSummary.pattern)
  customerSummary(@Payload() call: MessageRequest<typeof StatsMessages.customerSummary>) {
    return this.stats.customerSummary(call);
  }

  @MessagePattern(StatsMessages.customerEvents.pattern)
  customerEvents(@Payload() call: MessageRequest<typeof StatsMessages.customerEvents>) {
    return this.stats.customerEvents(call);
  }
}
