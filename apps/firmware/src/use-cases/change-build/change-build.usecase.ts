import { Inject, Injectable } from '@nestjs/common';
import { type CustomerId, FirmwareErrors, type FirmwareWithEtag, ServiceError, type TenantRequestContext } from '@app/contracts';
import type { Tenant } from '@app/infra';
import type { BuildChanges, BuildUpdate } from '../../domain/build-changes.js';
import { etagOf, revisionFromIfMatch, toFirmwareDto } from '../../domain/build-view.js';
import type { Build } from '../../domain/build.js';
import { byCodeUnit } from '../../repositories/build.repository.js';
import { FirmwareStore } from '../../repositories/firmware.store.js';
import { FirmwareChanges } from '../../services/firmware-changes.js';

export interface BuildChange {
  readonly id: string;
  /** When given and not the current revision, nothing changes ('stale'). */
  readonly expectedRevision?: number;
  /** May be computed from the current state (tag add/remove). */
  readonly changes: BuildChanges | ((current: Build) => BuildChanges);
}

/**
 * The one write step of PATCH /firmware/{id} and the build tag endpoints: the build is read
 * locked, compared and written in one transaction. A change that changes nothing keeps the
 * revision; a real change drops the update-check index and is audited (before and after).
 */
@Injectable()
export class ChangeBuildUseCase {
  constructor(
    @Inject(FirmwareStore) private readonly store: FirmwareStore,
    @Inject(FirmwareChanges) private readonly changes: FirmwareChanges,
  ) {}

  /** Applies the change and answers as the API does: 404, 412, or the build with its ETag. */
  async execute(ctx: TenantRequestContext, change: BuildChange, action: string): Promise<FirmwareWithEtag> {
    const result = await this.apply({ customerId: ctx.customer.id, ...change });
    switch (result.kind) {
      case 'not-found':
        throw FirmwareErrors.build_not_found();
      case 'stale':
        throw staleError(result.current);
      case 'unchanged':
        return { build: toFirmwareDto(result.build), etag: etagOf(result.build) };
      case 'updated': {
        this.changes.changed(ctx.customer.id);
        await this.changes.audit(ctx, action, { type: 'firmware', id: result.after.id }, settingsOf(result.before), settingsOf(result.after));
        return { build: toFirmwareDto(result.after), etag: etagOf(result.after) };
      }
    }
  }

  /**
   * The revision an If-Match header names (undefined: none sent, or `*`): 404 for an unknown
   * build, 412 when it names another revision than the current one.
   */
  async revisionOfIfMatch(request: { readonly customerId: CustomerId; readonly id: string; readonly ifMatch: string | null }): Promise<number | undefined> {
    if (request.ifMatch === null) return undefined;
    const current = await this.store.repos.builds.findById({ customerId: request.customerId, id: request.id });
    if (!current) throw FirmwareErrors.build_not_found();
    const revision = revisionFromIfMatch(request.ifMatch, current);
    if (revision === null) throw staleError(current);
    return revision === '*' ? undefined : revision;
  }

  /** The transaction alone: what happened to the build. */
  apply(change: Tenant<BuildChange>): Promise<BuildUpdate> {
    return this.store.transaction(async ({ builds }) => {
      const current = await builds.lockById({ customerId: change.customerId, id: change.id });
      if (!current) return { kind: 'not-found' };
      if (change.expectedRevision !== undefined && change.expectedRevision !== current.revision) return { kind: 'stale', current };
      const changes = typeof change.changes === 'function' ? change.changes(current) : change.changes;
      const status = changes.status ?? current.status;
      const tagFilterDisabled = changes.tagFilterDisabled ?? current.tagFilterDisabled;
      const generalRelease = changes.generalRelease ?? current.generalRelease;
      const tags = changes.tags ? [...new Set(changes.tags)].sort(byCodeUnit) : current.tags;
      const tagsChanged = tags.length !== current.tags.length || tags.some((t, i) => t !== current.tags[i]);
      const settingsKept = status === current.status && tagFilterDisabled === current.tagFilterDisabled && generalRelease === current.generalRelease;
      if (settingsKept && !tagsChanged) return { kind: 'unchanged', build: current };
      const key = { customerId: change.customerId, id: current.id };
      const after = await builds.saveSettings({ ...key, status, generalRelease, tagFilterDisabled, tags });
      if (tagsChanged) await builds.replaceTags({ ...key, tags });
      return { kind: 'updated', before: current, after };
    });
  }
}

/** 412: If-Match named another revision than the current one. */
export function staleError(current: Build): ServiceError {
  return FirmwareErrors.build_etag_mismatch({ etag: etagOf(current) });
}

function settingsOf(build: Build): Record<string, unknown> {
  return { status: build.status, general_release: build.generalRelease, tag_filter_disabled: build.tagFilterDisabled, tags: [...build.tags] };
}
