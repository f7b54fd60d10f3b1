import { Type, type Static } from '@sinclair/typebox';
import { Limit, NullableTimestamp, Timestamp } from '../schemas.js';

/** The kinds and statuses of a backup run (docs/api.md "Backups and restores"). */
export const BACKUP_RUN_KINDS = ['backup', 'verify', 'restore'] as const;
export type BackupRunKind = (typeof BACKUP_RUN_KINDS)[number];
export const BACKUP_RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type BackupRunStatus = (typeof BACKUP_RUN_STATUSES)[number];

/** `backup-20261126T181500Z-3f9a2c1b.age`: UTC time to the second, then 8 hex digits of the run id. */
export const ARCHIVE_NAME_REGEX = '^backup-[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}\\.age$';
/** Base64 of an age secret key (`AGE-SECRET-KEY-1…`, 74 characters, with an optional newline). */
export const BACKUP_KEY_B64_MAX = 200;
/** `detail` of a verify report: kept as the run's log (ok) or its error (not ok). */
export const VERIFY_REPORT_DETAIL_MAX = 64 * 1024;

const ArchiveName = Type.String({
  pattern: ARCHIVE_NAME_REGEX,
  'x-error': 'archive_name must be an archive name such as backup-20261126T181500Z-3f9a2c1b.age',
});
const BackupKey = Type.String({
  minLength: 1,
  maxLength: BACKUP_KEY_B64_MAX,
  description:
    'Base64 of the age secret key (AGE-SECRET-KEY-1...); used in memory for this run only, never stored or logged. ' +
    'Required unless the service holds the key pair it generated (`key.source` generated in GET /admin/backups: standalone, local backend, no BACKUP_PUBLIC_KEY)',
  'x-error': 'backup_key_b64 must be the base64 of an age secret key',
});

export const BackupRunSchema = Type.Object(
  {
    id: Type.String({ description: 'Run id (UUID)' }),
    kind: Type.Union(BACKUP_RUN_KINDS.map((k) => Type.Literal(k))),
    status: Type.Union(BACKUP_RUN_STATUSES.map((s) => Type.Literal(s))),
    archive_name: Type.Union([Type.String(), Type.Null()]),
    object_count: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Entries in the archive (app dumps and stored files)' }),
    total_bytes: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Bytes of those entries, before encryption' }),
    initiated_by: Type.String({ description: 'Who started it (`token:<id>`, `user:<id>`), `schedule`, or `verify-report:<who>`' }),
    created_at: Timestamp,
    started_at: NullableTimestamp,
    finished_at: NullableTimestamp,
    error: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'BackupRun' },
);
export type BackupRunView = Static<typeof BackupRunSchema>;

export const BackupRunDetailSchema = Type.Composite([BackupRunSchema, Type.Object({ log: Type.String({ description: 'Progress, one line per step' }) })], {
  $id: 'BackupRunDetail',
});
export type BackupRunDetail = Static<typeof BackupRunDetailSchema>;

export const BackupRunQueuedSchema = Type.Object({
  id: Type.String(),
  kind: Type.Union(BACKUP_RUN_KINDS.map((k) => Type.Literal(k))),
  status: Type.Union(BACKUP_RUN_STATUSES.map((s) => Type.Literal(s))),
});
export type BackupRunQueued = Static<typeof BackupRunQueuedSchema>;

export const BackupsQuery = Type.Object({ limit: Limit(500, 50) });
export type BackupsQuery = Static<typeof BackupsQuery>;

export const BackupRunIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, description: 'Run id (UUID)' }) });
export type BackupRunIdParams = Static<typeof BackupRunIdParams>;

export const VerifyBackupRequest = Type.Object({
  archive_name: Type.Optional(ArchiveName),
  backup_key_b64: Type.Optional(BackupKey),
});
export type VerifyBackupRequest = Static<typeof VerifyBackupRequest>;

export const VerifyReportRequest = Type.Object({
  archive_name: ArchiveName,
  ok: Type.Boolean({ 'x-error': 'ok must be true or false' }),
  detail: Type.Optional(Type.String({ maxLength: VERIFY_REPORT_DETAIL_MAX, 'x-error': `detail must be at most ${VERIFY_REPORT_DETAIL_MAX} characters` })),
});
export type VerifyReportRequest = Static<typeof VerifyReportRequest>;

export const RestoreRequest = Type.Object({
  archive_name: ArchiveName,
  confirm: Type.String({ maxLength: 200, description: 'Exactly `restore <archive_name>`' }),
  backup_key_b64: Type.Optional(BackupKey),
});
export type RestoreRequest = Static<typeof RestoreRequest>;

/** Where the backup key's halves are: the service's own generated pair, BACKUP_PUBLIC_KEY, or none (backups refused). */
export const BACKUP_KEY_SOURCES = ['generated', 'configured', 'none'] as const;

export const BackupKeySchema = Type.Object(
  {
    source: Type.Union(
      BACKUP_KEY_SOURCES.map((s) => Type.Literal(s)),
      {
        description:
          '`generated`: a key pair the standalone service made itself (local backend, no BACKUP_PUBLIC_KEY); verify and restore use its secret half when no key is sent. ' +
          '`configured`: BACKUP_PUBLIC_KEY; the service holds no secret key, verify and restore must send it. `none`: backups are refused until BACKUP_PUBLIC_KEY is set',
      },
    ),
    public_key: Type.Union([Type.String(), Type.Null()], { description: 'The age recipient (age1...) archives are encrypted to' }),
    secret_key_file: Type.Union([Type.String(), Type.Null()], {
      description: 'With `generated`: where the secret half lies on the service’s machine (a copy belongs off that machine); otherwise null',
    }),
  },
  { $id: 'BackupKey' },
);
export type BackupKeyView = Static<typeof BackupKeySchema>;

export const BackupListSchema = Type.Object({
  backend: Type.Union([Type.Literal('local'), Type.Literal('s3')], { description: 'The backup backend in use' }),
  key: BackupKeySchema,
  items: Type.Array(BackupRunSchema),
});
export type BackupList = Static<typeof BackupListSchema>;
