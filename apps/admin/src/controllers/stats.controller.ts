import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type MessageRequest, StatsMessages } from '@app/contracts';
import { ListRequestLogCommand } from '../use-cases/list-request-log/list-request-log.command.js';
import { ListRequestLog } from '../use-cases/list-request-log/list-request-log.usecase.js';
import { SummarizeUsageCommand } from '../use-cases/summarize-usage/summarize-usage.command.js';
import { SummarizeUsage } from '../use-cases/summarize-usage/summarize-usage.usecase.js';

/**
 * Usage statistics and the request log, for the operators and for each customer. Handlers are
 * async so that a command refused when built answers a rejected promise.
 */
@Controller()
export class StatsController {
  constructor(
    @Inject(SummarizeUsage) private readonly summarizeUsage: SummarizeUsage,
    @Inject(ListRequestLog) private readonly listRequestLog: ListRequestLog,
  ) {}

  @MessagePattern(StatsMessages.adminSummary.pattern)
  async adminSummary(@Payload() call: MessageRequest<typeof StatsMessages.adminSummary>) {
    return this.summarizeUsage.execute(SummarizeUsageCommand.forAdministrators({ query: call.query }));
  }

  @MessagePattern(StatsMessages.adminEvents.pattern)
  async adminEvents(@Payload() call: MessageRequest<typeof StatsMessages.adminEvents>) {
    return this.listRequestLog.execute(ListRequestLogCommand.forAdministrators({ query: call.query }));
  }

  @MessagePattern(StatsMessages.customerSummary.pattern)
  async customerSummary(@Payload() call: MessageRequest<typeof StatsMessages.customerSummary>) {
    return this.summarizeUsage.execute(SummarizeUsageCommand.forCustomer({ ctx: call.ctx, query: call.query }));
  }

  @MessagePattern(StatsMessages.customerEvents.pattern)
  async customerEvents(@Payload() call: MessageRequest<typeof StatsMessages.customerEvents>) {
    return this.listRequestLog.execute(ListRequestLogCommand.forCustomer({ ctx: call.ctx, query: call.query }));
  }
}
