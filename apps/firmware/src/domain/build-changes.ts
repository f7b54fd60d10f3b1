import type { Build, BuildStatus } from './build.js';

/** What a change sets; omitted fields stay. */
export interface BuildChanges {
  readonly status?: BuildStatus;
  readonly tagFilterDisabled?: boolean;
  /** Offered to every caller of its product line (docs/api.md "Release settings"). */
  readonly generalRelease?: boolean;
  /** The whole new tag set. */
  readonly tags?: readonly string[];
}

export type BuildUpdate =
  | { readonly kind: 'not-found' }
  /** If-Match did not name the current revision. */
  | { readonly kind: 'stale'; readonly current: Build }
  | { readonly kind: 'unchanged'; readonly build: Build }
  | { readonly kind: 'updated'; readonly before: Build; readonly after: Build };

export interface TagChangeOutcome {
  /** The tag_sync_op the registry has to apply. */
  readonly opId: number;
  /** Builds whose tags changed. */
  readonly changedBuilds: number;
}
