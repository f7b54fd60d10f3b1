import { type CustomerId, type CustomerRef, FirmwareErrors, isTagName } from '@app/contracts';

/** POST /tags/{tag}/rename, validated when built: both names match the contract's tag pattern. */
export class RenameTagCommand {
  private constructor(
    readonly customerId: CustomerId,
    readonly from: string,
    readonly to: string,
  ) {}

  static create(input: { customer: CustomerRef; from: unknown; to: unknown }): RenameTagCommand {
    if (!isTagName(input.from)) throw FirmwareErrors.tag_name_invalid();
    if (!isTagName(input.to)) throw FirmwareErrors.tag_rename_target_invalid();
    return new RenameTagCommand(input.customer.id, input.from, input.to);
  }
}
