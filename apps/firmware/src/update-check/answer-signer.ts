import { Inject, Injectable } from '@nestjs/common';
import type { AnswerSignature } from '@app/contracts';
import { signAnswer } from './answer-signature.js';
import { UpdateSigningKeys } from './update-signing-keys.js';

/**
 * How long a signature is served again for the same path, query and body: what is left of its
 * validity (SIGNATURE_VALIDITY_SECONDS − this, 180 s) stays longer than the answer's max-age (60 s).
 */
export const SIGNATURE_REUSE_SECONDS = 120;
/** Memory for kept signatures (keys and header values, strings counted at 2 bytes a character). */
export const SIGNATURES_MAX_BYTES = 16 * 1024 * 1024;

interface Kept {
  readonly contentDigest: string;
  readonly query: string;
  readonly signature: AnswerSignature;
  readonly kid: string;
  readonly createdSeconds: number;
  readonly bytes: number;
}

/**
 * Signs 200 answers of the update check (docs/api.md "Signed answers"). A signature covers the
 * request's path (which holds the HW id) and query, so it is per device; it is made once per
 * path, query and body and served again for SIGNATURE_REUSE_SECONDS, from a cache bounded by
 * SIGNATURES_MAX_BYTES (oldest dropped first), so a fleet polling the same answer signs each
 * device's answer once per reuse window, and public input cannot grow memory. One signature is
 * kept per path (a device's own), the latest query and body's: the key is the path string as
 * it came, with no joined key built per check.
 */
@Injectable()
export class AnswerSigner {
  /** By request path. */
  private readonly kept = new Map<string, Kept>();
  private bytes = 0;
  maxBytes = SIGNATURES_MAX_BYTES;

  constructor(@Inject(UpdateSigningKeys) private readonly keys: UpdateSigningKeys) {}

  /** The signature of a 200 answer with this Content-Digest to the request target `path`?`query`. */
  sign(contentDigest: string, path: string, query: string, now: number): AnswerSignature {
    const nowSeconds = Math.floor(now / 1000);
    const signer = this.keys.signer(now);
    const found = this.kept.get(path);
    if (
      found &&
      found.kid === signer.kid &&
      nowSeconds - found.createdSeconds < SIGNATURE_REUSE_SECONDS &&
      found.contentDigest === contentDigest &&
      found.query === query
    )
      return found.signature;
    const signature = signAnswer(signer, contentDigest, path, query, nowSeconds);
    if (found) this.drop(path, found);
    const bytes = 2 * (path.length + contentDigest.length + query.length + signature.signatureInput.length + signature.signature.length) + 160;
    this.kept.set(path, { contentDigest, query, signature, kid: signer.kid, createdSeconds: nowSeconds, bytes });
    this.bytes += bytes;
    for (const [oldestKey, oldest] of this.kept) {
      if (this.bytes <= this.maxBytes) break;
      this.drop(oldestKey, oldest);
    }
    return signature;
  }

  /** Signatures kept and their size (bytes, approximately), for tests and diagnostics. */
  get keptSignatures(): { readonly count: number; readonly bytes: number } {
    return { count: this.kept.size, bytes: this.bytes };
  }

  private drop(key: string, kept: Kept): void {
    this.kept.delete(key);
    this.bytes -= kept.bytes;
  }
}
