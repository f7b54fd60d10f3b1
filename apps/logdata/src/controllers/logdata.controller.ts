import { Controller, Inject } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { type EventPayload, LogdataEvents, LogdataMessages, type MessageRequest } from '@app/contracts';
import { CountLogFilesUseCase } from '../use-cases/count-log-files/count-log-files.usecase.js';
import { EraseCustomerUseCase } from '../use-cases/erase-customer/erase-customer.usecase.js';
import { ListLogFilesUseCase } from '../use-cases/list-log-files/list-log-files.usecase.js';
import { ReadLogFileUseCase } from '../use-cases/read-log-file/read-log-file.usecase.js';
import { RecordLogFileDownloadUseCase } from '../use-cases/record-log-file-download/record-log-file-download.usecase.js';
import { UploadLogFileUseCase } from '../use-cases/upload-log-file/upload-log-file.usecase.js';

type Req<K extends keyof typeof LogdataMessages> = MessageRequest<(typeof LogdataMessages)[K]>;

/** Every message and event the logdata app answers (endpoints: libs/contracts logdata.endpoints.ts). */
@Controller()
export class LogdataController {
  constructor(
    @Inject(UploadLogFileUseCase) private readonly uploadLogFile: UploadLogFileUseCase,
    @Inject(ReadLogFileUseCase) private readonly readLogFile: ReadLogFileUseCase,
    @Inject(ListLogFilesUseCase) private readonly listLogFiles: ListLogFilesUseCase,
    @Inject(CountLogFilesUseCase) private readonly countLogFiles: CountLogFilesUseCase,
    @Inject(RecordLogFileDownloadUseCase) private readonly recordDownload: RecordLogFileDownloadUseCase,
    @Inject(EraseCustomerUseCase) private readonly eraseCustomerData: EraseCustomerUseCase,
  ) {}

  @MessagePattern(LogdataMessages.upload.pattern)
  upload(@Payload() call: Req<'upload'>) {
    return this.uploadLogFile.executeForRequest(call);
  }

  @MessagePattern(LogdataMessages.download.pattern)
  download(@Payload() call: Req<'download'>) {
    return this.readLogFile.download(call);
  }

  @MessagePattern(LogdataMessages.meta.pattern)
  meta(@Payload() call: Req<'meta'>) {
    return this.readLogFile.meta(call);
  }

  @MessagePattern(LogdataMessages.list.pattern)
  list(@Payload() call: Req<'list'>) {
    return this.listLogFiles.executeForRequest(call);
  }

  @MessagePattern(LogdataMessages.counts.pattern)
  counts(@Payload() request: Req<'counts'>) {
    return this.countLogFiles.execute(request);
  }

  @MessagePattern(LogdataMessages.eraseCustomer.pattern)
  eraseCustomer(@Payload() request: Req<'eraseCustomer'>) {
    return this.eraseCustomerData.execute(request);
  }

  @EventPattern<Record<string, EventPayload<typeof LogdataEvents.downloaded>>>(LogdataEvents.downloaded.subject)
  downloaded(@Payload() event: EventPayload<typeof LogdataEvents.downloaded>) {
    return this.recordDownload.execute(event);
  }
}
