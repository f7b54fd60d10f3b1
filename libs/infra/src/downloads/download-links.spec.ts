import { describe, expect, it } from '@jest/globals';
import type { FileRef } from '@app/contracts';
import { DOWNLOAD_LINK_TTL_SECONDS, DownloadLinkSigner } from './download-links.js';

const file: FileRef = { key: 'c/x/logdata/a', sizeBytes: 3, sha256: 'ab', contentType: 'text/plain', lastModified: '2026-01-01T00:00:00.000Z' };
const signer = new DownloadLinkSigner('k'.repeat(32));

describe('DownloadLinkSigner', () => {
  it('accepts its own token until it expires, then reports expiry', () => {
    const token = signer.sign(file, 1000);
    expect(signer.check(token, 1000 + DOWNLOAD_LINK_TTL_SECONDS - 1)).toEqual({ ok: true, claims: { file, exp: 1000 + DOWNLOAD_LINK_TTL_SECONDS } });
    expect(signer.check(token, 1000 + DOWNLOAD_LINK_TTL_SECONDS)).toEqual({ ok: false, reason: 'expired' });
  });

  it('refuses a token whose claims were altered or that another key signed', () => {
    const token = signer.sign(file, 1000);
    const [body, mac] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ file: { ...file, key: 'c/y/secret' }, exp: 99999 })).toString('base64url');
    expect(signer.check(`${forged}.${mac}`, 1000).ok).toBe(false);
    expect(new DownloadLinkSigner('z'.repeat(32)).check(token, 1000)).toEqual({ ok: false, reason: 'malformed' });
    expect(signer.check(`${body}`, 1000)).toEqual({ ok: false, reason: 'malformed' });
    expect(signer.check('a.b.c', 1000)).toEqual({ ok: false, reason: 'malformed' });
  });
});
