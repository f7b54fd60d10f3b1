import { Inject, Injectable } from '@nestjs/common';
import {
  ROLLOUT_OUTCOMES,
  type RolloutDeviceRow,
  type RolloutDevicesRequest,
  type RolloutOutcome,
  type RolloutOutcomeRules,
  type RolloutProgress,
} from '@app/contracts';
import { requireCustomerId } from '@app/platform';
import type { OutcomeRules } from '../../repositories/rollout-offer.repository.js';
import { RegistryStore } from '../../repositories/registry.store.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The outcome rules of a request, checked (the firmware app sends them; nothing here trusts a shape). */
function rulesOf(request: RolloutOutcomeRules): OutcomeRules {
  if (!UUID.test(String(request.rolloutId))) throw new Error('rolloutId must be a UUID');
  if (!/^(?:[0-9a-f]{2})*$/.test(String(request.versionKey))) throw new Error('versionKey must be hex');
  const grace = Number(request.graceMinutes);
  const silent = Number(request.silentAfterMinutes);
  if (!Number.isInteger(grace) || grace < 0 || !Number.isInteger(silent) || silent < 1) throw new Error('graceMinutes and silentAfterMinutes must be minutes');
  return {
    rolloutId: String(request.rolloutId),
    versionKey: Buffer.from(String(request.versionKey), 'hex'),
    graceMinutes: grace,
    silentAfterMinutes: silent,
    now: new Date(),
  };
}

function noOutcomes(): Record<RolloutOutcome, number> {
  return Object.fromEntries(ROLLOUT_OUTCOMES.map((o) => [o, 0])) as Record<RolloutOutcome, number>;
}

/**
 * A rollout's outcomes (docs/api.md "Rollouts", "Outcomes"), computed over its offers joined
 * with their devices: counts per stage (RegistryRolloutMessages.progress) and a page of devices
 * (RegistryRolloutMessages.devices).
 */
@Injectable()
export class MeasureRollout {
  constructor(@Inject(RegistryStore) private readonly store: RegistryStore) {}

  async progress(request: RolloutOutcomeRules): Promise<RolloutProgress> {
    const customerId = requireCustomerId(request.customerId);
    const rows = await this.store.repos.rolloutOffers.progress({ customerId, ...rulesOf(request) });
    const stages = new Map<number, { stage: number; offered: number; outcomes: Record<RolloutOutcome, number> }>();
    for (const row of rows) {
      let stage = stages.get(row.stage);
      if (!stage) stages.set(row.stage, (stage = { stage: row.stage, offered: 0, outcomes: noOutcomes() }));
      stage.offered += row.devices;
      stage.outcomes[row.outcome] += row.devices;
    }
    return { stages: [...stages.values()].sort((a, b) => a.stage - b.stage) };
  }

  async devices(request: RolloutDevicesRequest): Promise<{ items: RolloutDeviceRow[]; total: number }> {
    const customerId = requireCustomerId(request.customerId);
    const outcome = request.outcome === null ? null : (ROLLOUT_OUTCOMES as readonly string[]).includes(request.outcome) ? request.outcome : null;
    const stage = Number.isInteger(request.stage) ? request.stage : null;
    const limit = Math.min(Math.max(Number(request.limit) || 100, 1), 500);
    const offset = Math.max(Number(request.offset) || 0, 0);
    const page = await this.store.repos.rolloutOffers.devices({ customerId, ...rulesOf(request), outcome, stage, limit, offset });
    return {
      total: page.total,
      items: page.items.map((d) => ({
        hwid: d.hwid,
        stage: d.stage,
        outcome: d.outcome,
        offeredAt: d.offeredAt.toISOString(),
        updatedAt: d.updatedAt?.toISOString() ?? null,
        lastFwVersion: d.lastFwVersion,
        lastSeenAt: d.lastSeenAt?.toISOString() ?? null,
        reportedReason: d.reportedReason,
      })),
    };
  }
}
