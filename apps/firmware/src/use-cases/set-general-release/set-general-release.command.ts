import { CommonErrors, type CustomerId, type CustomerRef, GeneralReleaseSetting } from '@app/contracts';
import { contractCheck } from '@app/platform';

/** The contract's body schema: `general_release` and nothing else. */
const validSetting = contractCheck(GeneralReleaseSetting, { where: 'body property' });

/** PUT /firmware/{id}/general-release, validated when built. */
export class SetGeneralReleaseCommand {
  private constructor(
    readonly customerId: CustomerId,
    readonly id: string,
    readonly generalRelease: boolean,
    /** The If-Match header as sent, or null. */
    readonly ifMatch: string | null,
  ) {}

  /** Throws invalid_request (400) for a body the contract refuses. */
  static create(input: { customer: CustomerRef; id: unknown; body: unknown; ifMatch: string | undefined }): SetGeneralReleaseCommand {
    if (typeof input.id !== 'string' || input.id === '') throw CommonErrors.invalid_request({ detail: 'build id is required' });
    const body = input.body;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw CommonErrors.invalid_request({ detail: 'body must be a JSON object' });
    const setting = validSetting(body);
    return new SetGeneralReleaseCommand(input.customer.id, input.id, setting.general_release, input.ifMatch?.trim() ? input.ifMatch.trim() : null);
  }
}
