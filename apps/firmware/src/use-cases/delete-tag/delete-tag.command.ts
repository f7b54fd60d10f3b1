import { type CustomerId, type CustomerRef, isTagName, ServiceError } from '@app/contracts';

/** DELETE /tags/{tag}, validated when built: the name matches the contract's tag pattern. */
export class DeleteTagCommand {
  private constructor(
    readonly customerId: CustomerId,
    readonly tag: string,
  ) {}

  static create(input: { customer: CustomerRef; tag: unknown }): DeleteTagCommand {
    if (!isTagName(input.tag)) throw ServiceError.badRequest('tag does not match the tag pattern');
    return new DeleteTagCommand(input.customer.id, input.tag);
  }
}
