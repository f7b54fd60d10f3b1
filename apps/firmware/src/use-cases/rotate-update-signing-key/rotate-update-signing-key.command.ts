import { RotateUpdateSigningKeyRequest } from '@app/contracts';
import { contractCheck } from '@app/platform';
import { UPDATE_KEY_DEFAULT_START_SECONDS } from '../../update-check/update-signing-keys.js';

const validBody = contractCheck(RotateUpdateSigningKeyRequest, { where: 'body' });

/** POST /admin/update-signing-keys/rotate, validated when built against the contract's body schema. */
export class RotateUpdateSigningKeyCommand {
  private constructor(readonly startsInSeconds: number) {}

  static create(body: unknown): RotateUpdateSigningKeyCommand {
    const valid = validBody(body ?? {});
    return new RotateUpdateSigningKeyCommand(valid.starts_in_seconds ?? UPDATE_KEY_DEFAULT_START_SECONDS);
  }
}
