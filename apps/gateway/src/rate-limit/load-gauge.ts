import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** The most Poll-After is lengthened under load. */
export const MAX_POLL_STRETCH = 8;

/**
 * How busy this gateway is, for the update check's Poll-After (docs/api.md "When to check
 * again"): requests waiting for an app's answer, and the event loop's mean delay over the last
 * second. Past UPDATE_CHECK_BUSY_IN_FLIGHT or UPDATE_CHECK_BUSY_LAG_MS devices are asked to come
 * back later by the larger ratio (at most MAX_POLL_STRETCH), before rate limits or timeouts
 * refuse anything. Reading it costs a division: it runs on every update check.
 */
@Injectable()
export class LoadGauge implements OnModuleInit, OnModuleDestroy {
  private inFlight = 0;
  private lagMs = 0;
  private readonly delays = monitorEventLoopDelay({ resolution: 10 });
  private timer?: NodeJS.Timeout;

  constructor(@Inject(SERVICE_CONFIG) private readonly config: ServiceConfig) {}

  onModuleInit(): void {
    this.delays.enable();
    this.timer = setInterval(() => {
      this.lagMs = Number.isFinite(this.delays.mean) ? this.delays.mean / 1e6 : 0;
      this.delays.reset();
    }, 1000);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
    this.delays.disable();
  }

  /** A request was sent to an app; `leave` when its answer (or failure) is back. */
  enter(): void {
    this.inFlight++;
  }

  leave(): void {
    this.inFlight--;
  }

  /** The factor for Poll-After: 1 normally, up to MAX_POLL_STRETCH past a threshold. */
  pollStretch(): number {
    const ratio = Math.max(this.inFlight / this.config.updateCheckBusyInFlight, this.lagMs / this.config.updateCheckBusyLagMs);
    return ratio <= 1 ? 1 : Math.min(MAX_POLL_STRETCH, ratio);
  }
}
