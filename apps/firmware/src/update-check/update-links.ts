import { Inject, Injectable } from '@nestjs/common';
import { DownloadLinkSigner, downloadLinkSecret, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { toFileRef } from '../domain/build-view.js';
import type { IndexedBuild } from './indexed-build.js';

/** A link is re-signed once it is this old: it is valid 5 minutes, so ≥ 4 minutes remain (> max-age). */
export const LINK_REUSE_MS = 60_000;

/**
 * Absolute 5-minute /dl links to a build's binary and notes (the gateway serves them), signed
 * with the key every gateway shares (DOWNLOAD_LINK_SECRET, or DATA_DIR's key in embedded
 * mode). A build's links are reused for a minute, so a busy update check signs each build
 * about once a minute instead of on every request.
 */
@Injectable()
export class UpdateLinks {
  private signer?: DownloadLinkSigner;

  constructor(@Inject(SERVICE_CONFIG) private readonly config: ServiceConfig) {}

  linksOf(build: IndexedBuild, now = Date.now()): { readonly url: string; readonly notesUrl: string | null; readonly signedAt: number } {
    const cached = build.links;
    if (cached && now - cached.signedAt < LINK_REUSE_MS) return cached;
    const signer = this.getSigner();
    const base = this.config.publicUrl;
    const nowSeconds = Math.floor(now / 1000);
    const links = {
      url: `${base}/dl/${signer.sign(toFileRef(build.entity, 'binary'), nowSeconds)}`,
      notesUrl: build.entity.notes ? `${base}/dl/${signer.sign(toFileRef(build.entity, 'notes'), nowSeconds)}` : null,
      signedAt: now,
    };
    build.links = links;
    return links;
  }

  private getSigner(): DownloadLinkSigner {
    if (!this.signer) {
      let secret: string;
      try {
        secret = downloadLinkSecret(this.config);
      } catch (err) {
        // Embedded mode: another app of the process created the key file at the same moment.
        if ((err as NodeJS.ErrnoException)?.code !== 'EEXIST') throw err;
        secret = downloadLinkSecret(this.config);
      }
      this.signer = new DownloadLinkSigner(secret);
    }
    return this.signer;
  }
}
