import { createHash, type Hash } from 'node:crypto';
import { APP_DATA_FORMAT_VERSION, AppDataDumpProblem, AppDataDumpRefused, type BackupApp, type TableDump } from '@app/contracts';

/**
 * The dump an app writes of its schema (docs/architecture.md "Backups: each app's data"):
 * UTF-8 text, one JSON header line, then per table a JSON line naming the table and its
 * columns, the rows in PostgreSQL's COPY text format (one line each) and a line `\.`, and
 * last a JSON line with every table's row count. No data line can be `\.` (COPY escapes a
 * backslash as `\\`), so the sections need no lengths.
 */
export const DUMP_FORMAT = 'fds-app-data';

export interface DumpHeader {
  readonly format: typeof DUMP_FORMAT;
  readonly version: number;
  readonly app: BackupApp;
  readonly runId: string;
  /** The app's newest applied migration when dumped: an import needs it applied too. */
  readonly migration: string | null;
  readonly createdAt: string;
}

export interface TableHeader {
  readonly table: string;
  readonly columns: readonly string[];
}

export interface DumpTrailer {
  readonly end: true;
  readonly tables: readonly TableDump[];
}

export const END_OF_ROWS = Buffer.from('\\.\n');
const NEWLINE = 0x0a;

export function jsonLine(value: DumpHeader | TableHeader | DumpTrailer): Buffer {
  return Buffer.from(`${JSON.stringify(value)}\n`, 'utf8');
}

/** Number of rows (newlines) in a chunk of COPY text. */
export function countLines(chunk: Buffer): number {
  let count = 0;
  for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, at + 1)) count++;
  return count;
}

/** SHA-256 and size of everything that passes through. */
export class DigestTap {
  private readonly hash: Hash = createHash('sha256');
  bytes = 0;

  async *pass(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    for await (const chunk of chunks) {
      this.hash.update(chunk);
      this.bytes += chunk.length;
      yield chunk;
    }
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

function refused(detail: string): AppDataDumpRefused {
  return new AppDataDumpRefused(AppDataDumpProblem.Unreadable, detail);
}

function parseJsonLine(line: Buffer, what: string): Record<string, unknown> {
  try {
    const value = JSON.parse(line.toString('utf8')) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // refused below
  }
  throw refused(`expected ${what}`);
}

/** Rows of one table as the reader hands them over: chunks of whole lines, newline included. */
export interface TableSection {
  readonly header: TableHeader;
  /** Must be read to its end before the next section is asked for. */
  readonly chunks: AsyncIterable<Buffer>;
  /** Rows read so far (all of them once `chunks` is exhausted). */
  rows(): number;
}

/** No row of any table comes near this; a longer line is not a dump (and must not fill memory). */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Rows per chunk handed to a COPY: bounded in bytes, whole lines. */
const SECTION_CHUNK_BYTES = 1024 * 1024;

/**
 * Reads a dump: the header (checked against `app`), then each table's section in order,
 * then the trailer (its counts checked against the rows read). Anything malformed is refused
 * as Unreadable.
 */
export class DumpReader {
  private readonly source: AsyncIterator<Buffer | string>;
  /** Bytes read from the source and not handed on yet. */
  private pending: Buffer = Buffer.alloc(0);
  header: DumpHeader | null = null;

  constructor(
    chunks: AsyncIterable<Buffer | string>,
    private readonly app: BackupApp,
  ) {
    this.source = chunks[Symbol.asyncIterator]();
  }

  /** Appends the source's next chunk to `pending`; false at its end. */
  private async pull(): Promise<boolean> {
    if (this.pending.length > MAX_LINE_BYTES) throw refused(`a line longer than ${MAX_LINE_BYTES} bytes`);
    const next = await this.source.next();
    if (next.done) return false;
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    return true;
  }

  /** The next line, without its newline. */
  private async line(what: string): Promise<Buffer> {
    let searched = 0;
    for (;;) {
      const at = this.pending.indexOf(NEWLINE, searched);
      if (at !== -1) {
        const line = this.pending.subarray(0, at);
        this.pending = this.pending.subarray(at + 1);
        return line;
      }
      searched = this.pending.length;
      if (!(await this.pull())) throw refused(`the dump ends before ${what} (truncated)`);
    }
  }

  async readHeader(): Promise<DumpHeader> {
    const header = parseJsonLine(await this.line('its header'), 'the dump header');
    if (header.format !== DUMP_FORMAT) throw refused('not an application data dump');
    if (header.version !== APP_DATA_FORMAT_VERSION) throw refused(`format version ${String(header.version)} is not ${APP_DATA_FORMAT_VERSION}`);
    if (header.app !== this.app) throw refused(`a dump of ${String(header.app)}, not of ${this.app}`);
    if (header.migration !== null && typeof header.migration !== 'string') throw refused('bad migration in the header');
    this.header = header as unknown as DumpHeader;
    return this.header;
  }

  /** Every table section in dump order, then checks the trailer. */
  async *sections(): AsyncGenerator<TableSection> {
    const read: TableDump[] = [];
    for (;;) {
      const line = parseJsonLine(await this.line('its trailer'), 'a table header or the trailer');
      if (line.end === true) {
        this.checkTrailer(line, read);
        if (this.pending.length > 0 || (await this.pull())) throw refused('data after the trailer');
        return;
      }
      const header = tableHeader(line);
      let rows = 0;
      const section: TableSection = { header, chunks: this.rowChunks(header.table, (n) => (rows += n)), rows: () => rows };
      yield section;
      read.push({ table: header.table, rows });
    }
  }

  /**
   * The rows of a section up to its `\.` line, as chunks of whole lines of about
   * SECTION_CHUNK_BYTES: found by searching the bytes, not line by line (no data line can
   * be `\.`, so the first newline-`\.`-newline ends the section).
   */
  private async *rowChunks(table: string, counted: (rows: number) => void): AsyncGenerator<Buffer> {
    let batch: Buffer[] = [];
    let bytes = 0;
    const take = (end: number) => {
      const rows = this.pending.subarray(0, end);
      counted(countLines(rows));
      batch.push(rows);
      bytes += rows.length;
    };
    for (;;) {
      if (this.pending.length >= END_OF_ROWS.length && this.pending.subarray(0, END_OF_ROWS.length).equals(END_OF_ROWS)) {
        this.pending = this.pending.subarray(END_OF_ROWS.length);
        break;
      }
      const marker = this.pending.indexOf(NEWLINE_END_OF_ROWS);
      if (marker !== -1) {
        take(marker + 1);
        this.pending = this.pending.subarray(marker + NEWLINE_END_OF_ROWS.length);
        break;
      }
      const lastNewline = this.pending.lastIndexOf(NEWLINE);
      if (lastNewline !== -1) {
        take(lastNewline + 1); // whole lines; the rest (maybe the start of `\.`) waits for more
        this.pending = this.pending.subarray(lastNewline + 1);
      }
      if (bytes >= SECTION_CHUNK_BYTES) {
        yield Buffer.concat(batch, bytes);
        batch = [];
        bytes = 0;
      }
      if (!(await this.pull())) throw refused(`the dump ends before the end of table ${table} (truncated)`);
    }
    if (bytes > 0) yield Buffer.concat(batch, bytes);
  }

  private checkTrailer(line: Record<string, unknown>, read: readonly TableDump[]): void {
    const tables = Array.isArray(line.tables) ? (line.tables as unknown[]) : null;
    const matches =
      tables !== null &&
      tables.length === read.length &&
      tables.every((t, i) => {
        const entry = t as Partial<TableDump> | null;
        return entry?.table === read[i].table && entry?.rows === read[i].rows;
      });
    if (!matches) throw refused('the row counts of the trailer differ from the rows read');
  }
}

const NEWLINE_END_OF_ROWS = Buffer.from('\n\\.\n');

function tableHeader(line: Record<string, unknown>): TableHeader {
  const { table, columns } = line;
  if (typeof table !== 'string' || !Array.isArray(columns) || columns.length === 0 || !columns.every((c) => typeof c === 'string')) {
    throw refused('bad table header');
  }
  return { table, columns };
}
