import { StringDecoder } from 'node:string_decoder';
import { RegistryErrors } from '@app/contracts';

/**
 * One element of the top-level array: its position (from 1) and value, or why it could not be
 * read. `fatal`: the array itself is malformed, nothing after this point was read.
 */
export type JsonElement = { readonly line: number; readonly value: unknown } | { readonly line: number; readonly error: string; readonly fatal?: boolean };

export interface JsonArrayReaderOptions {
  /** Longest element kept (characters); a longer one is skipped and reported. */
  readonly maxElementChars: number;
}

const enum State {
  /** Before the opening bracket. */
  Start,
  /** Expecting an element (or `]` right after `[`). */
  BeforeElement,
  InElement,
  InString,
  InStringEscape,
  /** After the closing bracket: only whitespace may follow. */
  Done,
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

/**
 * Streams the elements of a JSON array from UTF-8 chunks, holding one element at a time: a
 * small scanner finds where each element ends (tracking strings, escapes and nesting) and each
 * element is parsed on its own with JSON.parse. A body that does not start with `[` is a 400
 * before anything is yielded. An element that is not valid JSON, or longer than
 * `maxElementChars`, yields an error entry and reading goes on; a broken array structure
 * (unterminated, content after the closing bracket) yields a fatal error entry and ends.
 */
export async function* readJsonArray(chunks: AsyncIterable<Buffer | string>, options: JsonArrayReaderOptions): AsyncGenerator<JsonElement> {
  const decoder = new StringDecoder('utf8');
  let state = State.Start;
  let depth = 0;
  let element = '';
  let tooLong = false;
  let index = 0;
  let first = true;
  const out: JsonElement[] = [];
  let fatal: string | null = null;

  const finishElement = () => {
    index++;
    if (tooLong) out.push({ line: index, error: `element longer than ${options.maxElementChars} characters` });
    else {
      try {
        out.push({ line: index, value: JSON.parse(element) });
      } catch (err) {
        out.push({ line: index, error: `not valid JSON: ${err instanceof Error ? err.message : String(err)}` });
      }
    }
    element = '';
    tooLong = false;
    depth = 0;
  };
  const keep = (text: string) => {
    if (tooLong) return;
    if (element.length + text.length > options.maxElementChars) {
      tooLong = true;
      element = '';
      return;
    }
    element += text;
  };

  const consume = (text: string) => {
    let i = 0;
    if (first && text.length > 0) {
      first = false;
      if (text.charCodeAt(0) === 0xfeff) i = 1;
    }
    for (; i < text.length && fatal === null; i++) {
      const c = text[i];
      switch (state) {
        case State.Start:
          if (WHITESPACE.has(c)) break;
          if (c !== '[') throw RegistryErrors.device_import_not_json_array();
          state = State.BeforeElement;
          break;
        case State.BeforeElement:
          if (WHITESPACE.has(c)) break;
          if (c === ']' && index === 0) {
            state = State.Done;
            break;
          }
          if (c === ']' || c === ',') {
            fatal = `malformed JSON array: unexpected "${c}" where an element was expected`;
            break;
          }
          state = State.InElement;
          i--; // read this character as part of the element
          break;
        case State.InElement: {
          if (c === '"') {
            keep(c);
            state = State.InString;
          } else if (c === '{' || c === '[') {
            depth++;
            keep(c);
          } else if ((c === '}' || c === ']') && depth > 0) {
            depth--;
            keep(c);
          } else if (depth === 0 && (c === ',' || c === ']')) {
            finishElement();
            state = c === ',' ? State.BeforeElement : State.Done;
          } else {
            // copy a run of ordinary characters at once
            let j = i;
            while (j < text.length && !'"{}[],'.includes(text[j])) j++;
            keep(text.slice(i, Math.max(j, i + 1)));
            i = Math.max(j, i + 1) - 1;
          }
          break;
        }
        case State.InString: {
          let j = i;
          while (j < text.length && text[j] !== '"' && text[j] !== '\\') j++;
          if (j > i) {
            keep(text.slice(i, j));
            i = j - 1;
          } else {
            keep(c);
            state = c === '"' ? State.InElement : State.InStringEscape;
          }
          break;
        }
        case State.InStringEscape:
          keep(c);
          state = State.InString;
          break;
        case State.Done:
          if (!WHITESPACE.has(c)) fatal = 'malformed JSON array: content after the closing bracket';
          break;
      }
    }
  };

  for await (const chunk of chunks) {
    consume(typeof chunk === 'string' ? chunk : decoder.write(chunk));
    if (out.length) yield* out.splice(0, out.length);
    if (fatal !== null) break;
  }
  if (fatal === null) {
    consume(decoder.end());
    if (state === State.Start) throw RegistryErrors.device_import_not_json_array();
    if (state !== State.Done) {
      // a last element complete but for the closing bracket is still read
      if ((state as State) === State.InElement && depth === 0 && element.trim() !== '') finishElement();
      fatal = 'malformed JSON array: the body ends before the closing bracket';
    }
  }
  if (out.length) yield* out.splice(0, out.length);
  if (fatal !== null) yield { line: index + 1, error: fatal, fatal: true };
}
