import { Inject, Injectable } from '@nestjs/common';
import {
  type EndpointCall,
  type FirmwareCustomerQuery,
  type FirmwareIdParams,
  type FirmwarePatch,
  type FirmwareWithEtag,
  requireTenant,
  type TenantRequestContext,
} from '@app/contracts';
import { ChangeBuildUseCase } from '../change-build/change-build.usecase.js';
import { UpdateBuildCommand } from './update-build.command.js';

/**
 * PATCH /firmware/{id}: status, tag_filter_disabled and tags. With If-Match the change applies
 * only to the revision the ETag names (412 otherwise; `*` means any).
 */
@Injectable()
export class UpdateBuildUseCase {
  constructor(@Inject(ChangeBuildUseCase) private readonly changeBuild: ChangeBuildUseCase) {}

  async executeForRequest(call: EndpointCall<FirmwareIdParams, FirmwareCustomerQuery, FirmwarePatch>): Promise<FirmwareWithEtag> {
    const ctx = requireTenant(call.ctx);
    return this.execute(UpdateBuildCommand.create({ customer: ctx.customer, id: call.params?.id, body: call.body, ifMatch: call.headers?.['if-match'] }), ctx);
  }

  async execute(command: UpdateBuildCommand, ctx: TenantRequestContext): Promise<FirmwareWithEtag> {
    const expectedRevision = await this.changeBuild.revisionOfIfMatch(command);
    return this.changeBuild.execute(ctx, { id: command.id, expectedRevision, changes: command.changes }, 'firmware.update');
  }
}
