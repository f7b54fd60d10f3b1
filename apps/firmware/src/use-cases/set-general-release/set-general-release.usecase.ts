import { Inject, Injectable } from '@nestjs/common';
import {
  type EndpointCall,
  type FirmwareCustomerQuery,
  type FirmwareIdParams,
  type FirmwareWithEtag,
  type GeneralReleaseSetting,
  requireTenant,
  type TenantRequestContext,
} from '@app/contracts';
import { ChangeBuildUseCase } from '../change-build/change-build.usecase.js';
import { SetGeneralReleaseCommand } from './set-general-release.command.js';

/**
 * PUT /firmware/{id}/general-release: the release setting chosen at upload, changed later
 * (docs/api.md "Release settings after upload"), through the same write step as PATCH (audited as
 * firmware.update, the update-check index dropped). A completed rollout takes the same step.
 */
@Injectable()
export class SetGeneralReleaseUseCase {
  constructor(@Inject(ChangeBuildUseCase) private readonly changeBuild: ChangeBuildUseCase) {}

  async executeForRequest(call: EndpointCall<FirmwareIdParams, FirmwareCustomerQuery, GeneralReleaseSetting>): Promise<FirmwareWithEtag> {
    const ctx = requireTenant(call.ctx);
    return this.execute(
      SetGeneralReleaseCommand.create({ customer: ctx.customer, id: call.params?.id, body: call.body, ifMatch: call.headers?.['if-match'] }),
      ctx,
    );
  }

  async execute(command: SetGeneralReleaseCommand, ctx: TenantRequestContext): Promise<FirmwareWithEtag> {
    const expectedRevision = await this.changeBuild.revisionOfIfMatch(command);
    return this.changeBuild.execute(ctx, { id: command.id, expectedRevision, changes: { generalRelease: command.generalRelease } }, 'firmware.update');
  }
}
