import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { JsonLogger } from '@app/infra';
import { EvaluateRolloutsUseCase } from '../use-cases/evaluate-rollouts/evaluate-rollouts.usecase.js';

/** How often every firmware process (role `all`) tries to evaluate; the lease lets one run at a time. */
export const ROLLOUT_EVALUATION_MS = 60_000;

/**
 * Runs the rollout evaluation every minute in every firmware process that serves the API; the
 * lease row (firmware.rollout_evaluator_lease) makes the runs of all replicas one at a time, and
 * a run that finds the lease taken does nothing. POST /admin/rollouts/evaluate runs one now.
 */
@Injectable()
export class RolloutEvaluator implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new JsonLogger('firmware');
  private timer?: NodeJS.Timeout;
  private running: Promise<unknown> = Promise.resolve();

  constructor(@Inject(EvaluateRolloutsUseCase) private readonly evaluate: EvaluateRolloutsUseCase) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), ROLLOUT_EVALUATION_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async tick(): Promise<void> {
    this.running = this.evaluate.execute().catch((err: unknown) => {
      this.logger.warn('rollout evaluation failed; the next minute tries again', { error: err instanceof Error ? err.message : String(err) });
    });
    await this.running;
  }
}
