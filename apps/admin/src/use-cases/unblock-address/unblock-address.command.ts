import { DeleteIpBlockQuery } from '@app/contracts';
import { contractCheck } from '@app/platform';
import { parsedNetwork } from '../../protection/protection-changes.js';

const validQuery = contractCheck(DeleteIpBlockQuery, { coerce: true, where: 'query parameter' });

/** The block of a network lifted, audited as `auditActor`; the network normalised (400 when the text is none). */
export class UnblockAddressCommand {
  private constructor(
    readonly cidr: string,
    readonly auditActor: string,
  ) {}

  /** DELETE /admin/ip-blocks?cidr=..., validated when built. */
  static create(input: { query: unknown; actor: string }): UnblockAddressCommand {
    return new UnblockAddressCommand(parsedNetwork(validQuery(input.query).cidr).cidr, `admin:${input.actor}`);
  }

  /** The operator CLI, which names itself as the actor. */
  static forOperator(cidr: string, auditActor: string): UnblockAddressCommand {
    return new UnblockAddressCommand(parsedNetwork(cidr).cidr, auditActor);
  }
}
