import { Type, type Static } from '@sinclair/typebox';
import { HwId, TAG_PATTERN, TagName } from '../registry/registry.schemas.js';
import { CUSTOMER_DOMAIN_ANY_CASE_PATTERN, CustomerQuery, Limit, NullableTimestamp, Offset, Page, Timestamp, UUID_PATTERN } from '../schemas.js';

/** FIRMWARE_MAX_BYTES defaults to 512 MiB (the value lives in ServiceConfig; see docs/configuration.md). */
export const FIRMWARE_DEFAULT_MAX_BYTES = 512 * 1024 * 1024;
/** Release notes: at most 1 MiB of text. */
export const FIRMWARE_NOTES_MAX_BYTES = 1024 * 1024;
export const FIRMWARE_LIST_DEFAULT_LIMIT = 100;
export const FIRMWARE_LIST_MAX_LIMIT = 500;
/** Tags on one build or in one PUT/PATCH. */
export const MAX_TAGS_PER_BUILD = 100;

export const FW_TYPES = ['AFI', 'EFI', 'MFI'] as const;
export type FwType = (typeof FW_TYPES)[number];

/**
 * hw_name, hw_version, fw_name and fw_version: 1 to 64 printable ASCII characters without
 * spaces (like HW ids); reserved characters are percent-encoded in paths.
 */
export const NAME_PATTERN = '^[\\x21-\\x7E]{1,64}$';
const name = (field: string) =>
  Type.String({
    pattern: NAME_PATTERN,
    description: '1 to 64 printable ASCII characters, no spaces',
    'x-error': `${field} must be 1 to 64 printable ASCII characters without spaces`,
  });
export const HwName = name('hw_name');
export const HwVersion = name('hw_version');
export const FwName = name('fw_name');
export const FwVersion = name('fw_version');

export const FwTypeSchema = Type.Union(
  FW_TYPES.map((t) => Type.Literal(t)),
  { 'x-error': 'fw_type must be AFI, EFI or MFI' },
);

/** A build id (UUID). Paths take any string: an id that is no UUID is simply not found. */
export const BUILD_ID_PATTERN = UUID_PATTERN;

export const FirmwareBuild = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    fw_name: Type.String(),
    hw_name: Type.String(),
    hw_version: Type.String(),
    fw_version: Type.String(),
    fw_type: FwTypeSchema,
    build_date: Timestamp,
    tags: Type.Array(Type.String(), { description: 'Sorted.' }),
    tag_filter_disabled: Type.Boolean({ description: 'Offered to every known, active device naming its HW id, whatever its tags.' }),
    status: Type.Union([Type.Literal('active'), Type.Literal('withdrawn')]),
    general_release: Type.Boolean({ description: 'Offered to every update check.' }),
    size_bytes: Type.Integer(),
    sha256: Type.String({ description: 'Hex SHA-256 of the binary.' }),
    what_string: Type.Union([Type.String(), Type.Null()], { description: 'The what string the values were taken from (text after @(#)), or null.' }),
    notes: Type.Union([Type.Object({ size_bytes: Type.Integer(), sha256: Type.String() }), Type.Null()], { description: 'The release notes, or null.' }),
    uploaded_at: Timestamp,
    uploaded_by: Type.String(),
    updated_at: Timestamp,
    download_count: Type.Integer({ description: 'Binary downloads through /dl links.' }),
    notes_download_count: Type.Integer(),
  },
  {
    $id: 'FirmwareBuild',
    examples: [
      {
        id: '3f6c2a9e-8d1b-4c57-9a0e-2b7d4e1f6a83',
        fw_name: 'main',
        hw_name: 'board-x',
        hw_version: 'rev2',
        fw_version: '1.5.0',
        fw_type: 'AFI',
        build_date: '2026-11-20T00:00:00.000Z',
        tags: ['beta'],
        tag_filter_disabled: false,
        status: 'active',
        general_release: true,
        size_bytes: 1048576,
        sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
        what_string: '1.5.0, 2026-11-20, AFI',
        notes: null,
        uploaded_at: '2026-11-20T09:12:44.120Z',
        uploaded_by: 'token:6a1f0c2e-4b8d-4e3a-9c71-0d2f5b8e7a14',
        updated_at: '2026-11-20T09:12:44.120Z',
        download_count: 42,
        notes_download_count: 0,
      },
    ],
  },
);
export type FirmwareBuild = Static<typeof FirmwareBuild>;

export const FirmwarePage = Page(FirmwareBuild);
export type FirmwarePage = Static<typeof FirmwarePage>;

export const FirmwareCustomerQuery = Type.Object({ customer: CustomerQuery });
export type FirmwareCustomerQuery = Static<typeof FirmwareCustomerQuery>;

/** Path form of the upload: PUT /firmware/{hw_name}/{hw_version}/{fw_name}. */
export const FirmwareUploadPathParams = Type.Object({ hw_name: HwName, hw_version: HwVersion, fw_name: FwName });
/** The app receives the path values of the path form, nothing for PUT /firmware. */
export type FirmwareUploadParams = Partial<Static<typeof FirmwareUploadPathParams>>;

export const FirmwareUploadQuery = Type.Object({
  customer: CustomerQuery,
  what_index: Type.Optional(
    Type.Integer({ minimum: 0, description: 'Which what string (from 0); default 0.', 'x-error': 'what_index must be a non-negative integer' }),
  ),
  general_release: Type.Optional(Type.Boolean({ description: 'Publish to every device at once.', 'x-error': 'general_release must be true or false' })),
  fw_name: Type.Optional(FwName),
  hw_name: Type.Optional(HwName),
  hw_version: Type.Optional(HwVersion),
  fw_version: Type.Optional(FwVersion),
  fw_type: Type.Optional(FwTypeSchema),
  build_date: Type.Optional(Type.String({ format: 'date-time', 'x-error': 'build_date must be an RFC 3339 timestamp' })),
});
export type FirmwareUploadQuery = Static<typeof FirmwareUploadQuery>;

export const FirmwareIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, description: 'Build id (UUID)' }) });
export type FirmwareIdParams = Static<typeof FirmwareIdParams>;

export const FirmwareTagParams = Type.Object({ id: Type.String({ pattern: BUILD_ID_PATTERN }), tag: TagName });
/** DELETE takes any tag value (there is nothing to remove for one that cannot exist: 204). */
export const FirmwareTagDeleteParams = Type.Object({ id: Type.String({ pattern: BUILD_ID_PATTERN }), tag: Type.String({ minLength: 1, maxLength: 256 }) });
export type FirmwareTagParams = Static<typeof FirmwareTagParams>;

export const FirmwareListQuery = Type.Object({
  customer: CustomerQuery,
  fw_name: Type.Optional(Type.String({ maxLength: 64 })),
  hw_name: Type.Optional(Type.String({ maxLength: 64 })),
  hw_version: Type.Optional(Type.String({ maxLength: 64 })),
  fw_type: Type.Optional(FwTypeSchema),
  tag: Type.Optional(Type.String({ maxLength: 64 })),
  status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('withdrawn')], { 'x-error': 'status must be active or withdrawn' })),
  general: Type.Optional(Type.Boolean({ description: 'true: general releases only; false: the others.', 'x-error': 'general must be true or false' })),
  order: Type.Optional(
    Type.Union([Type.Literal('asc'), Type.Literal('desc')], {
      description: 'By build_date, then version, then id; default desc.',
      'x-error': 'order must be asc or desc',
    }),
  ),
  limit: Type.Optional(Limit(FIRMWARE_LIST_MAX_LIMIT, FIRMWARE_LIST_DEFAULT_LIMIT)),
  offset: Type.Optional(Offset),
});
export type FirmwareListQuery = Static<typeof FirmwareListQuery>;

export const BuildTagList = Type.Array(TagName, {
  maxItems: MAX_TAGS_PER_BUILD,
  'x-error': `tags must be at most ${MAX_TAGS_PER_BUILD} tag names matching ${TAG_PATTERN}`,
});

export const FirmwarePatch = Type.Object(
  {
    tags: Type.Optional(BuildTagList),
    tag_filter_disabled: Type.Optional(Type.Boolean()),
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('withdrawn')], { 'x-error': 'status must be active or withdrawn' })),
  },
  { additionalProperties: false },
);
export type FirmwarePatch = Static<typeof FirmwarePatch>;

/** PUT /firmware/{id}/general-release: the release setting chosen at upload, changed later (PATCH's body stays as it is). */
export const GeneralReleaseSetting = Type.Object(
  {
    general_release: Type.Boolean({
      description: 'Offer the build to every caller of its product line (true) or only through its tags (false)',
      'x-error': 'general_release must be true or false',
    }),
  },
  { additionalProperties: false, examples: [{ general_release: true }] },
);
export type GeneralReleaseSetting = Static<typeof GeneralReleaseSetting>;

export const TagSet = Type.Object({ tags: BuildTagList }, { additionalProperties: false });
export type TagSet = Static<typeof TagSet>;

export const WhatStringFound = Type.Object({
  index: Type.Integer({ description: 'what_index that chooses it' }),
  offset: Type.Integer({ description: 'Byte offset of the @(#) marker' }),
  text: Type.String({ description: 'The text after @(#)' }),
  fw_version: Type.Union([Type.String(), Type.Null()]),
  build_date: NullableTimestamp,
  fw_type: Type.Union([FwTypeSchema, Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why the text is not `<fw_version>, <build_date>, <fw_type>`; null when it is.' }),
});
export type WhatStringFound = Static<typeof WhatStringFound>;

export const ParseResult = Type.Object({
  size_bytes: Type.Integer(),
  sha256: Type.String(),
  /** Markers in the binary (what_strings lists the first 1000). */
  total: Type.Integer(),
  what_strings: Type.Array(WhatStringFound),
});
export type ParseResult = Static<typeof ParseResult>;

// ------------------------------------------------------------------ update check (public)

export const UpdateCheckParams = Type.Object({
  domain: Type.String({
    maxLength: 253,
    pattern: CUSTOMER_DOMAIN_ANY_CASE_PATTERN,
    description: 'Customer domain (case-insensitive)',
    'x-error': 'domain must be a DNS name',
  }),
  hw_name: HwName,
  hw_version: HwVersion,
  fw_name: FwName,
  fw_version: Type.String({
    pattern: NAME_PATTERN,
    description: "The device's current full version",
    'x-error': 'fw_version must be 1 to 64 printable ASCII characters without spaces',
  }),
});
export const UpdateCheckHwidParams = Type.Object({ ...UpdateCheckParams.properties, hwid: HwId });
export type UpdateCheckParams = Static<typeof UpdateCheckParams> & { readonly hwid?: string };

export const UpdateCheckQuery = Type.Object({
  type: Type.Optional(
    Type.String({
      pattern: '^(?:all|(?:AFI|EFI|MFI)(?:,(?:AFI|EFI|MFI))*)$',
      default: 'AFI',
      description: '`AFI` (default), `all`, or a comma list of AFI, EFI and MFI',
      'x-error': 'type must be all or a comma list of AFI, EFI and MFI',
    }),
  ),
  latest: Type.Optional(Type.Boolean({ description: 'Only the newest build', 'x-error': 'latest must be true or false' })),
});
export type UpdateCheckQuery = Static<typeof UpdateCheckQuery>;

/** One build in an update-check answer. */
export const UpdateItem = Type.Object(
  {
    id: Type.String(),
    fw_name: Type.String(),
    fw_version: Type.String(),
    fw_type: FwTypeSchema,
    hw_name: Type.String(),
    hw_version: Type.String(),
    build_date: Timestamp,
    general_release: Type.Boolean(),
    size_bytes: Type.Integer(),
    sha256: Type.String(),
    url: Type.String({ description: 'Absolute 5-minute /dl link to the binary' }),
    notes_url: Type.Union([Type.String(), Type.Null()], { description: 'Absolute 5-minute /dl link to the release notes, or null' }),
  },
  {
    $id: 'UpdateItem',
    examples: [
      {
        id: '3f6c2a9e-8d1b-4c57-9a0e-2b7d4e1f6a83',
        fw_name: 'main',
        fw_version: '1.5.0',
        fw_type: 'AFI',
        hw_name: 'board-x',
        hw_version: 'rev2',
        build_date: '2026-11-20T00:00:00.000Z',
        general_release: true,
        size_bytes: 1048576,
        sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
        url: 'https://fw.example.com/dl/eyJhbGciOiJIUzI1NiJ9.eyJrIjoiYmluIn0.c2lnbmF0dXJl',
        notes_url: null,
      },
    ],
  },
);
export type UpdateItem = Static<typeof UpdateItem>;
