import { defineEvent, defineMessage, type EventDef, type MessageDef } from '../messages/message.js';

/**
 * Apps whose data a backup holds, in the order a restore loads them. The worker has no
 * tables (its jobs live in Redis or in process), so it is not one of them.
 */
export const BACKUP_APPS = ['identity', 'firmware', 'registry', 'logdata', 'admin'] as const;
export type BackupApp = (typeof BACKUP_APPS)[number];

/** Version of the dump format an app writes (see docs/architecture.md "Backups: each app's data"); an import refuses others. */
export const APP_DATA_FORMAT_VERSION = 1;

/**
 * Longest a caller waits for an export or an import: both stream whole tables, which takes
 * minutes on large ones. The message definitions carry it, so `bus.send` needs no option.
 */
export const APP_DATA_TIMEOUT_MS = 30 * 60_000;

/**
 * Every dump (and its stored-file list) lives under this prefix of the files bucket: an app
 * refuses to write or read any other key, so a backup can never overwrite a stored file.
 */
export const APP_DATA_OBJECT_PREFIX = 'backups/';

export interface TableDump {
  readonly table: string;
  readonly rows: number;
}

/** A stored file (in the shared files bucket) that a dumped row refers to. */
export interface StoredFileRef {
  readonly key: string;
  readonly size: number;
}

/**
 * Where the app writes its dump in the object store (the shared files bucket), under
 * APP_DATA_OBJECT_PREFIX, e.g. `backups/staging/<runId>/<app>.dump`. The app also writes the list of stored files the
 * rows refer to at `<objectKey>.files` (see AppDataExportReply.filesObjectKey).
 */
export interface AppDataExportRequest {
  readonly runId: string;
  readonly objectKey: string;
}

export interface AppDataExportReply {
  readonly app: BackupApp;
  readonly objectKey: string;
  /** Size and SHA-256 (lowercase hex) of the dump object, computed while it was written. */
  readonly bytes: number;
  readonly sha256: string;
  readonly formatVersion: number;
  /** Every dumped table with its row count, in dump (dependency) order. */
  readonly tables: readonly TableDump[];
  /**
   * The stored files the dumped rows refer to, taken from the same snapshot. Written as an
   * object (NDJSON, one StoredFileRef per line) rather than inline because the list can be
   * long (one entry per log file) and a NATS reply is limited to about 1 MB: read it with
   * `readStoredFileRefs` from `@app/platform`. Empty (zero lines) for apps without files.
   */
  readonly filesObjectKey: string;
  readonly fileCount: number;
  /** Sum of the listed files' sizes. */
  readonly fileBytes: number;
}

export interface AppDataImportRequest {
  readonly runId: string;
  readonly objectKey: string;
  /** The SHA-256 the dump must have (from the export's reply or the archive's manifest); a mismatch is refused. */
  readonly sha256: string;
}

export interface AppDataImportReply {
  readonly app: BackupApp;
  /** Every loaded table with its row count, in load order. */
  readonly tables: readonly TableDump[];
}

/** The object key of the stored-file list written next to a dump. */
export function storedFilesObjectKey(dumpObjectKey: string): string {
  return `${dumpObjectKey}.files`;
}

function appDataMessages(app: BackupApp): {
  readonly export: MessageDef<AppDataExportRequest, AppDataExportReply>;
  readonly import: MessageDef<AppDataImportRequest, AppDataImportReply>;
} {
  return {
    export: defineMessage<AppDataExportRequest, AppDataExportReply>(`${app}.data.export`, { timeoutMs: APP_DATA_TIMEOUT_MS }),
    import: defineMessage<AppDataImportRequest, AppDataImportReply>(`${app}.data.import`, { timeoutMs: APP_DATA_TIMEOUT_MS }),
  };
}

const APP_DATA_MESSAGES = Object.fromEntries(BACKUP_APPS.map((app) => [app, appDataMessages(app)])) as Record<BackupApp, ReturnType<typeof appDataMessages>>;

/**
 * Each app's export (its whole schema from one snapshot, streamed to the object store) and
 * import (every table replaced by a dump's rows in one transaction, then every replica's
 * caches of the app's data dropped). Subjects `<app>.data.export` and `<app>.data.import`.
 */
export const AppDataMessages = {
  export: (app: BackupApp) => APP_DATA_MESSAGES[app].export,
  import: (app: BackupApp) => APP_DATA_MESSAGES[app].import,
} as const;

/** After an import committed, the app announces that its data was replaced (broadcast). */
export interface AppDataReplaced {
  readonly app: BackupApp;
  readonly runId: string;
}

const APP_DATA_REPLACED = Object.fromEntries(BACKUP_APPS.map((app) => [app, defineEvent<AppDataReplaced>(`${app}.data.replaced`, 'broadcast')])) as Record<
  BackupApp,
  EventDef<AppDataReplaced>
>;

/**
 * `<app>.data.replaced`: every replica of every process drops everything it caches of the
 * app's data (identity: credential, customer, signing-key and sandbox caches; firmware: the
 * update-check index; registry: the device directory). The "drop everything" form of the
 * per-entry events (customerChanged, deviceChanged, firmware changed).
 */
export const AppDataEvents = {
  replaced: (app: BackupApp) => APP_DATA_REPLACED[app],
} as const;

/** Why an import refused a dump before changing anything. */
export enum AppDataDumpProblem {
  /** No object at the given key. */
  Missing = 'missing',
  /** The bytes read do not have the SHA-256 the request named (tampered, truncated or another dump). */
  ChecksumMismatch = 'checksum_mismatch',
  /** Not a dump of this app in a known format version (bad header, unknown table or column, bad row). */
  Unreadable = 'unreadable',
}
