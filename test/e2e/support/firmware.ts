import { createHash, randomBytes, randomInt } from 'node:crypto';
import { letters } from './factories.js';
import type { HttpReply, RequestOptions } from './http.js';
import type { Runtime } from './runtime.js';

/** Test data and requests of the firmware suites (firmware*, update-check*, tags* e2e files). */

export interface FirmwareBuild {
  id: string;
  fw_name: string;
  hw_name: string;
  hw_version: string;
  fw_version: string;
  fw_type: 'AFI' | 'EFI' | 'MFI';
  build_date: string;
  tags: string[];
  tag_filter_disabled: boolean;
  status: 'active' | 'withdrawn';
  general_release: boolean;
  size_bytes: number;
  sha256: string;
  what_string: string | null;
  notes: { size_bytes: number; sha256: string } | null;
  uploaded_at: string;
  uploaded_by: string;
  updated_at: string;
  download_count: number;
  notes_download_count: number;
}

export interface UpdateItem {
  id: string;
  fw_name: string;
  fw_version: string;
  fw_type: string;
  hw_name: string;
  hw_version: string;
  build_date: string;
  general_release: boolean;
  size_bytes: number;
  sha256: string;
  url: string;
  notes_url: string | null;
}

export const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

/** Random bytes without '@' (so that what strings come only from the test). */
export function noise(size: number): Buffer {
  const data = randomBytes(size);
  for (let i = 0; i < data.length; i++) if (data[i] === 0x40) data[i] = 0x41;
  return data;
}

/** A binary with these what strings (`@(#)` + text + NUL), in binary noise. */
export function binaryWith(whats: readonly string[], options: { noise?: number } = {}): Buffer {
  const parts: Buffer[] = [noise(options.noise ?? 64)];
  for (const what of whats) parts.push(Buffer.from(`@(#)${what}\0`, 'latin1'), noise(options.noise ?? 64));
  return Buffer.concat(parts);
}

export interface Part {
  readonly name: string;
  readonly data: Buffer | string;
  /** Omitted: a plain form field (no filename). */
  readonly filename?: string;
  readonly contentType?: string;
}

/** A multipart/form-data body. */
export function multipart(parts: readonly Part[]): { body: Buffer; contentType: string } {
  const boundary = `----e2e${letters(16)}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    head += '\r\n';
    if (part.contentType) head += `Content-Type: ${part.contentType}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`), Buffer.from(part.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A product line of random names (no two tests collide). */
export function productLine(): { hw: string; rev: string; fw: string } {
  return { hw: `board-${letters(6)}`, rev: `rev${randomInt(100)}`, fw: `main-${letters(4)}` };
}

export interface UploadOptions {
  /** Default `/firmware`. */
  readonly path?: string;
  readonly query?: RequestOptions['query'];
  readonly firmware: Buffer;
  readonly notes?: string | Buffer;
  readonly acceptJson?: boolean;
}

export function uploadFirmware(rt: Runtime, token: string, options: UploadOptions): Promise<HttpReply> {
  const parts: Part[] = [{ name: 'firmware', data: options.firmware, filename: 'firmware.bin', contentType: 'application/octet-stream' }];
  if (options.notes !== undefined) parts.push({ name: 'notes', data: options.notes, filename: 'notes.txt', contentType: 'text/plain' });
  const { body, contentType } = multipart(parts);
  return rt.http.put(options.path ?? '/firmware', {
    auth: token,
    query: options.query,
    body,
    headers: { 'content-type': contentType },
    acceptJson: options.acceptJson,
  });
}

/** Uploads and answers the stored record (JSON mode), failing the test unless 201. */
export async function createBuild(
  rt: Runtime,
  token: string,
  line: { hw: string; rev: string; fw: string },
  fwVersion: string,
  options: {
    general?: boolean;
    fwType?: 'AFI' | 'EFI' | 'MFI';
    notes?: string;
    tags?: string[];
    tagFilterDisabled?: boolean;
    customer?: string;
    buildDate?: string;
  } = {},
): Promise<FirmwareBuild & { binary: Buffer }> {
  const binary = binaryWith([`${fwVersion}, ${options.buildDate ?? '2026-11-20T10:00:00Z'}, ${options.fwType ?? 'AFI'}`]);
  const reply = await uploadFirmware(rt, token, {
    path: `/firmware/${encodeURIComponent(line.hw)}/${encodeURIComponent(line.rev)}/${encodeURIComponent(line.fw)}`,
    query: { general_release: options.general ? 'true' : undefined, customer: options.customer },
    firmware: binary,
    notes: options.notes,
    acceptJson: true,
  });
  if (reply.status !== 201) throw new Error(`upload of ${fwVersion}: ${reply.describe()}`);
  let build = reply.json<FirmwareBuild>();
  if (options.tags || options.tagFilterDisabled) {
    const patch = await rt.http.request('PATCH', `/firmware/${build.id}`, {
      auth: token,
      query: { customer: options.customer },
      json: { ...(options.tags ? { tags: options.tags } : {}), ...(options.tagFilterDisabled ? { tag_filter_disabled: true } : {}) },
    });
    if (patch.status !== 200) throw new Error(`PATCH of ${fwVersion}: ${patch.describe()}`);
    build = patch.json<FirmwareBuild>();
  }
  return { ...build, binary };
}

/** A loopback address of its own for each call site (127.0.0.20-250), so the per-address update-check rate never interferes. */
export function clientAddress(): string {
  return `127.0.0.${20 + randomInt(230)}`;
}

/**
 * A loopback address no other test is likely to have used in the last minute (127.100-199.x.y,
 * about 6.5 million): for a test that spends an address's whole update-check rate.
 */
export function freshClientAddress(): string {
  return `127.${100 + randomInt(100)}.${randomInt(256)}.${1 + randomInt(254)}`;
}

export function updateCheckPath(domain: string, line: { hw: string; rev: string; fw: string }, fwVersion: string, hwid?: string): string {
  const segments = [domain, line.hw, line.rev, line.fw, fwVersion, ...(hwid === undefined ? [] : [hwid])].map(encodeURIComponent);
  return `/firmware/${segments.join('/')}`;
}

export async function createDevice(rt: Runtime, token: string, hwid: string, tags: string[] = []): Promise<void> {
  const reply = await rt.http.post('/devices', { auth: token, json: { hwid, tags } });
  if (reply.status !== 201) throw new Error(`POST /devices ${hwid}: ${reply.describe()}`);
}
