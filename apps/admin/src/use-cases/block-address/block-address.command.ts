import { CreateIpBlockRequest, type RequestContext } from '@app/contracts';
import { type IpNetwork } from '@app/infra';
import { contractCheck } from '@app/platform';
import { parsedNetwork } from '../../protection/protection-changes.js';

const validBody = contractCheck(CreateIpBlockRequest, { where: 'body' });

/** POST /admin/ip-blocks, validated when built: the network normalised to its network address. */
export class BlockAddressCommand {
  private constructor(
    readonly network: IpNetwork,
    readonly reason: string | null,
    readonly ttlSeconds: number | undefined,
    readonly confirmOwnAddress: boolean,
    readonly actor: string,
    /** The caller's own address: a block covering it needs the confirmation. */
    readonly callerIp: string,
  ) {}

  static create(input: { ctx: RequestContext; body: unknown }): BlockAddressCommand {
    const body = validBody(input.body);
    const network = parsedNetwork(body.cidr);
    return new BlockAddressCommand(network, body.reason?.trim() || null, body.ttl_seconds, body.confirm_own_address === true, input.ctx.actor, input.ctx.ip);
  }
}
