import {
  CommonErrors,
  type CustomerId,
  type CustomerRef,
  FIRMWARE_NOTES_MAX_BYTES,
  FirmwareErrors,
  type FirmwareUploadParams,
  type FirmwareUploadQuery,
  FwName,
  type FwType,
  FwVersion,
  GatewayErrors,
  HwName,
  HwVersion,
  isStorableInstant,
  type StagedFile,
} from '@app/contracts';
import { contractCheck, stagedFileFault } from '@app/platform';
import { parseBuildDate, parseFwType } from '../../domain/what-string-parse.js';

/** The contract's name rules and messages (1 to 64 printable ASCII characters without spaces). */
const validName = { hw_name: contractCheck(HwName), hw_version: contractCheck(HwVersion), fw_name: contractCheck(FwName) };
const validFwVersion = contractCheck(FwVersion);

export interface UploadBuildInput {
  readonly customer: CustomerRef;
  readonly actor: string;
  readonly params: FirmwareUploadParams | undefined;
  readonly query: FirmwareUploadQuery | undefined;
  readonly files: Readonly<Record<string, StagedFile>> | undefined;
  /** FIRMWARE_MAX_BYTES (docs/configuration.md). */
  readonly maxBytes: number;
}

/** Values given by the uploader (query); the what string may supply or must agree with them. */
export interface DeclaredValues {
  readonly fwVersion?: string;
  readonly fwType?: FwType;
  readonly buildDate?: Date;
}

/**
 * A firmware upload, validated when built (docs/api.md, firmware upload: path, then query; a
 * path value and a different query value are 400; hw_name, hw_version, fw_name missing are 400).
 * What the binary says is decided later, by reading it (UploadBuild).
 */
export class UploadBuildCommand {
  private constructor(
    readonly customerId: CustomerId,
    readonly hwName: string,
    readonly hwVersion: string,
    readonly fwName: string,
    readonly declared: DeclaredValues,
    /** As given; undefined means "the first what string, if any". */
    readonly whatIndex: number | undefined,
    readonly generalRelease: boolean,
    readonly firmware: StagedFile,
    readonly notes: StagedFile | null,
    readonly uploadedBy: string,
  ) {}

  /** Every staged object of the request (the caller deletes them when create() throws). */
  static stagedKeys(files: UploadBuildInput['files']): string[] {
    return Object.values(files ?? {})
      .map((file) => file?.key)
      .filter((key): key is string => typeof key === 'string' && key !== '');
  }

  static create(input: UploadBuildInput): UploadBuildCommand {
    const params = input.params ?? {};
    const query = input.query ?? {};
    const pick = (field: 'hw_name' | 'hw_version' | 'fw_name'): string => {
      const fromPath = params[field];
      const fromQuery = query[field];
      if (fromPath !== undefined && fromQuery !== undefined && fromPath !== fromQuery) {
        throw FirmwareErrors.build_value_mismatch({ field, fromPath, fromQuery });
      }
      const value = fromPath ?? fromQuery;
      if (value === undefined || value === '') throw FirmwareErrors.build_value_missing({ field });
      return validName[field](value);
    };
    const hwName = pick('hw_name');
    const hwVersion = pick('hw_version');
    const fwName = pick('fw_name');

    const firmware = input.files?.firmware;
    checkStaged(firmware, 'firmware');
    if (firmware.sizeBytes > input.maxBytes) throw GatewayErrors.upload_too_large({ what: 'firmware', maxBytes: input.maxBytes });
    const notes = input.files?.notes ?? null;
    if (notes) {
      checkStaged(notes, 'notes');
      if (notes.sizeBytes > FIRMWARE_NOTES_MAX_BYTES) throw GatewayErrors.upload_too_large({ what: 'notes', maxBytes: FIRMWARE_NOTES_MAX_BYTES });
    }

    const declared: { fwVersion?: string; fwType?: FwType; buildDate?: Date } = {};
    if (query.fw_version !== undefined) {
      declared.fwVersion = validFwVersion(query.fw_version);
    }
    if (query.fw_type !== undefined) {
      const fwType = parseFwType(String(query.fw_type));
      if (!fwType || fwType !== query.fw_type) throw CommonErrors.invalid_request({ detail: 'fw_type must be AFI, EFI or MFI' });
      declared.fwType = fwType;
    }
    if (query.build_date !== undefined) {
      const buildDate = parseBuildDate(String(query.build_date));
      if (!buildDate) throw CommonErrors.invalid_request({ detail: 'build_date must be an RFC 3339 timestamp' });
      if (!isStorableInstant(buildDate.getTime())) throw FirmwareErrors.build_date_out_of_range();
      declared.buildDate = buildDate;
    }
    const whatIndex = query.what_index;
    if (whatIndex !== undefined && (!Number.isSafeInteger(whatIndex) || whatIndex < 0))
      throw CommonErrors.invalid_request({ detail: 'what_index must be a non-negative integer' });
    if (query.general_release !== undefined && typeof query.general_release !== 'boolean')
      throw CommonErrors.invalid_request({ detail: 'general_release must be true or false' });
    if (!input.actor) throw CommonErrors.uploader_unknown();
    return new UploadBuildCommand(
      input.customer.id,
      hwName,
      hwVersion,
      fwName,
      declared,
      whatIndex,
      query.general_release ?? false,
      { ...firmware, sha256: firmware.sha256.toLowerCase() },
      notes ? { ...notes, sha256: notes.sha256.toLowerCase() } : null,
      input.actor,
    );
  }
}

function checkStaged(file: StagedFile | undefined, part: string): asserts file is StagedFile {
  const fault = stagedFileFault(file);
  if (fault === 'missing' || !file) throw GatewayErrors.multipart_part_missing({ name: part });
  if (fault) throw FirmwareErrors.upload_part_invalid({ part, fault });
}
