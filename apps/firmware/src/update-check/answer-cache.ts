import type { ProductLine } from './build-index.js';
import type { IndexedBuild } from './indexed-build.js';

/** One computed answer: the JSON text of the update items and its ETag. */
export interface Answer {
  readonly etag: string;
  readonly body: string;
  /** RFC 9530 Content-Digest of `body`: computed once per answer, signed per device path (AnswerSigner). */
  readonly contentDigest: string;
  /** When the oldest link inside was signed: the answer is rebuilt once that is LINK_REUSE_MS old. */
  readonly signedAt: number;
  /** The builds it offers under a rollout (their offers travel with the device's sighting); undefined: none. */
  readonly rollouts?: readonly IndexedBuild[];
}

interface Slot {
  readonly line: ProductLine;
  readonly version: string;
  readonly variant: string;
  readonly bytes: number;
}

/**
 * Kept update-check answers: by product line of a customer index (a new index has new line
 * objects, so an answer computed from a replaced index is never found again), then the
 * device's version, then the variant (`type`, `latest`, the device's tags). Looked up level by
 * level: no joined key string to build, flatten and hash per check. All answers together stay
 * within `maxBytes` (strings counted at 2 bytes a character), the oldest dropped first, so
 * arbitrary versions sent by the public cannot grow memory.
 */
export class AnswerCache {
  private readonly byLine = new Map<ProductLine, Map<string, Map<string, Answer>>>();
  /** Every kept answer, oldest first (Map order). */
  private readonly slots = new Map<Answer, Slot>();
  private bytes = 0;

  constructor(public maxBytes: number) {}

  get(line: ProductLine, version: string, variant: string): Answer | undefined {
    return this.byLine.get(line)?.get(version)?.get(variant);
  }

  set(line: ProductLine, version: string, variant: string, answer: Answer): void {
    const replaced = this.get(line, version, variant);
    if (replaced) this.drop(replaced);
    let versions = this.byLine.get(line);
    if (!versions) this.byLine.set(line, (versions = new Map<string, Map<string, Answer>>()));
    let variants = versions.get(version);
    if (!variants) versions.set(version, (variants = new Map<string, Answer>()));
    variants.set(variant, answer);
    const bytes = 2 * (version.length + variant.length + answer.body.length + answer.etag.length + answer.contentDigest.length) + 192;
    this.slots.set(answer, { line, version, variant, bytes });
    this.bytes += bytes;
    for (const oldest of this.slots.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.drop(oldest);
    }
  }

  /** Answers kept and their size (bytes, approximately). */
  get kept(): { readonly count: number; readonly bytes: number } {
    return { count: this.slots.size, bytes: this.bytes };
  }

  private drop(answer: Answer): void {
    const slot = this.slots.get(answer);
    if (!slot) return;
    this.slots.delete(answer);
    this.bytes -= slot.bytes;
    const versions = this.byLine.get(slot.line)!;
    const variants = versions.get(slot.version)!;
    variants.delete(slot.variant);
    if (variants.size > 0) return;
    versions.delete(slot.version);
    if (versions.size === 0) this.byLine.delete(slot.line);
  }
}
