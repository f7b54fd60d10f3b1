import { Inject, Injectable } from '@nestjs/common';
import { FirmwareErrors, RegistryRolloutMessages, type RequestContext, requireTenant, type RolloutDevicePage, RolloutDevicesQuery } from '@app/contracts';
import { MessageBus } from '@app/infra';
import { contractCheck } from '@app/platform';
import { FirmwareStore } from '../../repositories/firmware.store.js';

const validQuery = contractCheck(RolloutDevicesQuery, { coerce: true, where: 'query parameter' });

/** GET /firmware/{id}/rollout/devices: a page of the devices offered the build, with their outcome (the registry computes it). */
@Injectable()
export class ListRolloutDevicesUseCase {
  constructor(
    @Inject(FirmwareStore) private readonly store: FirmwareStore,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  async execute(input: { ctx: RequestContext; id: unknown; query: unknown }): Promise<RolloutDevicePage> {
    const customerId = requireTenant(input.ctx).customer.id;
    const query = validQuery(input.query ?? {});
    const build = await this.store.repos.builds.findById({ customerId, id: String(input.id ?? '') });
    if (!build) throw FirmwareErrors.build_not_found();
    const rollout = await this.store.repos.rollouts.latestOfBuild({ customerId, buildId: build.id });
    if (!rollout) throw FirmwareErrors.rollout_not_found();
    const limit = query.limit ?? 100;
    const offset = query.offset ?? 0;
    let page;
    try {
      page = await this.bus.send(RegistryRolloutMessages.devices, {
        customerId,
        rolloutId: rollout.id,
        versionKey: build.versionKey.toString('hex'),
        graceMinutes: rollout.graceMinutes,
        silentAfterMinutes: rollout.silentAfterMinutes,
        outcome: query.outcome ?? null,
        stage: query.stage ?? null,
        limit,
        offset,
      });
    } catch {
      throw FirmwareErrors.rollout_audience_unavailable();
    }
    return {
      items: page.items.map((d) => ({
        hwid: d.hwid,
        stage: d.stage,
        outcome: d.outcome,
        offered_at: d.offeredAt,
        updated_at: d.updatedAt,
        last_fw_version: d.lastFwVersion,
        last_seen_at: d.lastSeenAt,
        reported_reason: d.reportedReason,
      })),
      next_offset: offset + page.items.length < page.total && page.items.length > 0 ? offset + page.items.length : null,
    };
  }
}
