import { Inject, Injectable } from '@nestjs/common';
import { ROLLOUT_BUCKETS, type RolloutThresholds, type RolloutThresholdsRequest, stageTarget } from '@app/contracts';
import { requireCustomerId } from '@app/platform';
import { RegistryStore } from '../../repositories/registry.store.js';

/**
 * RegistryRolloutMessages.thresholds: for a rollout's offset, the smallest position cut-off
 * reaching each target number of audience devices (docs/api.md "Rollouts"): one pass over the
 * audience by position, then the cumulative counts. A target above the audience reaches all of
 * it (cut-off 10000); target 0 reaches nobody (0). `stages` get their targets from the audience
 * counted in this same pass.
 */
@Injectable()
export class CutRolloutStages {
  constructor(@Inject(RegistryStore) private readonly store: RegistryStore) {}

  async execute(request: RolloutThresholdsRequest): Promise<RolloutThresholds> {
    const customerId = requireCustomerId(request.customerId);
    const offset = Number(request.offset);
    if (!Number.isInteger(offset) || offset < 0 || offset >= ROLLOUT_BUCKETS) throw new Error('offset must be an integer from 0 to 9999');
    const targets = (Array.isArray(request.targets) ? request.targets : []).map(Number);
    const positions = await this.store.transaction((repos) =>
      repos.rolloutOffers.positions({
        customerId,
        offset,
        line: { hwName: String(request.hwName), hwVersion: String(request.hwVersion), fwName: String(request.fwName) },
        tags: request.tags === null ? null : [...request.tags].map(String),
        extraTags: request.extraTags === null || request.extraTags.length === 0 ? null : [...request.extraTags].map(String),
      }),
    );
    const cumulative = new Array<number>(ROLLOUT_BUCKETS);
    let sum = 0;
    for (let p = 0; p < ROLLOUT_BUCKETS; p++) cumulative[p] = sum += positions.get(p) ?? 0;
    const plans: NonNullable<RolloutThresholdsRequest['stages']> = Array.isArray(request.stages) ? request.stages : [];
    const stages = plans.map((s) => stageTarget(sum, Number(s.percent), Number(s.minDevices)));
    const thresholds = [...targets, ...stages].map((target) => cutOff(cumulative, target));
    return { audience: sum, thresholds, devices: thresholds.map((t) => (t === 0 ? 0 : cumulative[t - 1])) };
  }
}

/** The smallest cut-off whose positions below it hold at least `target` devices. */
function cutOff(cumulative: readonly number[], target: number): number {
  if (!(target > 0)) return 0;
  let low = 0;
  let high = ROLLOUT_BUCKETS - 1;
  if (cumulative[high] < target) return ROLLOUT_BUCKETS;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (cumulative[mid] >= target) high = mid;
    else low = mid + 1;
  }
  return low + 1;
}
