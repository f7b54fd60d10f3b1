import { Inject, Injectable } from '@nestjs/common';
import { type RequestContext, requireTenant, type RolloutList, RolloutListQuery } from '@app/contracts';
import { contractCheck } from '@app/platform';
import { FirmwareStore } from '../../repositories/firmware.store.js';

const validQuery = contractCheck(RolloutListQuery, { coerce: true, where: 'query parameter' });

/** GET /rollouts: the customer's rollouts, newest first, with their build's identity (no counts: a list stays cheap). */
@Injectable()
export class ListRolloutsUseCase {
  constructor(@Inject(FirmwareStore) private readonly store: FirmwareStore) {}

  async execute(input: { ctx: RequestContext; query: unknown }): Promise<RolloutList> {
    const customerId = requireTenant(input.ctx).customer.id;
    const query = validQuery(input.query ?? {});
    const limit = query.limit ?? 100;
    const offset = query.offset ?? 0;
    const rows = await this.store.repos.rollouts.list({ customerId, state: query.state ?? null, limit: limit + 1, offset });
    return {
      items: rows.slice(0, limit).map(({ rollout, build }) => ({
        id: rollout.id,
        build_id: rollout.buildId,
        hw_name: build.hwName,
        hw_version: build.hwVersion,
        fw_name: build.fwName,
        fw_version: build.fwVersion,
        state: rollout.state,
        current_stage: rollout.currentStage,
        stage_percents: rollout.stages.map((s) => s.percent),
        stage_started_at: rollout.stageStartedAt?.toISOString() ?? null,
        halt: rollout.halt,
        updated_at: rollout.updatedAt.toISOString(),
      })),
      next_offset: rows.length > limit ? offset + limit : null,
    };
  }
}
