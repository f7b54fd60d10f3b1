import { AdminErrors } from '@app/contracts';

/** POST /admin/security/events/{id}/ack, validated when built. */
export class AcknowledgeSecurityEventCommand {
  private constructor(
    readonly id: number,
    readonly actor: string,
  ) {}

  /** `id` as the path carries it (a string or a number); the catalog's 400 when it is no positive integer. */
  static create(input: { id: unknown; actor: string }): AcknowledgeSecurityEventCommand {
    const id = Number(input.id);
    if (!Number.isSafeInteger(id) || id < 1) throw AdminErrors.security_event_id_invalid();
    return new AcknowledgeSecurityEventCommand(id, input.actor);
  }
}
