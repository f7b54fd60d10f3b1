import { Inject, Injectable } from '@nestjs/common';
import { type EndpointCall, type FileRef, type LogFile, type LogFileCustomerQuery, type LogFileParams, LogdataErrors, requireTenant } from '@app/contracts';
import { toFileRef, toLogFileDto } from '../../domain/log-file-view.js';
import type { StoredLogFile } from '../../domain/log-file.js';
import { LogdataStore } from '../../repositories/logdata.store.js';
import { ReadLogFileCommand } from './read-log-file.command.js';

type FileCall = EndpointCall<LogFileParams, LogFileCustomerQuery, undefined>;

/** One log file of the caller's customer: where its bytes are (GET, HEAD) or its record (meta); 404 when unknown. */
@Injectable()
export class ReadLogFileUseCase {
  constructor(@Inject(LogdataStore) private readonly store: LogdataStore) {}

  /** GET and HEAD /logdata/{name}. Not counted here: the gateway publishes the downloaded event when it serves the link. */
  async download(call: FileCall): Promise<FileRef> {
    return toFileRef(await this.execute(this.commandOf(call)));
  }

  /** GET /logdata/{name}/meta. */
  async meta(call: FileCall): Promise<LogFile> {
    return toLogFileDto(await this.execute(this.commandOf(call)));
  }

  async execute(command: ReadLogFileCommand): Promise<StoredLogFile> {
    const file = await this.store.repos.files.findByName({ customerId: command.customerId, name: command.name });
    if (!file) throw LogdataErrors.log_file_not_found();
    return file;
  }

  private commandOf(call: FileCall): ReadLogFileCommand {
    return ReadLogFileCommand.create({ customer: requireTenant(call.ctx).customer, name: call.params?.name });
  }
}
