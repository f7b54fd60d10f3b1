import { Inject, Injectable } from '@nestjs/common';
import { IdentityMessages, type RolloutHalted, RolloutEvents } from '@app/contracts';
import { JobQueue, JsonLogger, MAIL_JOB, MAIL_QUEUE, type MailMessage, MessageBus, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import type { Build } from '../domain/build.js';
import type { RolloutRecord } from '../domain/rollout.js';

const OWNERS_TIMEOUT_MS = 5_000;

/**
 * What follows a halt besides its audit entry (docs/api.md "Rollouts", "Halt rules"): a mail to
 * each enabled owner of the customer (asked of identity: IdentityMessages.ownerEmails) through
 * the worker's mail queue, one job id per rollout revision and address so a repeated run mails
 * nobody twice, and the event RolloutEvents.halted with the figures. Called once per halt: only
 * the run whose conditional transition won gets here. A failed owner lookup is logged; the halt
 * itself stands.
 */
@Injectable()
export class RolloutHaltNotice {
  private readonly logger = new JsonLogger('firmware');

  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(JobQueue) private readonly jobs: JobQueue,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async send(halted: RolloutRecord, build: Build): Promise<RolloutHalted | null> {
    if (!halted.halt) return null;
    let domain: string | null = null;
    let mailedTo = 0;
    try {
      const owners = await this.bus.send(IdentityMessages.ownerEmails, { customerId: halted.customerId }, { timeoutMs: OWNERS_TIMEOUT_MS });
      domain = owners.domain;
      for (const to of owners.emails) {
        const message = this.render(halted, build, domain, to);
        await this.jobs.add<MailMessage>(MAIL_QUEUE, MAIL_JOB, message, { jobId: message.idempotencyKey });
        mailedTo++;
      }
    } catch (err) {
      this.logger.warn('a halted rollout was not mailed to the owners', { rollout_id: halted.id, error: err instanceof Error ? err.message : String(err) });
    }
    const event: RolloutHalted = {
      customerId: halted.customerId,
      domain,
      rolloutId: halted.id,
      buildId: halted.buildId,
      build: { hwName: build.hwName, hwVersion: build.hwVersion, fwName: build.fwName, fwVersion: build.fwVersion },
      stage: halted.currentStage,
      stages: halted.stages.length,
      halt: halted.halt,
      revision: halted.revision,
      mailedTo,
    };
    this.bus.emit(RolloutEvents.halted, event);
    return event;
  }

  private render(halted: RolloutRecord, build: Build, domain: string | null, to: string): MailMessage {
    const halt = halted.halt!;
    const name = `${build.fwName} ${build.fwVersion}`;
    const page = `${this.config.publicUrl}/console/firmware/${halted.buildId}/rollout`;
    return {
      kind: 'rollout_halted',
      to,
      subject: `Rollout halted: ${name}${domain ? ` on ${domain}` : ''}`,
      text: [
        `The staged rollout of ${name} (${build.hwName} ${build.hwVersion}) was halted at stage ${halted.currentStage + 1} of ${halted.stages.length}.`,
        '',
        `Rule:     ${halt.rule.outcome.replace('_', ' ')} over ${halt.rule.max_percent} % of at least ${halt.rule.min_outcomes} outcomes`,
        `Figures:  ${halt.count} of ${halt.outcomes} outcomes ${halt.rule.outcome.replace('_', ' ')} (${halt.percent} %)`,
        `At:       ${halt.at}`,
        '',
        'The build is no longer offered to devices that have not taken it. Resume or abort the rollout:',
        page,
        '',
        `API: GET ${this.config.publicUrl}/firmware/${halted.buildId}/rollout`,
      ].join('\n'),
      idempotencyKey: `rollout-halt:${halted.id}:${halted.revision}:${to}`,
    };
  }
}
