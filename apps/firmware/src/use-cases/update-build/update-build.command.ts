import { type CustomerId, type CustomerRef, type FirmwarePatch, MAX_TAGS_PER_BUILD, ServiceError, isTagName } from '@app/contracts';
import type { BuildChanges } from '../../repositories/build.repository.js';

const ALLOWED = new Set(['tags', 'tag_filter_disabled', 'status']);

/** PATCH /firmware/{id}, validated when built: only tags, tag_filter_disabled and status (400 otherwise). */
export class UpdateBuildCommand {
  private constructor(
    readonly customerId: CustomerId,
    readonly id: string,
    readonly changes: BuildChanges,
    /** The If-Match header as sent, or null. */
    readonly ifMatch: string | null,
  ) {}

  static create(input: { customer: CustomerRef; id: unknown; body: unknown; ifMatch: string | undefined }): UpdateBuildCommand {
    if (typeof input.id !== 'string' || input.id === '') throw ServiceError.badRequest('build id is required');
    const body = input.body;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw ServiceError.badRequest('body must be a JSON object');
    const fields = body as Record<string, unknown>;
    for (const key of Object.keys(fields)) if (!ALLOWED.has(key)) throw ServiceError.badRequest(`unknown body property ${key}`);
    const changes: { status?: 'active' | 'withdrawn'; tagFilterDisabled?: boolean; tags?: string[] } = {};
    const patch = fields as FirmwarePatch;
    if (patch.status !== undefined) {
      if (patch.status !== 'active' && patch.status !== 'withdrawn') throw ServiceError.badRequest('status must be active or withdrawn');
      changes.status = patch.status;
    }
    if (patch.tag_filter_disabled !== undefined) {
      if (typeof patch.tag_filter_disabled !== 'boolean') throw ServiceError.badRequest('tag_filter_disabled must be true or false');
      changes.tagFilterDisabled = patch.tag_filter_disabled;
    }
    if (patch.tags !== undefined) changes.tags = checkTags(patch.tags);
    return new UpdateBuildCommand(input.customer.id, input.id, changes, input.ifMatch?.trim() ? input.ifMatch.trim() : null);
  }
}

export function checkTags(tags: unknown): string[] {
  if (!Array.isArray(tags)) throw ServiceError.badRequest('tags must be an array of tag names');
  const bad = tags.find((tag) => !isTagName(tag));
  if (bad !== undefined) throw ServiceError.badRequest(`tag ${JSON.stringify(bad)} does not match the tag pattern`);
  const unique = [...new Set(tags as string[])];
  if (unique.length > MAX_TAGS_PER_BUILD) throw ServiceError.badRequest(`a build has at most ${MAX_TAGS_PER_BUILD} tags`);
  return unique;
}
