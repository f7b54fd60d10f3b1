import { Inject, Injectable } from '@nestjs/common';
import type { EndpointCall, NoParams, RequestContext, RotateUpdateSigningKeyRequest, UpdateSigningKeys as UpdateSigningKeysView } from '@app/contracts';
import { FirmwareChanges } from '../../services/firmware-changes.js';
import { UpdateSigningKeys } from '../../update-check/update-signing-keys.js';
import { RotateUpdateSigningKeyCommand } from './rotate-update-signing-key.command.js';

/**
 * Rotates the key that signs update-check answers (docs/api.md "Signed answers"): a new key is
 * published now and signs from the time asked; the keys it replaces stay published for the
 * overlap. Audited as `update-signing-key.rotate`.
 */
@Injectable()
export class RotateUpdateSigningKeyUseCase {
  constructor(
    @Inject(UpdateSigningKeys) private readonly keys: UpdateSigningKeys,
    @Inject(FirmwareChanges) private readonly changes: FirmwareChanges,
  ) {}

  executeForRequest(call: EndpointCall<NoParams, NoParams, RotateUpdateSigningKeyRequest | undefined>): Promise<UpdateSigningKeysView> {
    return this.execute(RotateUpdateSigningKeyCommand.create(call.body), call.ctx);
  }

  async execute(command: RotateUpdateSigningKeyCommand, ctx: RequestContext): Promise<UpdateSigningKeysView> {
    const before = await this.keys.view();
    await this.keys.rotate(command.startsInSeconds, new Date());
    const after = await this.keys.view();
    const added = after.keys.find((k) => !before.keys.some((b) => b.kid === k.kid));
    await this.changes.audit(
      ctx,
      'update-signing-key.rotate',
      { type: 'update-signing-key', id: added?.kid ?? '' },
      { keys: before.keys },
      { keys: after.keys },
    );
    return after;
  }
}
