import { Controller, Inject } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { type EventPayload, FirmwareEvents, FirmwareMessages, type MessageRequest } from '@app/contracts';
import { BuildTagsUseCase } from '../use-cases/build-tags/build-tags.usecase.js';
import { CountBuildsUseCase } from '../use-cases/count-builds/count-builds.usecase.js';
import { EraseCustomerUseCase } from '../use-cases/erase-customer/erase-customer.usecase.js';
import { ListBuildsUseCase } from '../use-cases/list-builds/list-builds.usecase.js';
import { ParseBinaryUseCase } from '../use-cases/parse-binary/parse-binary.usecase.js';
import { ReadBuildUseCase } from '../use-cases/read-build/read-build.usecase.js';
import { RecordBuildDownloadUseCase } from '../use-cases/record-build-download/record-build-download.usecase.js';
import { SetGeneralReleaseUseCase } from '../use-cases/set-general-release/set-general-release.usecase.js';
import { UpdateBuildUseCase } from '../use-cases/update-build/update-build.usecase.js';
import { UploadBuildUseCase } from '../use-cases/upload-build/upload-build.usecase.js';

type Req<K extends keyof typeof FirmwareMessages> = MessageRequest<(typeof FirmwareMessages)[K]>;

/**
 * The builds' messages and events (endpoints: libs/contracts firmware.endpoints.ts). The public
 * update check (`firmware.update-check`) is answered by UpdateCheckResponder: see FIRMWARE_HANDLERS.
 */
@Controller()
export class FirmwareController {
  constructor(
    @Inject(UploadBuildUseCase) private readonly uploadBuild: UploadBuildUseCase,
    @Inject(ParseBinaryUseCase) private readonly parseBinary: ParseBinaryUseCase,
    @Inject(ListBuildsUseCase) private readonly listBuilds: ListBuildsUseCase,
    @Inject(ReadBuildUseCase) private readonly readBuild: ReadBuildUseCase,
    @Inject(UpdateBuildUseCase) private readonly updateBuild: UpdateBuildUseCase,
    @Inject(SetGeneralReleaseUseCase) private readonly setGeneralRelease: SetGeneralReleaseUseCase,
    @Inject(BuildTagsUseCase) private readonly buildTags: BuildTagsUseCase,
    @Inject(CountBuildsUseCase) private readonly countBuilds: CountBuildsUseCase,
    @Inject(RecordBuildDownloadUseCase) private readonly recordDownload: RecordBuildDownloadUseCase,
    @Inject(EraseCustomerUseCase) private readonly eraseCustomerData: EraseCustomerUseCase,
  ) {}

  @MessagePattern(FirmwareMessages.upload.pattern)
  upload(@Payload() call: Req<'upload'>) {
    return this.uploadBuild.executeForRequest(call);
  }

  @MessagePattern(FirmwareMessages.parse.pattern)
  parse(@Payload() call: Req<'parse'>) {
    return this.parseBinary.executeForRequest(call);
  }

  @MessagePattern(FirmwareMessages.list.pattern)
  list(@Payload() call: Req<'list'>) {
    return this.listBuilds.executeForRequest(call);
  }

  @MessagePattern(FirmwareMessages.get.pattern)
  get(@Payload() call: Req<'get'>) {
    return this.readBuild.get(call);
  }

  @MessagePattern(FirmwareMessages.update.pattern)
  update(@Payload() call: Req<'update'>) {
    return this.updateBuild.executeForRequest(call);
  }

  @MessagePattern(FirmwareMessages.setGeneralRelease.pattern)
  generalRelease(@Payload() call: Req<'setGeneralRelease'>) {
    return this.setGeneralRelease.executeForRequest(call);
  }

  @MessagePattern(FirmwareMessages.binary.pattern)
  binary(@Payload() call: Req<'binary'>) {
    return this.readBuild.binary(call);
  }

  @MessagePattern(FirmwareMessages.notes.pattern)
  notes(@Payload() call: Req<'notes'>) {
    return this.readBuild.notes(call);
  }

  @MessagePattern(FirmwareMessages.getTags.pattern)
  getTags(@Payload() call: Req<'getTags'>) {
    return this.readBuild.tags(call);
  }

  @MessagePattern(FirmwareMessages.replaceTags.pattern)
  replaceTags(@Payload() call: Req<'replaceTags'>) {
    return this.buildTags.replace(call);
  }

  @MessagePattern(FirmwareMessages.addTag.pattern)
  addTag(@Payload() call: Req<'addTag'>) {
    return this.buildTags.add(call);
  }

  @MessagePattern(FirmwareMessages.removeTag.pattern)
  removeTag(@Payload() call: Req<'removeTag'>) {
    return this.buildTags.remove(call);
  }

  @MessagePattern(FirmwareMessages.counts.pattern)
  counts(@Payload() request: Req<'counts'>) {
    return this.countBuilds.execute(request);
  }

  @MessagePattern(FirmwareMessages.eraseCustomer.pattern)
  eraseCustomer(@Payload() request: Req<'eraseCustomer'>) {
    return this.eraseCustomerData.execute(request);
  }

  @EventPattern<Record<string, EventPayload<typeof FirmwareEvents.downloaded>>>(FirmwareEvents.downloaded.subject)
  downloaded(@Payload() event: EventPayload<typeof FirmwareEvents.downloaded>) {
    return this.recordDownload.execute(event);
  }
}
