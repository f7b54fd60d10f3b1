import { Inject, Injectable } from '@nestjs/common';
import { FirmwareErrors, type RequestContext, requireTenant, type RolloutPreview, RolloutPreviewQuery } from '@app/contracts';
import { contractCheck } from '@app/platform';
import { TAG_PATTERN } from '@app/contracts';
import { FirmwareStore } from '../../repositories/firmware.store.js';
import { RolloutStages } from '../../rollouts/rollout-stages.js';

const TAG = new RegExp(TAG_PATTERN);
const validQuery = contractCheck(RolloutPreviewQuery, { coerce: true, where: 'query parameter' });

/** GET /firmware/{id}/rollout/preview: how many devices each stage of a plan would reach now (the wizard). */
@Injectable()
export class PreviewRolloutUseCase {
  constructor(
    @Inject(FirmwareStore) private readonly store: FirmwareStore,
    @Inject(RolloutStages) private readonly stages: RolloutStages,
  ) {}

  async execute(input: { ctx: RequestContext; id: unknown; query: unknown }): Promise<RolloutPreview> {
    const customerId = requireTenant(input.ctx).customer.id;
    const query = validQuery(input.query ?? {});
    const percents = query.stages.split(',').map(Number);
    if (percents.some((p, i) => p <= 0 || p > 100 || (i > 0 && p <= percents[i - 1]))) throw FirmwareErrors.rollout_stages_invalid();
    const minimums = query.min_devices === undefined ? percents.map(() => 0) : query.min_devices.split(',').map(Number);
    if (minimums.length !== percents.length) throw FirmwareErrors.rollout_min_devices_invalid();
    const extraTags = query.extra_tags === undefined || query.extra_tags === '' ? [] : query.extra_tags.split(',');
    if (extraTags.some((t) => !TAG.test(t)) || extraTags.length > 20) throw FirmwareErrors.tag_name_invalid();
    const build = await this.store.repos.builds.findById({ customerId, id: String(input.id ?? '') });
    if (!build) throw FirmwareErrors.build_not_found();
    const plan = percents.map((percent, i) => ({ percent, minDevices: minimums[i], holdMinutes: 0 }));
    const reach = await this.stages.reach(customerId, build, extraTags, plan);
    return {
      build_id: build.id,
      audience: reach.audience,
      stages: plan.map((s, i) => ({ percent: s.percent, min_devices: s.minDevices, devices: reach.devices[i] })),
    };
  }
}
