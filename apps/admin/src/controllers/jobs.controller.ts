import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { JobMessages, type MessageRequest } from '@app/contracts';
import { ListJobsCommand } from '../use-cases/list-jobs/list-jobs.command.js';
import { ListJobs } from '../use-cases/list-jobs/list-jobs.usecase.js';

/** GET /admin/jobs. */
@Controller()
export class JobsController {
  constructor(@Inject(ListJobs) private readonly listJobs: ListJobs) {}

  @MessagePattern(JobMessages.list.pattern)
  async list(@Payload() call: MessageRequest<typeof JobMessages.list>) {
    return this.listJobs.execute(ListJobsCommand.create({ query: call?.query }));
  }
}
