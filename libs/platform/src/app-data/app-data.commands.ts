import { APP_DATA_OBJECT_PREFIX, type AppDataExportRequest, type AppDataImportRequest, ServiceError } from '@app/contracts';
import { assertObjectKey } from '@app/infra';

const RUN_ID = /^[A-Za-z0-9._-]{1,100}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

function objectKeyOf(value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith(APP_DATA_OBJECT_PREFIX) || value.length > 512) {
    throw ServiceError.badRequest(`objectKey must be a key under ${APP_DATA_OBJECT_PREFIX}`);
  }
  try {
    assertObjectKey(value);
  } catch {
    throw ServiceError.badRequest('objectKey is not a valid object key');
  }
  return value;
}

function runIdOf(value: unknown): string {
  if (typeof value !== 'string' || !RUN_ID.test(value)) throw ServiceError.badRequest('runId must be 1 to 100 of [A-Za-z0-9._-]');
  return value;
}

/** AppDataMessages.export, validated: a run id and a key under the backups prefix. */
export class ExportAppDataCommand {
  private constructor(
    readonly runId: string,
    readonly objectKey: string,
  ) {}

  static create(request: AppDataExportRequest): ExportAppDataCommand {
    return new ExportAppDataCommand(runIdOf(request?.runId), objectKeyOf(request?.objectKey));
  }
}

/** AppDataMessages.import, validated: a run id, a key under the backups prefix and a lowercase hex SHA-256. */
export class ImportAppDataCommand {
  private constructor(
    readonly runId: string,
    readonly objectKey: string,
    readonly sha256: string,
  ) {}

  static create(request: AppDataImportRequest): ImportAppDataCommand {
    const sha256 = request?.sha256;
    if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) throw ServiceError.badRequest('sha256 must be 64 lowercase hex digits');
    return new ImportAppDataCommand(runIdOf(request.runId), objectKeyOf(request.objectKey), sha256);
  }
}
