import { Inject, Injectable } from '@nestjs/common';
import {
  type EndpointCall,
  type FirmwareCustomerQuery,
  FirmwareErrors,
  type FirmwareIdParams,
  type FirmwarePatch,
  type FirmwareWithEtag,
  requireTenant,
  type TenantRequestContext,
} from '@app/contracts';
import { revisionFromIfMatch } from '../../domain/build-view.js';
import { FirmwareStore } from '../../repositories/firmware.store.js';
import { ChangeBuildUseCase, staleError } from '../change-build/change-build.usecase.js';
import { UpdateBuildCommand } from './update-build.command.js';

/**
 * PATCH /firmware/{id}: status, tag_filter_disabled and tags. With If-Match the change applies
 * only to the revision the ETag names (412 otherwise; `*` means any).
 */
@Injectable()
export class UpdateBuildUseCase {
  constructor(
    @Inject(FirmwareStore) private readonly store: FirmwareStore,
    @Inject(ChangeBuildUseCase) private readonly changeBuild: ChangeBuildUseCase,
  ) {}

  async executeForRequest(call: EndpointCall<FirmwareIdParams, FirmwareCustomerQuery, FirmwarePatch>): Promise<FirmwareWithEtag> {
    const ctx = requireTenant(call.ctx);
    return this.execute(UpdateBuildCommand.create({ customer: ctx.customer, id: call.params?.id, body: call.body, ifMatch: call.headers?.['if-match'] }), ctx);
  }

  async execute(command: UpdateBuildCommand, ctx: TenantRequestContext): Promise<FirmwareWithEtag> {
    let expectedRevision: number | undefined;
    if (command.ifMatch !== null) {
      const current = await this.store.repos.builds.findById({ customerId: command.customerId, id: command.id });
      if (!current) throw FirmwareErrors.build_not_found();
      const revision = revisionFromIfMatch(command.ifMatch, current);
      if (revision === null) throw staleError(current);
      if (revision !== '*') expectedRevision = revision;
    }
    return this.changeBuild.execute(ctx, { id: command.id, expectedRevision, changes: command.changes }, 'firmware.update');
  }
}
