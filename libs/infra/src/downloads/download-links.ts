import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FileRef } from '@app/contracts';
import type { ServiceConfig } from '../config/config.js';

/** Download links are self-contained and signed, valid 5 minutes; nothing is stored per link. */
export const DOWNLOAD_LINK_TTL_SECONDS = 300;
/** A pre-signed object-store URL is valid 60 seconds. */
export const PRESIGNED_URL_TTL_SECONDS = 60;

export interface DownloadLinkClaims {
  /** The file to serve. */
  readonly file: FileRef;
  /** Expiry, seconds since the epoch. */
  readonly exp: number;
}

export type DownloadLinkCheck = { readonly ok: true; readonly claims: DownloadLinkClaims } | { readonly ok: false; readonly reason: 'malformed' | 'expired' };

/**
 * Signs and checks /dl tokens: base64url(JSON claims) "." base64url(HMAC-SHA256). Every
 * process that makes links (gateway, later the firmware app's update check) shares the key.
 */
export class DownloadLinkSigner {
  private readonly key: Buffer;

  constructor(secret: string) {
    if (secret.length < 32) throw new Error('DOWNLOAD_LINK_SECRET must be at least 32 characters');
    this.key = Buffer.from(secret, 'utf8');
  }

  sign(file: FileRef, nowSeconds = Math.floor(Date.now() / 1000)): string {
    const claims: DownloadLinkClaims = { file, exp: nowSeconds + DOWNLOAD_LINK_TTL_SECONDS };
    const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  /** An absolute link for `baseUrl`. */
  link(baseUrl: string, file: FileRef): string {
    return `${baseUrl}/dl/${this.sign(file)}`;
  }

  check(token: string, nowSeconds = Math.floor(Date.now() / 1000)): DownloadLinkCheck {
    const dot = token.indexOf('.');
    if (dot <= 0 || dot !== token.lastIndexOf('.')) return { ok: false, reason: 'malformed' };
    const body = token.slice(0, dot);
    const presented = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.mac(body), 'base64url');
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return { ok: false, reason: 'malformed' };
    let claims: DownloadLinkClaims;
    try {
      claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as DownloadLinkClaims;
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    if (typeof claims?.exp !== 'number' || typeof claims.file?.key !== 'string') return { ok: false, reason: 'malformed' };
    if (claims.exp <= nowSeconds) return { ok: false, reason: 'expired' };
    return { ok: true, claims };
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}

/**
 * The link key: DOWNLOAD_LINK_SECRET, or in embedded mode a key generated once and kept in
 * DATA_DIR (so links survive restarts). Distributed processes must share the variable.
 */
export function downloadLinkSecret(config: ServiceConfig): string {
  if (config.downloadLinkSecret) return config.downloadLinkSecret;
  const path = join(config.dataDir, 'download-link.key');
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    mkdirSync(config.dataDir, { recursive: true });
    const secret = randomBytes(32).toString('base64url');
    writeFileSync(path, secret + '\n', { mode: 0o600, flag: 'wx' });
    return secret;
  }
}
