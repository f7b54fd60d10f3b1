/**
 * The part of RFC 8941 (Structured Field Values) that Signature-Input, Signature and
 * Content-Digest use: a dictionary whose members are items or inner lists, with parameters.
 * Each member keeps its text as received, because RFC 9421 §2.3 signs the
 * `@signature-params` value exactly as the Signature-Input header carries it.
 */

export type BareItem = string | number | boolean | Uint8Array | { readonly token: string };
export type Parameters = ReadonlyMap<string, BareItem>;
export interface Item {
  readonly value: BareItem;
  readonly params: Parameters;
}
export interface InnerList {
  readonly items: readonly Item[];
  readonly params: Parameters;
}
export interface DictionaryMember {
  readonly value: Item | InnerList;
  /** The member's value as it appeared in the header (after `key=`). */
  readonly text: string;
}

export class StructuredFieldError extends Error {}

class Parser {
  pos = 0;
  constructor(readonly input: string) {}

  fail(what: string): never {
    throw new StructuredFieldError(`${what} at position ${this.pos}`);
  }
  peek(): string {
    return this.input[this.pos] ?? '';
  }
  skipSpaces(): void {
    while (this.peek() === ' ') this.pos++;
  }
  skipOws(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos++;
  }

  key(): string {
    const match = /^[a-z*][a-z0-9_\-.*]*/.exec(this.input.slice(this.pos));
    if (!match) this.fail('key expected');
    this.pos += match[0].length;
    return match[0];
  }

  bareItem(): BareItem {
    const c = this.peek();
    if (c === '"') return this.string();
    if (c === ':') return this.bytes();
    if (c === '?') {
      this.pos++;
      const b = this.peek();
      if (b !== '0' && b !== '1') this.fail('boolean expected');
      this.pos++;
      return b === '1';
    }
    if (c === '-' || (c >= '0' && c <= '9')) return this.number();
    if (/[A-Za-z*]/.test(c)) {
      const match = /^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*/.exec(this.input.slice(this.pos))!;
      this.pos += match[0].length;
      return { token: match[0] };
    }
    return this.fail('item expected');
  }

  string(): string {
    this.pos++;
    let out = '';
    for (;;) {
      const c = this.input[this.pos++];
      if (c === undefined) this.fail('unterminated string');
      if (c === '"') return out;
      if (c === '\\') {
        const next = this.input[this.pos++];
        if (next !== '"' && next !== '\\') this.fail('bad escape');
        out += next;
      } else if (c < ' ' || c > '~') this.fail('bad character in string');
      else out += c;
    }
  }

  bytes(): Uint8Array {
    const end = this.input.indexOf(':', this.pos + 1);
    if (end < 0) this.fail('unterminated byte sequence');
    const text = this.input.slice(this.pos + 1, end);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) this.fail('bad base64');
    this.pos = end + 1;
    return new Uint8Array(Buffer.from(text, 'base64'));
  }

  number(): number {
    const match = /^-?\d{1,15}(\.\d{1,3})?/.exec(this.input.slice(this.pos));
    if (!match) this.fail('number expected');
    this.pos += match[0].length;
    return Number(match[0]);
  }

  parameters(): Map<string, BareItem> {
    const params = new Map<string, BareItem>();
    while (this.peek() === ';') {
      this.pos++;
      this.skipSpaces();
      const name = this.key();
      let value: BareItem = true;
      if (this.peek() === '=') {
        this.pos++;
        value = this.bareItem();
      }
      params.set(name, value);
    }
    return params;
  }

  item(): Item {
    const value = this.bareItem();
    return { value, params: this.parameters() };
  }

  innerList(): InnerList {
    this.pos++; // (
    const items: Item[] = [];
    for (;;) {
      this.skipSpaces();
      if (this.peek() === ')') {
        this.pos++;
        return { items, params: this.parameters() };
      }
      items.push(this.item());
      const c = this.peek();
      if (c !== ' ' && c !== ')') this.fail('space or ) expected');
    }
  }

  dictionary(): Map<string, DictionaryMember> {
    const members = new Map<string, DictionaryMember>();
    this.skipSpaces();
    while (this.pos < this.input.length) {
      const name = this.key();
      const start = this.pos + 1;
      let value: Item | InnerList;
      if (this.peek() === '=') {
        this.pos++;
        value = this.peek() === '(' ? this.innerList() : this.item();
      } else {
        value = { value: true, params: this.parameters() };
      }
      members.set(name, { value, text: this.input.slice(start, this.pos) });
      this.skipOws();
      if (this.pos >= this.input.length) break;
      if (this.peek() !== ',') this.fail(', expected');
      this.pos++;
      this.skipOws();
      if (this.pos >= this.input.length) this.fail('trailing comma');
    }
    return members;
  }
}

/** Parses a dictionary field (RFC 8941 §4.2.2); throws StructuredFieldError on malformed input. */
export function parseDictionary(text: string): Map<string, DictionaryMember> {
  return new Parser(text.trim()).dictionary();
}

export function isInnerList(value: Item | InnerList): value is InnerList {
  return 'items' in value;
}

/** Serializes a component identifier (a string item with parameters), as RFC 9421 §2.5 puts it in the signature base. */
export function serializeComponentId(item: Item): string {
  if (typeof item.value !== 'string') throw new StructuredFieldError('component identifiers are strings');
  let out = JSON.stringify(item.value);
  for (const [name, value] of item.params) {
    if (value === true) out += `;${name}`;
    else if (typeof value === 'string') out += `;${name}=${JSON.stringify(value)}`;
    else if (typeof value === 'number') out += `;${name}=${value}`;
    else if (typeof value === 'object' && 'token' in value) out += `;${name}=${value.token}`;
    else throw new StructuredFieldError(`unsupported parameter ${name}`);
  }
  return out;
}
