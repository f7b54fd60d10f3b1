import { Inject, Injectable } from '@nestjs/common';
import { type EndpointCall, type FirmwareCustomerQuery, FirmwareErrors, GatewayErrors, type ParseResult, requireTenant, type StagedFile } from '@app/contracts';
import { JsonLogger, type LogRequest, ObjectStore, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG, stagedFileFault } from '@app/platform';
import { scanWhatStrings } from '../../domain/what-strings.js';
import { parseWhatText } from '../../domain/what-string-parse.js';

/** POST /firmware/parse: what strings of a binary; the staged binary is deleted, nothing is stored. */
@Injectable()
export class ParseBinaryUseCase {
  private readonly logger = new JsonLogger('firmware');

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(ObjectStore) private readonly store: ObjectStore,
  ) {}

  /** The `firmware` part is parsed; any other part is deleted at once. */
  async executeForRequest(call: EndpointCall<Record<string, never>, FirmwareCustomerQuery, undefined>): Promise<ParseResult> {
    requireTenant(call.ctx);
    const others = Object.entries(call.files ?? {}).filter(([name]) => name !== 'firmware');
    for (const [, file] of others) void this.store.delete(file.key).catch(() => undefined);
    return this.execute(call.files?.firmware, this.config.firmwareMaxBytes, call.ctx);
  }

  async execute(file: StagedFile | undefined, maxBytes: number, request: LogRequest): Promise<ParseResult> {
    if (!file || typeof file.key !== 'string' || file.key === '') throw GatewayErrors.multipart_part_missing({ name: 'firmware' });
    try {
      if (stagedFileFault(file) !== null) throw FirmwareErrors.parse_part_invalid();
      if (file.sizeBytes > maxBytes) throw GatewayErrors.upload_too_large({ what: 'firmware', maxBytes });
      const stream = await this.store.get(file.key);
      if (!stream) throw FirmwareErrors.firmware_unreadable();
      const scan = await scanWhatStrings(stream);
      return {
        size_bytes: file.sizeBytes,
        sha256: file.sha256.toLowerCase(),
        total: scan.total,
        what_strings: scan.found.map((found) => {
          const parsed = parseWhatText(found.text);
          return {
            index: found.index,
            offset: found.offset,
            text: found.text,
            fw_version: parsed.ok ? parsed.values.fwVersion : null,
            build_date: parsed.ok ? parsed.values.buildDate.toISOString() : null,
            fw_type: parsed.ok ? parsed.values.fwType : null,
            error: parsed.ok ? null : parsed.error,
          };
        }),
      };
    } finally {
      await this.store.delete(file.key).catch((err: unknown) => {
        this.logger.forRequest(request).warn('could not delete a parsed firmware', { key: file.key, error: err instanceof Error ? err.message : String(err) });
      });
    }
  }
}
