import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { Inject, Injectable } from '@nestjs/common';
import { GatewayErrors, type FileRef, type EventDef } from '@app/contracts';
import { DownloadLinkSigner, MessageBus, ObjectStore, PRESIGNED_URL_TTL_SECONDS, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG, TtlCache } from '@app/platform';

export const DOWNLOAD_SIGNER = Symbol('DownloadLinkSigner');

type ByteRange = { start: number; end: number };

/**
 * GET/HEAD /dl/{token} (docs/api.md "Download links"): 404 for a malformed or forged link, 410
 * once expired, 429 past the per-address rate; a 302 to a 60-second pre-signed URL when the
 * store can make one, otherwise the file streamed with Range support (206). Only GET counts.
 */
@Injectable()
export class DownloadServer {
  private readonly perAddress: TtlCache<string, { count: number }>;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(DOWNLOAD_SIGNER) private readonly signer: DownloadLinkSigner,
    private readonly store: ObjectStore,
    private readonly bus: MessageBus,
  ) {
    this.perAddress = new TtlCache(100_000, 60_000);
  }

  /** An absolute 5-minute link to the file. */
  linkFor(file: FileRef): string {
    return this.signer.link(this.config.publicUrl, file);
  }

  /** `clientIp` is the request's client address (RequestState.ip), which the per-address rate counts. */
  async serve(req: IncomingMessage, res: ServerResponse, token: string, clientIp: string): Promise<void> {
    const checked = this.signer.check(token);
    if (!checked.ok) {
      throw checked.reason === 'expired' ? GatewayErrors.download_link_expired() : GatewayErrors.download_link_not_found();
    }
    const file = checked.claims.file;
    const head = req.method === 'HEAD';
    if (!head) this.countRate(clientIp);

    const presigned = head
      ? null
      : await this.store.presignGet(file.key, { expiresInSeconds: PRESIGNED_URL_TTL_SECONDS, contentType: file.contentType, filename: file.filename });
    if (presigned) {
      this.counted(file);
      res.statusCode = 302;
      res.setHeader('Location', presigned);
      res.setHeader('Cache-Control', 'no-store');
      res.end();
      return;
    }

    const range = parseRange(req.headers.range, file.sizeBytes);
    if (range === 'unsatisfiable') {
      throw GatewayErrors.range_not_satisfiable({ 'Content-Range': `bytes */${file.sizeBytes}` });
    }
    res.setHeader('Content-Type', file.contentType);
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('ETag', `"${file.sha256}"`);
    res.setHeader('Last-Modified', new Date(file.lastModified).toUTCString());
    res.setHeader('Cache-Control', 'private, no-store');
    if (file.filename) res.setHeader('Content-Disposition', `attachment; filename="${file.filename.replace(/[^\w.-]/g, '_')}"`);
    if (range) {
      res.statusCode = 206;
      res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${file.sizeBytes}`);
      res.setHeader('Content-Length', range.end - range.start + 1);
    } else {
      res.statusCode = 200;
      res.setHeader('Content-Length', file.sizeBytes);
    }
    if (head) {
      res.end();
      return;
    }
    const body = file.sizeBytes === 0 ? null : await this.store.get(file.key, range ?? undefined);
    if (file.sizeBytes !== 0 && !body) throw GatewayErrors.download_file_not_found();
    if (!range || range.start === 0) this.counted(file);
    if (!body) {
      res.end();
      return;
    }
    try {
      await pipeline(body, res);
    } catch (err) {
      // The client closed the connection before the last byte (it stopped a download, or read
      // only what it wanted): nothing failed on our side. A store that fails mid-file still does.
      if ((err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
      throw err;
    }
  }

  private countRate(ip: string): void {
    const entry = this.perAddress.get(ip);
    if (!entry) {
      this.perAddress.set(ip, { count: 1 });
      return;
    }
    entry.count++;
    if (entry.count > this.config.downloadRatePerMinute) {
      throw GatewayErrors.downloads_rate_limited({ 'Retry-After': '60' });
    }
  }

  private counted(file: FileRef): void {
    if (!file.onDownload) return;
    const event: EventDef<Record<string, unknown>> = { subject: file.onDownload.subject, delivery: 'queue', byReference: false };
    this.bus.emit(event, { ...file.onDownload.payload, at: new Date().toISOString() });
  }
}

/** A single `bytes=` range; multiple ranges are answered with the whole file (allowed by RFC 9110). */
export function parseRange(header: string | undefined, size: number): ByteRange | null | 'unsatisfiable' {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}
