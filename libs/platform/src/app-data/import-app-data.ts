import type { Readable } from 'node:stream';
import { AppDataDumpProblem, AppDataDumpRefused, AppDataEvents, type AppDataImportReply, type TableDump } from '@app/contracts';
import { copyTableIn, JsonLogger, type MessageBus, type ObjectStore, type TableColumns } from '@app/infra';
import type { DataSource, EntityManager } from 'typeorm';
import type { AppDataDeclaration } from './app-data.declaration.js';
import type { ImportAppDataCommand } from './app-data.commands.js';
import { declaredTables, emptyTables, migrationApplied, resetSequences, restoreIndexes, setIndexesAside } from './app-tables.js';
import { DigestTap, DumpReader } from './dump-format.js';

/**
 * SQLSTATE classes of a value or row the database refuses (22 data exception, 23 integrity
 * constraint violation): the dump's fault, answered as Unreadable. Anything else (connection
 * lost, ...) is the service's own failure.
 */
const REFUSED_ROW = /^2[23]/;

/**
 * Replaces all of an app's declared tables by a dump's rows, in ONE transaction: the dump's
 * SHA-256 is checked first (a mismatch changes nothing), then every table is emptied, the
 * rows loaded (COPY, the indexes that back no constraint built afterwards), sequences set past
 * the loaded values, and committed; a failure at any point rolls everything back. Then every
 * replica is told to drop what it caches of the app's data (AppDataEvents.replaced). Excluded tables are never touched.
 */
export class ImportAppData {
  private readonly logger: JsonLogger;

  constructor(
    private readonly declaration: AppDataDeclaration,
    private readonly dataSource: DataSource,
    private readonly store: ObjectStore,
    private readonly bus: MessageBus,
  ) {
    this.logger = new JsonLogger(declaration.app);
  }

  async run(command: ImportAppDataCommand): Promise<AppDataImportReply> {
    const { app } = this.declaration;
    await this.checkDigest(command); // before touching anything
    const body = await this.open(command.objectKey);
    const { tables, announce } = await this.dataSource
      .transaction(async (manager) => {
        const tap = new DigestTap();
        const loaded = await this.load(manager, new DumpReader(tap.pass(body), app));
        if (tap.digest() !== command.sha256) throw checksumMismatch(); // the object changed since the check
        return { tables: loaded, announce: await this.declaration.afterImport?.(manager) };
      })
      .finally(() => body.destroy());
    this.bus.emit(AppDataEvents.replaced(app), { app, runId: command.runId });
    announce?.(this.bus);
    this.logger.info('application data replaced from a dump', { run_id: command.runId, tables: tables.length, rows: tables.reduce((n, t) => n + t.rows, 0) });
    return { app, tables };
  }

  private async open(objectKey: string): Promise<Readable> {
    const body = await this.store.get(objectKey);
    if (!body) throw new AppDataDumpRefused(AppDataDumpProblem.Missing, `no dump at ${objectKey}`);
    return body;
  }

  private async checkDigest(command: ImportAppDataCommand): Promise<void> {
    const tap = new DigestTap();
    const body = await this.open(command.objectKey);
    try {
      for await (const chunk of tap.pass(body)) void chunk;
    } finally {
      body.destroy();
    }
    if (tap.digest() !== command.sha256) throw checksumMismatch();
  }

  private async load(manager: EntityManager, reader: DumpReader): Promise<TableDump[]> {
    const schema = this.declaration.app;
    const header = await reader.readHeader();
    if (header.migration !== null && !(await migrationApplied(manager, schema, header.migration))) {
      throw new AppDataDumpRefused(AppDataDumpProblem.Unreadable, `the dump needs migration ${header.migration}, which this database does not have`);
    }
    const tables = await declaredTables(manager, this.declaration);
    const byName = new Map(tables.map((t) => [t.table, t]));
    await emptyTables(manager, tables);
    const indexes = await setIndexesAside(manager, tables);
    const loaded: TableDump[] = [];
    for await (const section of reader.sections()) {
      const target = loadTarget(byName, section.header.table, section.header.columns);
      byName.delete(target.table); // each table once
      try {
        await copyTableIn(manager, target, section.chunks);
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        if (typeof code === 'string' && REFUSED_ROW.test(code)) {
          throw new AppDataDumpRefused(AppDataDumpProblem.Unreadable, `table ${target.table}: ${(err as Error).message}`);
        }
        throw err;
      }
      loaded.push({ table: target.table, rows: section.rows() });
    }
    await restoreIndexes(manager, indexes);
    await resetSequences(manager, tables);
    return loaded;
  }
}

function checksumMismatch(): AppDataDumpRefused {
  return new AppDataDumpRefused(AppDataDumpProblem.ChecksumMismatch, 'the dump does not have the expected SHA-256');
}

/** The table a section loads into: declared, not loaded yet, and every column of the dump one it stores. */
function loadTarget(tables: ReadonlyMap<string, TableColumns>, table: string, columns: readonly string[]): TableColumns {
  const target = tables.get(table);
  if (!target) throw new AppDataDumpRefused(AppDataDumpProblem.Unreadable, `table ${table} is not one this app loads (or appears twice)`);
  const stored = new Set(target.columns);
  const unknown = columns.filter((c) => !stored.has(c));
  if (unknown.length > 0 || new Set(columns).size !== columns.length) {
    throw new AppDataDumpRefused(AppDataDumpProblem.Unreadable, `table ${table}: columns ${unknown.join(', ') || '(repeated)'} cannot be loaded`);
  }
  return { schema: target.schema, table, columns };
}
