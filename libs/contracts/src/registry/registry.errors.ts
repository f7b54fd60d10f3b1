import { ErrorCode } from '../errors.js';
import { defineErrors } from '../errors/define-errors.js';
import { DEVICE_IMPORT_CONTENT_TYPES, ATTRIBUTES_RULE, HWID_RULE, KEYS_RULE, TAG_RULE, TAGS_COUNT_RULE } from './registry.schemas.js';

const CSV_HEADER_RULE = 'the CSV header must name the columns hwid and tags (e.g. "hwid,tags")';

/**
 * The registry errors (docs/api.md "Devices"), raised by apps/registry and listed by its
 * endpoints. The device value rules are also the per-row errors of an import's answer: those
 * rows carry these messages as data.
 */
export const RegistryErrors = defineErrors('registry', {
  device_not_found: { category: ErrorCode.NotFound, message: 'device not found' },
  device_conflict: { category: ErrorCode.Conflict, message: 'device already exists' },
  device_hwid_invalid: { category: ErrorCode.BadRequest, message: HWID_RULE },
  /** `got`: the refused tag (shortened) when it was a string. */
  device_tag_invalid: {
    category: ErrorCode.BadRequest,
    message: (p: { got?: string }) => (p.got === undefined ? TAG_RULE : `${TAG_RULE} (got ${JSON.stringify(p.got)})`),
  },
  device_tags_not_array: { category: ErrorCode.BadRequest, message: 'tags must be an array of tag names' },
  device_tags_too_many: { category: ErrorCode.BadRequest, message: TAGS_COUNT_RULE },
  device_attributes_invalid: { category: ErrorCode.BadRequest, message: ATTRIBUTES_RULE },
  device_attributes_unstorable: { category: ErrorCode.BadRequest, message: 'attributes must not contain NUL characters or unpaired surrogates' },
  device_keys_invalid: { category: ErrorCode.BadRequest, message: KEYS_RULE },
  device_key_not_public: { category: ErrorCode.BadRequest, message: (p: { index: number }) => `keys[${p.index}] is not a public key (PEM or JWK JSON text)` },
  device_import_body_required: { category: ErrorCode.BadRequest, message: 'import body is required' },
  /** The staged body vanished before it was read. */
  device_import_body_not_found: { category: ErrorCode.BadRequest, message: 'import body not found' },
  device_import_media_type: { category: ErrorCode.UnsupportedMediaType, message: `body must be ${DEVICE_IMPORT_CONTENT_TYPES.join(' or ')}` },
  device_import_not_json_array: { category: ErrorCode.BadRequest, message: 'import body must be a JSON array of devices' },
  device_import_csv_empty: { category: ErrorCode.BadRequest, message: 'CSV body is empty: the first line must be the header, e.g. "hwid,tags"' },
  /** The header line could not be read as a CSV record (`error` says why). */
  device_import_csv_header_unreadable: {
    category: ErrorCode.BadRequest,
    message: (p: { line: number; error: string }) => `CSV header (line ${p.line}): ${p.error}`,
  },
  /** The header names other columns (`problem`: which). */
  device_import_csv_header_invalid: { category: ErrorCode.BadRequest, message: (p: { problem: string }) => `${CSV_HEADER_RULE}; ${p.problem}` },
});
