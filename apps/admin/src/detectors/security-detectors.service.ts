import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { JobQueue, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { DetectSecurityEvents } from '../use-cases/detect-security-events/detect-security-events.usecase.js';
import type { Finding } from './detector-rules.js';

/** The named repeating job of the detectors (JobQueue.schedule: one run per period across replicas). */
export const DETECTOR_QUEUE = 'security-detectors';
export const DETECTOR_JOB = 'detect';

/**
 * The security detectors' repeating job (SECURITY_DETECTOR_INTERVAL_SECONDS): each run is
 * DetectSecurityEvents; a run already going in this process is joined, not repeated.
 */
@Injectable()
export class SecurityDetectors implements OnModuleInit, OnModuleDestroy {
  private running: Promise<Finding[]> | null = null;
  /** The app is shutting down: scheduled runs still delivered (the queue outlives the app in one process) do nothing. */
  private stopped = false;

  constructor(
    @Inject(DetectSecurityEvents) private readonly detect: DetectSecurityEvents,
    @Inject(JobQueue) private readonly jobs: JobQueue,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    this.jobs.process(DETECTOR_QUEUE, async () => {
      if (!this.stopped) await this.run();
    });
    await this.jobs.schedule(DETECTOR_QUEUE, DETECTOR_QUEUE, this.config.securityDetectors.intervalSeconds * 1000, DETECTOR_JOB, {});
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    await this.running?.catch(() => undefined);
  }

  /** One detection run (joined when one is going); the findings that opened an episode. */
  run(): Promise<Finding[]> {
    this.running ??= this.detect.execute().finally(() => (this.running = null));
    return this.running;
  }
}
