import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { APP_DATA_FORMAT_VERSION, type AppDataExportReply, storedFilesObjectKey, type StoredFileRef, type TableDump } from '@app/contracts';
import { copyTableOut, type ObjectStore, quoteIdent, sql, type TableColumns } from '@app/infra';
import type { DataSource, EntityManager } from 'typeorm';
import type { AppDataDeclaration } from './app-data.declaration.js';
import type { ExportAppDataCommand } from './app-data.commands.js';
import { declaredTables, newestMigration } from './app-tables.js';
import { countLines, DigestTap, DUMP_FORMAT, END_OF_ROWS, jsonLine } from './dump-format.js';
import { parseCopyLine } from './copy-line.js';

/**
 * Writes an app's declared tables to the object store as one dump (see dump-format.ts), and
 * the stored files its rows name as an NDJSON list next to it, both from ONE read-only
 * REPEATABLE READ transaction: one snapshot, so rows and file list agree with each other.
 * Streamed: memory stays bounded whatever the tables' sizes.
 */
export class ExportAppData {
  constructor(
    private readonly declaration: AppDataDeclaration,
    private readonly dataSource: DataSource,
    private readonly store: ObjectStore,
  ) {}

  run(command: ExportAppDataCommand): Promise<AppDataExportReply> {
    const { app } = this.declaration;
    return this.dataSource.transaction('REPEATABLE READ', async (manager) => {
      await sql(manager, 'SET TRANSACTION READ ONLY');
      const tables = await declaredTables(manager, this.declaration); // the first read: the snapshot starts here
      const filesObjectKey = storedFilesObjectKey(command.objectKey);
      const files = { count: 0, bytes: 0 };
      await this.store.put(filesObjectKey, Readable.from(this.fileList(manager, files)), { contentType: 'application/x-ndjson' });
      const tap = new DigestTap();
      const dumped: TableDump[] = [];
      const dump = this.dump(manager, command.runId, tables, dumped);
      await this.store.put(command.objectKey, Readable.from(tap.pass(dump)), { contentType: 'text/plain; charset=utf-8' });
      return {
        app,
        objectKey: command.objectKey,
        bytes: tap.bytes,
        sha256: tap.digest(),
        formatVersion: APP_DATA_FORMAT_VERSION,
        tables: dumped,
        filesObjectKey,
        fileCount: files.count,
        fileBytes: files.bytes,
      };
    });
  }

  private async *dump(manager: EntityManager, runId: string, tables: readonly TableColumns[], dumped: TableDump[]): AsyncGenerator<Buffer> {
    const migration = await newestMigration(manager, this.declaration.app);
    yield jsonLine({ format: DUMP_FORMAT, version: APP_DATA_FORMAT_VERSION, app: this.declaration.app, runId, migration, createdAt: new Date().toISOString() });
    for (const table of tables) {
      yield jsonLine({ table: table.table, columns: table.columns });
      let rows = 0;
      for await (const chunk of copyTableOut(manager, table)) {
        rows += countLines(chunk);
        yield chunk;
      }
      yield END_OF_ROWS;
      dumped.push({ table: table.table, rows });
    }
    yield jsonLine({ end: true, tables: dumped });
  }

  /** One StoredFileRef per line, for every file key the rows name. */
  private async *fileList(manager: EntityManager, totals: { count: number; bytes: number }): AsyncGenerator<Buffer> {
    for (const files of this.declaration.files ?? []) {
      const source = { schema: this.declaration.app, table: files.table, columns: [files.key, files.size], where: `${quoteIdent(files.key)} IS NOT NULL` };
      const decoder = new StringDecoder('utf8');
      let partial = '';
      for await (const chunk of copyTableOut(manager, source)) {
        const lines = (partial + decoder.write(chunk)).split('\n');
        partial = lines.pop()!;
        const refs = lines.map((line) => storedFileRef(line));
        for (const ref of refs) {
          totals.count++;
          totals.bytes += ref.size;
        }
        if (refs.length) yield Buffer.from(refs.map((ref) => `${JSON.stringify(ref)}\n`).join(''), 'utf8');
      }
    }
  }
}

function storedFileRef(line: string): StoredFileRef {
  const [key, size] = parseCopyLine(line);
  return { key: key!, size: Number(size) };
}
