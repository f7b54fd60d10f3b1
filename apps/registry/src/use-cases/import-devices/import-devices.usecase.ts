import type { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { DEVICE_LIMITS, type DeviceImportError, type DeviceImportResult, type DeviceMessages, type MessageRequest, RegistryErrors } from '@app/contracts';
import { JsonLogger, ObjectStore } from '@app/infra';
import type { UpsertRow } from '../../repositories/device-import.repository.js';
import { RegistryStore } from '../../repositories/registry.store.js';
import { DeviceChanges } from '../../services/device-changes.js';
import { readCsvRecords } from './csv-reader.js';
import { ImportDevicesCommand } from './import-devices.command.js';
import { csvColumns, type ImportRow, isRowError, rowFromCsv, rowFromJson } from './import-rows.js';
import { readJsonArray } from './json-array-reader.js';

/** Rows per upsert statement and per transaction. */
export const IMPORT_BATCH_SIZE = 1000;

export interface ImportLimits {
  readonly batchSize: number;
  readonly maxRows: number;
  readonly maxReportedErrors: number;
  readonly maxReportedChanges: number;
  readonly maxRowChars: number;
}

export const DEFAULT_IMPORT_LIMITS: ImportLimits = {
  batchSize: IMPORT_BATCH_SIZE,
  maxRows: DEVICE_LIMITS.importMaxRows,
  maxReportedErrors: DEVICE_LIMITS.importMaxReportedErrors,
  maxReportedChanges: DEVICE_LIMITS.importMaxReportedChanges,
  maxRowChars: DEVICE_LIMITS.importMaxRowBytes,
};

/**
 * Bulk upsert of devices from the body the gateway staged in the object store. The body is
 * streamed back and parsed row by row (never whole in memory, never over the bus); rows are
 * applied in batches of IMPORT_BATCH_SIZE, one transaction and a few set-based statements per
 * batch, so memory stays bounded whatever the size and other requests interleave between
 * batches. Rows are applied in file order: a HW id seen twice ends the batch first, so the later
 * row wins. Refused rows are reported ({line, hwid, error}); the others are applied. A row that
 * changes nothing is not written (re-importing a file reports every row unchanged). Each batch
 * that changed something broadcasts deviceChanged for the customer; one audit entry sums the
 * import up. The staged body is deleted at the end, whatever happened.
 *
 * A dry run (dry_run=true) reads the same rows in the same batches but only compares them with
 * the stored devices: it counts and lists what would change, writes nothing, broadcasts
 * nothing and audits nothing. A HW id listed twice is compared with the stored device each
 * time (the earlier row is not applied in a dry run).
 */
@Injectable()
export class ImportDevices {
  private readonly logger = new JsonLogger('registry');
  private limits: ImportLimits = DEFAULT_IMPORT_LIMITS;

  constructor(
    @Inject(RegistryStore) private readonly store: RegistryStore,
    @Inject(ObjectStore) private readonly objects: ObjectStore,
    @Inject(DeviceChanges) private readonly changes: DeviceChanges,
  ) {}

  /** Tests: smaller batches and caps. */
  withLimits(limits: Partial<ImportLimits>): this {
    this.limits = { ...this.limits, ...limits };
    return this;
  }

  /** DeviceMessages.import. The app owns the staged body from the moment it is called: a refused import deletes it. */
  async executeForRequest(call: MessageRequest<typeof DeviceMessages.import>): Promise<DeviceImportResult> {
    let command: ImportDevicesCommand;
    try {
      command = ImportDevicesCommand.create({ ctx: call.ctx, file: call.file, contentType: call.contentType, dryRun: call.query?.dry_run });
    } catch (err) {
      if (call.file?.key) await this.objects.delete(call.file.key).catch(() => undefined);
      throw err;
    }
    return this.execute(command);
  }

  async execute(command: ImportDevicesCommand): Promise<DeviceImportResult> {
    const { customerId, file } = command;
    const result: DeviceImportResult & { errors: DeviceImportError[] } = {
      created: 0,
      updated: 0,
      unchanged: 0,
      errors: [],
      error_count: 0,
      ...(command.dryRun ? { changes: [] } : {}),
    };
    let rows = 0;
    let failure: unknown = null;
    let body: Readable | null = null;
    try {
      body = await this.objects.get(file.key);
      if (!body) throw RegistryErrors.device_import_body_not_found();
      let batch = new Map<string, UpsertRow & { readonly line: number }>();
      const flush = async () => {
        if (batch.size === 0) return;
        const upserts = [...batch.values()];
        if (command.dryRun) {
          batch = new Map();
          await this.preview(customerId, upserts, result);
          return;
        }
        const counts = await this.store.transaction(({ imports }) => imports.upsertBatch({ customerId, rows: upserts }));
        batch = new Map();
        result.created += counts.created;
        result.updated += counts.updated;
        result.unchanged += counts.unchanged;
        if (counts.created + counts.updated > 0) this.changes.deviceChanged(customerId, null);
      };
      const report = (error: DeviceImportError) => {
        result.error_count++;
        if (result.errors.length < this.limits.maxReportedErrors) result.errors.push(error);
      };
      for await (const row of this.rows(command, body)) {
        if (isRowError(row) && row.stop) {
          report({ line: row.line, hwid: row.hwid, error: row.error });
          break;
        }
        if (++rows > this.limits.maxRows) {
          report({ line: row.line, hwid: null, error: `import stopped: at most ${this.limits.maxRows} rows per request; this row and the rest were not read` });
          break;
        }
        if (isRowError(row)) {
          report({ line: row.line, hwid: row.hwid, error: row.error });
          continue;
        }
        if (batch.has(row.hwid)) await flush();
        batch.set(row.hwid, { hwid: row.hwid, tags: row.tags, attributes: row.attributes, line: row.line });
        if (batch.size >= this.limits.batchSize) await flush();
      }
      await flush();
      return result;
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      body?.destroy();
      await this.objects.delete(file.key).catch(() => undefined);
      const changed = command.dryRun ? 0 : result.created + result.updated;
      if (!command.dryRun && (failure === null || changed > 0)) {
        await this.changes.audit(this.store.repos.outbox, command.ctx, {
          action: 'device.import',
          targetType: 'device_import',
          targetId: file.sha256,
          before: null,
          after: {
            format: command.format,
            size_bytes: file.sizeBytes,
            sha256: file.sha256,
            rows: Math.min(rows, this.limits.maxRows),
            created: result.created,
            updated: result.updated,
            unchanged: result.unchanged,
            error_count: result.error_count,
            ...(failure !== null ? { failed: failure instanceof Error ? failure.message : String(failure) } : {}),
          },
        });
      }
      if (failure !== null && changed > 0) {
        this.logger
          .forRequest(command.ctx)
          .warn('device import failed after applying part of it', { customer_id: customerId, created: result.created, updated: result.updated });
      }
    }
  }

  /** A dry run's batch: counted as upsertBatch would count it, its changes listed up to the cap. */
  private async preview(
    customerId: ImportDevicesCommand['customerId'],
    rows: readonly (UpsertRow & { readonly line: number })[],
    result: DeviceImportResult,
  ): Promise<void> {
    const previews = await this.store.repos.imports.previewBatch({ customerId, rows });
    previews.forEach((preview, i) => {
      if (preview.change === 'none') {
        result.unchanged++;
        return;
      }
      if (preview.change === 'create') result.created++;
      else result.updated++;
      if (result.changes && result.changes.length < this.limits.maxReportedChanges) {
        result.changes.push({
          line: rows[i].line,
          hwid: preview.hwid,
          change: preview.change,
          tags_before: preview.tagsBefore,
          tags_after: preview.tagsAfter,
          attributes_changed: preview.attributesChanged,
        });
      }
    });
  }

  /** The body's rows, validated; the CSV header (line 1) or the opening bracket first. */
  private async *rows(command: ImportDevicesCommand, body: Readable): AsyncGenerator<ImportRow> {
    const options = { maxRecordChars: this.limits.maxRowChars, maxElementChars: this.limits.maxRowChars };
    if (command.format === 'json') {
      for await (const element of readJsonArray(body, options)) {
        if ('error' in element) yield { line: element.line, hwid: null, error: element.error, stop: element.fatal };
        else yield rowFromJson(element.line, element.value, command.canWriteTags);
      }
      return;
    }
    let columns: ReturnType<typeof csvColumns> | null = null;
    for await (const record of readCsvRecords(body, options)) {
      if (!columns) {
        if ('error' in record) throw RegistryErrors.device_import_csv_header_unreadable({ line: record.line, error: record.error });
        columns = csvColumns(record.fields);
        continue;
      }
      if ('error' in record) yield { line: record.line, hwid: null, error: record.error };
      else yield rowFromCsv(columns, record.line, record.fields, command.canWriteTags);
    }
    if (!columns) throw RegistryErrors.device_import_csv_empty();
  }
}
