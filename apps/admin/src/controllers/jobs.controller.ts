import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { JobMessages, type MessageRequest } from '@app/contracts';
import { AdminJobsService } from '../jobs/admin-jobs.service.js';

/** GET /admin/jobs. */
@Controller()
export class JobsController {
  constructor(@Inject(AdminJobsService) private readonly jobs: AdminJobsService) {}

  @MessagePattern(JobMessages.list.pattern)
  list(@Payload() call: MessageRequest<typeof JobMessages.list>) {
    return this.jobs.list(call);
  }
}
