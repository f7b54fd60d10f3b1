import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The tar (ustar, with pax records for long names) headers of the archive, from tar-stream's
 * own header codec: the archive writes and reads its entries straight into and out of the
 * cipher's batches (docs/performance.md "Backups"), without tar-stream's stream machinery per
 * entry, but with its encoding. tar-stream exports only its streams, so the codec is loaded by
 * path from the installed package (version pinned; the unit tests check the result against
 * tar-stream's own pack and extract).
 */
interface TarHeaderFields {
  name: string;
  size: number;
  mode: number;
  uid: number;
  gid: number;
  mtime: Date;
  type: 'file' | 'pax-header';
}
interface DecodedTarHeader {
  name: string;
  size: number;
  type: string | null;
}
interface TarHeaderCodec {
  encode(fields: TarHeaderFields): Buffer | null;
  encodePax(opts: { name: string }): Buffer;
  decode(block: Buffer, filenameEncoding?: string, allowUnknownFormat?: boolean): DecodedTarHeader | null;
  decodePax(data: Buffer): Record<string, string>;
}

const require = createRequire(import.meta.url);
const codec = require(join(dirname(require.resolve('tar-stream')), 'headers.js')) as TarHeaderCodec;

export const TAR_BLOCK = 512;
/** Two zero blocks end a tar archive. */
export const TAR_END = Buffer.alloc(2 * TAR_BLOCK);
/** Longest pax record block read back (ours hold one path). */
export const MAX_PAX_BYTES = 64 * 1024;
const ZEROS = Buffer.alloc(TAR_BLOCK);

/** Zero bytes that fill an entry of `size` up to its last block. */
export function tarPadding(size: number): Buffer {
  return ZEROS.subarray(0, (TAR_BLOCK - (size % TAR_BLOCK)) % TAR_BLOCK);
}

/**
 * The header block(s) of a regular file entry, as tar-stream's pack writes them: one ustar
 * block, or for a name that does not fit a pax block (`path=`) and then the ustar block.
 */
export function fileEntryHeader(name: string, size: number, mtime: Date): Buffer[] {
  const fields: TarHeaderFields = { name, size, mode: 0o600, uid: 0, gid: 0, mtime, type: 'file' };
  const plain = codec.encode(fields);
  if (plain) return [plain];
  const pax = codec.encodePax({ name });
  const paxHeader = codec.encode({ ...fields, name: 'PaxHeader', size: pax.length, type: 'pax-header' })!;
  const header = codec.encode({ ...fields, name: 'PaxHeader' })!;
  return [paxHeader, pax, tarPadding(pax.length), header];
}

/** A header block read back: null for a zero block; throws on a damaged one (checksum). */
export function decodeTarHeader(block: Buffer): DecodedTarHeader | null {
  return codec.decode(block, 'utf-8', false);
}

/** The `path` of a pax record block, if it has one. */
export function paxPath(data: Buffer): string | undefined {
  return codec.decodePax(data).path;
}
