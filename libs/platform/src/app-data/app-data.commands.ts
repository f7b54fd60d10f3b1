import { AdminErrors, APP_DATA_OBJECT_PREFIX, type AppDataExportRequest, type AppDataImportRequest } from '@app/contracts';
import { assertObjectKey } from '@app/infra';

const RUN_ID = /^[A-Za-z0-9._-]{1,100}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

function objectKeyOf(value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith(APP_DATA_OBJECT_PREFIX) || value.length > 512) {
    throw AdminErrors.app_data_key_outside();
  }
  try {
    assertObjectKey(value);
  } catch {
    throw AdminErrors.app_data_key_invalid();
  }
  return value;
}

function runIdOf(value: unknown): string {
  if (typeof value !== 'string' || !RUN_ID.test(value)) throw AdminErrors.app_data_run_id_invalid();
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
    if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) throw AdminErrors.app_data_sha256_invalid();
    return new ImportAppDataCommand(runIdOf(request.runId), objectKeyOf(request.objectKey), sha256);
  }
}
