import { ServiceError } from '@app/contracts';
import type { JsonLogger, ObjectStore } from '@app/infra';

/** Rounds of insert-then-read before giving up (only a row vanishing between the two repeats one). */
const MAX_ROUNDS = 3;

/** One write-once upload: how to store its row and how to compare a stored one. */
export interface WriteOnceUpload<Row> {
  /** Every staged object of the upload (the first is named in logs). */
  readonly stagedKeys: readonly string[];
  /** INSERT ... ON CONFLICT DO NOTHING: the new row, or null when the name is taken. */
  insertIfAbsent(): Promise<Row | null>;
  /** The stored row that holds the name, or null. */
  findExisting(): Promise<Row | null>;
  /** The object keys a stored row points at: those objects are the file, never deleted here. */
  ownedKeys(row: Row): readonly (string | null | undefined)[];
  /** Whether the stored row has the same content as the upload (an identical re-upload). */
  sameContent(row: Row): boolean;
}

export type WriteOnceOutcome<Row> =
  | { readonly kind: 'created'; readonly row: Row }
  | { readonly kind: 'identical'; readonly row: Row }
  /** The name is taken by different content; the caller answers 409. */
  | { readonly kind: 'conflict'; readonly row: Row };

export interface WriteOnceMessages {
  /** 503 when the name stays taken by a row that keeps vanishing: the catalog entry that raises it. */
  readonly unavailable: () => ServiceError;
  /** Warning when a staged object could not be deleted. */
  readonly deleteFailed: string;
  /** Warning when the staged objects are kept because the database could not tell whether they were stored. */
  readonly keptUnknown: string;
}

/**
 * Write-once storage of an uploaded file (log files, firmware builds). The database decides:
 * the insert that wins the name keeps the staged objects as the file's objects (their keys are
 * stored: no copy, the body never passes through the app). Every other outcome (identical
 * re-upload, conflict, error) deletes the staged objects, unless the stored row already points
 * at that very key (a retried message), in which case it is the file.
 */
export class WriteOnceUploads {
  constructor(
    private readonly objects: ObjectStore,
    private readonly messages: WriteOnceMessages,
  ) {}

  async store<Row>(upload: WriteOnceUpload<Row>, log: JsonLogger): Promise<WriteOnceOutcome<Row>> {
    try {
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const inserted = await upload.insertIfAbsent();
        if (inserted) return { kind: 'created', row: inserted };
        const existing = await upload.findExisting();
        if (!existing) continue; // the row that blocked the insert is gone again: decide anew
        await this.discardUnlessOwned(upload, existing, log);
        return { kind: upload.sameContent(existing) ? 'identical' : 'conflict', row: existing };
      }
      await this.discardAll(upload.stagedKeys, log);
      throw this.messages.unavailable();
    } catch (err) {
      if (!ServiceError.is(err)) await this.discardAfterError(upload, log);
      throw err;
    }
  }

  /** Best effort, for an upload refused before storing: every staged object goes. */
  async discardAll(keys: readonly string[], log: JsonLogger): Promise<void> {
    for (const key of keys) await this.discard(key, log);
  }

  private async discardUnlessOwned<Row>(upload: WriteOnceUpload<Row>, existing: Row, log: JsonLogger): Promise<void> {
    const owned = upload.ownedKeys(existing);
    for (const key of upload.stagedKeys) if (!owned.includes(key)) await this.discard(key, log);
  }

  /**
   * After an unexpected error the insert may or may not have committed (e.g. the connection
   * dropped after COMMIT). Look before deleting: a stored row must never point at a deleted
   * object. When the database cannot tell, the objects stay (logged with the key) rather than risk that.
   */
  private async discardAfterError<Row>(upload: WriteOnceUpload<Row>, log: JsonLogger): Promise<void> {
    let existing: Row | null;
    try {
      existing = await upload.findExisting();
    } catch (err) {
      log.write('warn', this.messages.keptUnknown, { key: upload.stagedKeys[0], error: err instanceof Error ? err.message : String(err) });
      return;
    }
    if (existing) await this.discardUnlessOwned(upload, existing, log);
    else await this.discardAll(upload.stagedKeys, log);
  }

  /** Best effort: a failed delete is logged with the key, never hides the upload's outcome. */
  private async discard(key: string, log: JsonLogger): Promise<void> {
    try {
      await this.objects.delete(key);
    } catch (err) {
      log.write('warn', this.messages.deleteFailed, { key, error: err instanceof Error ? err.message : String(err) });
    }
  }
}
