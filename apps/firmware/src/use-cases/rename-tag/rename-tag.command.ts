import { type CustomerId, type CustomerRef, isTagName, ServiceError } from '@app/contracts';

/** POST /tags/{tag}/rename, validated when built: both names match the contract's tag pattern. */
export class RenameTagCommand {
  private constructor(
    readonly customerId: CustomerId,
    readonly from: string,
    readonly to: string,
  ) {}

  static create(input: { customer: CustomerRef; from: unknown; to: unknown }): RenameTagCommand {
    if (!isTagName(input.from)) throw ServiceError.badRequest('tag does not match the tag pattern');
    if (!isTagName(input.to)) throw ServiceError.badRequest('to must be a tag name matching the tag pattern');
    return new RenameTagCommand(input.customer.id, input.from, input.to);
  }
}
