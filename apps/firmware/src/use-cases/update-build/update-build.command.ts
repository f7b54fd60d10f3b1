import { CommonErrors, type CustomerId, type CustomerRef, FirmwarePatch } from '@app/contracts';
import { contractCheck } from '@app/platform';
import type { BuildChanges } from '../../domain/build-changes.js';

/** The contract's body schema: only tags, tag_filter_disabled and status, with their rules and messages. */
const validPatch = contractCheck(FirmwarePatch, { where: 'body property' });

/** PATCH /firmware/{id}, validated when built. */
export class UpdateBuildCommand {
  private constructor(
    readonly customerId: CustomerId,
    readonly id: string,
    readonly changes: BuildChanges,
    /** The If-Match header as sent, or null. */
    readonly ifMatch: string | null,
  ) {}

  /** Throws invalid_request (400) for a body the contract refuses. */
  static create(input: { customer: CustomerRef; id: unknown; body: unknown; ifMatch: string | undefined }): UpdateBuildCommand {
    if (typeof input.id !== 'string' || input.id === '') throw CommonErrors.invalid_request({ detail: 'build id is required' });
    const body = input.body;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw CommonErrors.invalid_request({ detail: 'body must be a JSON object' });
    const patch = validPatch(body);
    const changes: { status?: 'active' | 'withdrawn'; tagFilterDisabled?: boolean; tags?: string[] } = {};
    if (patch.status !== undefined) changes.status = patch.status;
    if (patch.tag_filter_disabled !== undefined) changes.tagFilterDisabled = patch.tag_filter_disabled;
    if (patch.tags !== undefined) changes.tags = [...new Set(patch.tags)];
    return new UpdateBuildCommand(input.customer.id, input.id, changes, input.ifMatch?.trim() ? input.ifMatch.trim() : null);
  }
}
