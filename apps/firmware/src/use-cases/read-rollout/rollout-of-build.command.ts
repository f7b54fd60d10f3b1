import { type RequestContext, requireTenant, type TenantRequestContext } from '@app/contracts';

/** A build's rollout named by the build id (GET and the steering actions). */
export class RolloutOfBuildCommand {
  private constructor(
    readonly ctx: TenantRequestContext,
    readonly buildId: string,
  ) {}

  static create(input: { ctx: RequestContext; id: unknown }): RolloutOfBuildCommand {
    return new RolloutOfBuildCommand(requireTenant(input.ctx), String(input.id ?? ''));
  }
}
