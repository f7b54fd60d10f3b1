import { type CustomerId, type CustomerRef, FirmwareErrors, isTagName } from '@app/contracts';

/** DELETE /tags/{tag}, validated when built: the name matches the contract's tag pattern. */
export class DeleteTagCommand {
  private constructor(
    readonly customerId: CustomerId,
    readonly tag: string,
  ) {}

  static create(input: { customer: CustomerRef; tag: unknown }): DeleteTagCommand {
    if (!isTagName(input.tag)) throw FirmwareErrors.tag_name_invalid();
    return new DeleteTagCommand(input.customer.id, input.tag);
  }
}
