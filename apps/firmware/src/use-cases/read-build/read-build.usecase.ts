import { Inject, Injectable } from '@nestjs/common';
import {
  type EndpointCall,
  type FileRef,
  type FirmwareCustomerQuery,
  FirmwareErrors,
  type FirmwareIdParams,
  type FirmwareWithEtag,
  requireTenant,
  type TagSet,
} from '@app/contracts';
import { etagOf, toFileRef, toFirmwareDto } from '../../domain/build-view.js';
import type { Build } from '../../domain/build.js';
import { FirmwareStore } from '../../repositories/firmware.store.js';

type IdCall = EndpointCall<FirmwareIdParams, FirmwareCustomerQuery, undefined>;

/** One build of the caller's customer: its record, its tags, or where its binary and notes are; 404 when unknown. */
@Injectable()
export class ReadBuildUseCase {
  constructor(@Inject(FirmwareStore) private readonly store: FirmwareStore) {}

  /** GET /firmware/{id}. */
  async get(call: IdCall): Promise<FirmwareWithEtag> {
    const build = await this.find(call);
    return { build: toFirmwareDto(build), etag: etagOf(build) };
  }

  /** GET /firmware/{id}/tags. */
  async tags(call: IdCall): Promise<TagSet> {
    return { tags: [...(await this.find(call)).tags] };
  }

  /** GET /firmware/{id}/binary. Not counted here: the gateway publishes the downloaded event when it serves the link. */
  async binary(call: IdCall): Promise<FileRef> {
    return toFileRef(await this.find(call), 'binary');
  }

  /** GET /firmware/{id}/notes. */
  async notes(call: IdCall): Promise<FileRef> {
    const build = await this.find(call);
    if (!build.notes) throw FirmwareErrors.build_notes_not_found();
    return toFileRef(build, 'notes');
  }

  private async find(call: IdCall): Promise<Build> {
    const customerId = requireTenant(call.ctx).customer.id;
    const build = await this.store.repos.builds.findById({ customerId, id: String(call.params?.id ?? '') });
    if (!build) throw FirmwareErrors.build_not_found();
    return build;
  }
}
