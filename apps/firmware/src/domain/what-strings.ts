import type { Readable } from 'node:stream';

/**
 * What strings (SCCS `what(1)`): the marker `@(#)` followed by text, inside a binary. A
 * firmware build carries `@(#)<fw_version>, <build_date>, <fw_type>`; a binary may carry
 * several, and `what_index` (from 0, in order of position) chooses one.
 *
 * Every marker counts, also one whose text cannot be parsed (it keeps its index, and choosing
 * it is an error). The text of a marker ends at the first byte that cannot be part of a what
 * string (NUL or another control character, a byte above 0x7E, `"`, `>` or `\`, where
 * what(1) stops too), where the next marker begins, or after {@link WHAT_TEXT_MAX_BYTES}
 * bytes (the rest is ignored).
 *
 * The scanner reads a stream in bounded memory: besides the chunk at hand it keeps at most 3
 * bytes not yet decided (a marker may straddle two chunks), the open text (at most 256
 * bytes) and the first {@link WHAT_STRINGS_MAX} what strings (later markers are only counted).
 */

export const WHAT_MARKER = Buffer.from('@(#)', 'latin1');
export const WHAT_TEXT_MAX_BYTES = 256;
export const WHAT_STRINGS_MAX = 1000;

export interface FoundWhatString {
  /** 0-based position among the markers of the binary. */
  readonly index: number;
  /** Byte offset of the marker's `@`. */
  readonly offset: number;
  /** The text after the marker (printable ASCII, possibly empty). */
  readonly text: string;
}

export interface WhatStringScan {
  /** The first WHAT_STRINGS_MAX what strings, in order. */
  readonly found: FoundWhatString[];
  /** Number of markers in the whole binary (may exceed found.length). */
  readonly total: number;
  readonly sizeBytes: number;
}

function endsText(byte: number): boolean {
  return byte < 0x20 || byte > 0x7e || byte === 0x22 /* " */ || byte === 0x3e /* > */ || byte === 0x5c; /* \ */
}

function markerAt(data: Buffer, i: number): boolean {
  return data[i] === 0x40 && data[i + 1] === 0x28 && data[i + 2] === 0x23 && data[i + 3] === 0x29;
}

/** Incremental scanner: push chunks in order, then finish(). */
export class WhatStringScanner {
  private readonly found: FoundWhatString[] = [];
  private total = 0;
  private size = 0;
  /** Bytes not decided yet (fewer than a marker's length), and the offset of the first. */
  private pending: Buffer = Buffer.alloc(0);
  private pendingOffset = 0;
  /** The what string being read, if any. */
  private open: { offset: number; bytes: number[]; full: boolean } | null = null;

  constructor(private readonly maxRecorded = WHAT_STRINGS_MAX) {}

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.size += chunk.length;
    const data = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    // Positions from `limit` on could begin a marker whose end is not here yet: decided later.
    const limit = data.length - (WHAT_MARKER.length - 1);
    if (limit <= 0) {
      this.pending = Buffer.from(data);
      return;
    }
    const next = this.scan(data, limit);
    const keepFrom = Math.max(next, limit);
    this.pendingOffset += keepFrom;
    this.pending = Buffer.from(data.subarray(keepFrom));
  }

  finish(): WhatStringScan {
    if (this.pending.length) this.scan(this.pending, this.pending.length);
    this.pending = Buffer.alloc(0);
    this.closeOpen();
    return { found: this.found, total: this.total, sizeBytes: this.size };
  }

  /**
   * Scans data[0..limit) (data may extend beyond limit: enough to recognise a marker that
   * starts before it). Returns where scanning stopped, which may be past limit when a marker
   * starting before limit ends after it.
   */
  private scan(data: Buffer, limit: number): number {
    let i = 0;
    while (i < limit) {
      if (this.open) {
        i = this.readText(data, i, limit);
        continue;
      }
      const at = data.indexOf(WHAT_MARKER, i);
      if (at === -1 || at >= limit) return limit;
      this.startMarker(this.pendingOffset + at);
      i = at + WHAT_MARKER.length;
    }
    return i;
  }

  /** Appends text bytes from data[i..limit) to the open what string; returns where it stopped. */
  private readText(data: Buffer, i: number, limit: number): number {
    const open = this.open!;
    for (; i < limit; i++) {
      const byte = data[i];
      if (byte === 0x40 && i + WHAT_MARKER.length <= data.length && markerAt(data, i)) {
        this.closeOpen();
        return i;
      }
      if (open.full) continue; // past the length limit: ignored, but a marker may still follow
      if (endsText(byte)) {
        this.closeOpen();
        return i + 1;
      }
      if (open.bytes.length >= WHAT_TEXT_MAX_BYTES) {
        open.full = true;
        continue;
      }
      open.bytes.push(byte);
    }
    return i;
  }

  private startMarker(offset: number): void {
    this.closeOpen();
    this.total++;
    this.open = { offset, bytes: [], full: false };
  }

  private closeOpen(): void {
    const open = this.open;
    if (!open) return;
    this.open = null;
    if (this.found.length >= this.maxRecorded) return;
    this.found.push({ index: this.found.length, offset: open.offset, text: Buffer.from(open.bytes).toString('latin1') });
  }
}

/** Scans a whole stream (a staged upload read back from the object store). */
export async function scanWhatStrings(stream: Readable, maxRecorded = WHAT_STRINGS_MAX): Promise<WhatStringScan> {
  const scanner = new WhatStringScanner(maxRecorded);
  for await (const chunk of stream) scanner.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  return scanner.finish();
}

/** Scans a buffer in one go. */
export function scanWhatStringsInBuffer(data: Buffer, maxRecorded = WHAT_STRINGS_MAX): WhatStringScan {
  const scanner = new WhatStringScanner(maxRecorded);
  scanner.push(data);
  return scanner.finish();
}
