import { Type, type Static } from '@sinclair/typebox';
import { CustomerQuery, NullableTimestamp, Page, Timestamp } from '../schemas.js';

/**
 * The device registry's rules (docs/api.md "Devices") and the schemas the
 * gateway validates device requests with. The registry app checks the same rules again when it
 * builds its commands, with the same messages.
 */

/** HW ids: 1 to 64 printable ASCII characters (0x21 to 0x7E, no spaces), case-sensitive. */
export const HWID_PATTERN = '^[!-~]{1,64}$';
export const HWID_RULE = 'hwid must be 1 to 64 printable ASCII characters (0x21-0x7E, no spaces)';
const HWID_REGEX = new RegExp(HWID_PATTERN);
export function isHwid(value: unknown): value is string {
  return typeof value === 'string' && HWID_REGEX.test(value);
}

/** Tag names, shared by builds and devices: a letter or digit, then up to 63 letters, digits, '.', '_', ':' or '-'. Case-sensitive. */
export const TAG_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$';
export const TAG_RULE = `tag must match ${TAG_PATTERN}`;
const TAG_REGEX = new RegExp(TAG_PATTERN);
export function isTagName(value: unknown): value is string {
  return typeof value === 'string' && TAG_REGEX.test(value);
}

/** Limits of the registry (docs/api.md "Devices"). */
export const DEVICE_LIMITS = {
  /** Tags on one device. */
  maxTags: 64,
  /** `attributes`: a JSON object of at most this many bytes (UTF-8 of its JSON text). */
  maxAttributesBytes: 8 * 1024,
  /** Public keys on one device, and characters per key (PEM or JWK JSON text). */
  maxKeys: 8,
  maxKeyChars: 8 * 1024,
  /** `tag` values in one list query. */
  maxQueryTags: 32,
  listDefaultLimit: 100,
  listMaxLimit: 500,
  /** One import request: body size, rows, errors listed (all are counted in error_count). */
  importMaxBytes: 64 * 1024 * 1024,
  importMaxRows: 1_000_000,
  importMaxReportedErrors: 1000,
  /** A dry run lists the changes of this many rows at most (all are counted in created and updated). */
  importMaxReportedChanges: 1000,
  /** One CSV record or one JSON array element of an import. */
  importMaxRowBytes: 32 * 1024,
} as const;

export const TAGS_COUNT_RULE = `a device has at most ${DEVICE_LIMITS.maxTags} tags`;
export const ATTRIBUTES_RULE = `attributes must be a JSON object of at most ${DEVICE_LIMITS.maxAttributesBytes} bytes`;
export const KEYS_RULE = `keys must be at most ${DEVICE_LIMITS.maxKeys} public keys, each PEM or JWK JSON text of at most ${DEVICE_LIMITS.maxKeyChars} characters`;

export const HwId = Type.String({
  pattern: HWID_PATTERN,
  description: '1 to 64 printable ASCII characters (0x21-0x7E), case-sensitive; percent-encode reserved characters in paths.',
  'x-error': HWID_RULE,
});
export const TagName = Type.String({ pattern: TAG_PATTERN, 'x-error': TAG_RULE });
export const TagList = Type.Array(TagName, {
  maxItems: DEVICE_LIMITS.maxTags,
  'x-error': `tags must be an array of at most ${DEVICE_LIMITS.maxTags} tag names`,
});
export const DeviceAttributes = Type.Object(
  {},
  { additionalProperties: true, description: `Free-form JSON object, at most ${DEVICE_LIMITS.maxAttributesBytes} bytes.`, 'x-error': ATTRIBUTES_RULE },
);
export const DeviceKeys = Type.Array(Type.String({ minLength: 1, maxLength: DEVICE_LIMITS.maxKeyChars, 'x-error': KEYS_RULE }), {
  maxItems: DEVICE_LIMITS.maxKeys,
  description: 'Device public keys: PEM (public key or certificate) or JWK JSON text of a public key.',
  'x-error': KEYS_RULE,
});

export const DEVICE_STATUSES = ['active', 'withdrawn'] as const;
export type DeviceStatus = (typeof DEVICE_STATUSES)[number];
export const DeviceStatusSchema = Type.Union([Type.Literal('active'), Type.Literal('withdrawn')], { 'x-error': 'status must be active or withdrawn' });

/** The device record (docs/api.md "Devices"). */
export const Device = Type.Object(
  {
    hwid: Type.String(),
    status: DeviceStatusSchema,
    tags: Type.Array(Type.String(), { description: 'Sorted in byte order, no duplicates.' }),
    attributes: Type.Object({}, { additionalProperties: true }),
    keys: Type.Array(Type.String()),
    has_keys: Type.Boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
    last_seen_at: NullableTimestamp,
    last_fw_version: Type.Union([Type.String(), Type.Null()]),
  },
  {
    $id: 'Device',
    examples: [
      {
        hwid: 'SN-0001',
        status: 'active',
        tags: ['beta'],
        attributes: { site: 'Berlin', model: 'X2' },
        keys: [],
        has_keys: false,
        created_at: '2026-11-20T08:00:00.000Z',
        updated_at: '2026-11-20T08:00:00.000Z',
        last_seen_at: '2026-11-26T07:59:12.000Z',
        last_fw_version: '1.4.2',
      },
    ],
  },
);
export type Device = Static<typeof Device>;

export const DeviceParams = Type.Object({ hwid: HwId });
export type DeviceParams = Static<typeof DeviceParams>;
export const DeviceTagParams = Type.Object({ hwid: HwId, tag: TagName });
export type DeviceTagParams = Static<typeof DeviceTagParams>;

export const DeviceCustomerQuery = Type.Object({ customer: CustomerQuery });
export type DeviceCustomerQuery = Static<typeof DeviceCustomerQuery>;

export const DevicePage = Page(Device);
export type DevicePage = Static<typeof DevicePage>;

export const CreateDeviceRequest = Type.Object(
  {
    hwid: HwId,
    tags: Type.Optional(TagList),
    attributes: Type.Optional(DeviceAttributes),
    keys: Type.Optional(DeviceKeys),
  },
  { additionalProperties: false, examples: [{ hwid: 'SN-0001', tags: ['beta'], attributes: { site: 'Berlin', model: 'X2' } }] },
);
export type CreateDeviceRequest = Static<typeof CreateDeviceRequest>;

/** Each given property replaces the stored value. Tags and status have their own endpoints. */
export const UpdateDeviceRequest = Type.Object(
  {
    attributes: Type.Optional(DeviceAttributes),
    keys: Type.Optional(DeviceKeys),
  },
  { additionalProperties: false },
);
export type UpdateDeviceRequest = Static<typeof UpdateDeviceRequest>;

export const DeviceTags = Type.Object({ tags: TagList }, { additionalProperties: false });
export type DeviceTags = Static<typeof DeviceTags>;

export const DeviceImportError = Type.Object({
  line: Type.Integer({ description: 'CSV: line number, the header is line 1. JSON: position of the element in the array, from 1.' }),
  hwid: Type.Union([Type.String(), Type.Null()]),
  error: Type.String(),
});
export type DeviceImportError = Static<typeof DeviceImportError>;

/** POST /devices/import: `dry_run=true` answers what the import would do, and changes nothing. */
export const DeviceImportQuery = Type.Object({
  customer: CustomerQuery,
  dry_run: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'true: nothing is stored; the answer counts what the import would do and lists the changes (changes).',
      'x-error': 'dry_run must be true or false',
    }),
  ),
});
export type DeviceImportQuery = Static<typeof DeviceImportQuery>;

/** One row a dry run would apply: a new device, or a device whose tags or attributes would change. */
export const DeviceImportChange = Type.Object({
  line: Type.Integer({ description: 'As in errors: the CSV line or the JSON element.' }),
  hwid: Type.String(),
  change: Type.Union([Type.Literal('create'), Type.Literal('update')]),
  tags_before: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'The stored tags; null for a new device.' }),
  tags_after: Type.Array(Type.String(), { description: 'The tags after the import (the stored ones where the row gives none).' }),
  attributes_changed: Type.Boolean({ description: 'Whether the row replaces the stored attributes with different ones.' }),
});
export type DeviceImportChange = Static<typeof DeviceImportChange>;

export const DeviceImportResult = Type.Object({
  created: Type.Integer(),
  updated: Type.Integer(),
  unchanged: Type.Integer(),
  errors: Type.Array(DeviceImportError, { description: `The first ${DEVICE_LIMITS.importMaxReportedErrors} rows with errors (not applied).` }),
  error_count: Type.Integer({ description: 'Rows with errors in all (may exceed the number listed in errors).' }),
  changes: Type.Optional(
    Type.Array(DeviceImportChange, {
      description: `Dry runs only: the first ${DEVICE_LIMITS.importMaxReportedChanges} rows that would create or change a device, in file order (all are counted in created and updated).`,
    }),
  ),
});
export type DeviceImportResult = Static<typeof DeviceImportResult>;

/** Media types of POST /devices/import. */
export const DEVICE_IMPORT_CONTENT_TYPES = ['text/csv', 'application/json'] as const;
