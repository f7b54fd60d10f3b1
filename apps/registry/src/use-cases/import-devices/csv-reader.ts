import { StringDecoder } from 'node:string_decoder';

/** One CSV record, or why it could not be read. `line`: the physical line it starts on, from 1. */
export type CsvRecord = { readonly line: number; readonly fields: string[] } | { readonly line: number; readonly error: string };

export interface CsvReaderOptions {
  /** Longest record kept (characters); a longer one is skipped and reported. */
  readonly maxRecordChars: number;
}

const enum State {
  FieldStart,
  Unquoted,
  Quoted,
  /** A quote inside a quoted field: the end of the field, or the first half of `""`. */
  QuoteInQuoted,
  /** After the closing quote: only a separator or the end of the record may follow. */
  AfterQuoted,
}

/**
 * Streams CSV records (RFC 4180) from UTF-8 chunks, holding one record at a time: fields
 * separated by commas, optionally double-quoted (a quoted field may hold commas, line breaks and
 * `""` for a quote), records ending with LF, CRLF or CR, an optional UTF-8 byte order mark.
 * Blank lines are skipped. Line numbers count physical lines from 1, so a record whose quoted
 * field spans lines is reported at the line it starts on. A malformed record (stray quote,
 * unterminated quoted field, longer than `maxRecordChars`) yields an error entry and reading
 * goes on with the next record.
 */
export async function* readCsvRecords(chunks: AsyncIterable<Buffer | string>, options: CsvReaderOptions): AsyncGenerator<CsvRecord> {
  const decoder = new StringDecoder('utf8');
  let state = State.FieldStart;
  let fields: string[] = [];
  let field = '';
  let recordChars = 0;
  let error: string | null = null;
  let line = 1;
  let recordLine = 1;
  let afterCR = false;
  let first = true;
  let empty = true;
  const out: CsvRecord[] = [];

  const append = (text: string) => {
    if (error) return;
    recordChars += text.length;
    if (recordChars > options.maxRecordChars) {
      error = `record longer than ${options.maxRecordChars} characters`;
      field = '';
      fields = [];
      return;
    }
    field += text;
  };
  const fail = (message: string) => {
    if (!error) error = message;
    field = '';
    fields = [];
  };
  const endField = () => {
    if (!error) fields.push(field);
    field = '';
    state = State.FieldStart;
  };
  const endRecord = () => {
    endField();
    if (error) out.push({ line: recordLine, error });
    else if (!(empty && fields.length === 1 && fields[0] === '')) out.push({ line: recordLine, fields });
    fields = [];
    recordChars = 0;
    error = null;
    empty = true;
  };

  const consume = (text: string) => {
    let i = 0;
    if (first && text.length > 0) {
      first = false;
      if (text.charCodeAt(0) === 0xfeff) i = 1;
    }
    for (; i < text.length; i++) {
      const c = text[i];
      if (afterCR) {
        afterCR = false;
        if (c === '\n') {
          // the LF of a CRLF: the CR already counted the line (and ended the record outside quotes)
          if (state === State.Quoted) append(c);
          continue;
        }
      }
      if (c === '\n' || c === '\r') {
        if (c === '\r') afterCR = true;
        line++;
        if (state === State.Quoted) {
          append(c);
          continue;
        }
        if (state === State.QuoteInQuoted) state = State.AfterQuoted;
        endRecord();
        recordLine = line;
        continue;
      }
      if (empty) empty = false;
      switch (state) {
        case State.FieldStart:
          if (c === '"') state = State.Quoted;
          else if (c === ',') endField();
          else {
            append(c);
            state = State.Unquoted;
          }
          break;
        case State.Unquoted:
          if (c === ',') endField();
          else if (c === '"') fail('quote inside an unquoted field (quote the whole field and double the quote)');
          else append(c);
          break;
        case State.Quoted: {
          // copy a run of ordinary characters at once
          let j = i;
          while (j < text.length && text[j] !== '"' && text[j] !== '\n' && text[j] !== '\r') j++;
          if (j > i) {
            append(text.slice(i, j));
            i = j - 1;
          } else if (c === '"') state = State.QuoteInQuoted;
          break;
        }
        case State.QuoteInQuoted:
          if (c === '"') {
            append('"');
            state = State.Quoted;
          } else if (c === ',') endField();
          else {
            fail('unexpected character after a closing quote');
            state = State.AfterQuoted;
          }
          break;
        case State.AfterQuoted:
          if (c === ',') endField();
          else fail('unexpected character after a closing quote');
          break;
      }
    }
  };

  for await (const chunk of chunks) {
    consume(typeof chunk === 'string' ? chunk : decoder.write(chunk));
    if (out.length) yield* out.splice(0, out.length);
  }
  consume(decoder.end());
  if ((state as State) === State.Quoted) fail('unterminated quoted field');
  if (!empty || error) endRecord();
  if (out.length) yield* out.splice(0, out.length);
}
