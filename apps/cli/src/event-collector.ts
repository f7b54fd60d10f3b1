import type { EventDef, MessageDef } from '@app/contracts';
import { MessageBus } from '@app/infra';

/**
 * The CLI's message bus: there is no broker and no app to answer, so events emitted by the
 * code the CLI runs in-process are kept, for the CLI to deliver itself (the audit entries
 * are stored through the admin app's recordAuditEntries).
 */
export class EventCollector extends MessageBus {
  private readonly events: Array<{ readonly subject: string; readonly payload: unknown }> = [];

  /** The payloads emitted for `event`, oldest first, taken out of the collector. */
  take<P>(event: EventDef<P>): P[] {
    const taken: P[] = [];
    for (let i = 0; i < this.events.length;) {
      const entry = this.events[i];
      if (entry.subject === event.subject) {
        taken.push(entry.payload as P);
        this.events.splice(i, 1);
      } else i++;
    }
    return taken;
  }

  /** What was emitted and not taken. */
  remaining(): ReadonlyArray<{ readonly subject: string; readonly payload: unknown }> {
    return this.events;
  }

  send<Req, Res>(message: MessageDef<Req, Res>): Promise<Res> {
    return Promise.reject(new Error(`${message.pattern}: no message bus in the CLI`));
  }

  emit<P>(event: EventDef<P>, payload: P): void {
    this.events.push({ subject: event.subject, payload });
  }

  serve(): () => void {
    throw new Error('the CLI serves no messages');
  }

  subscribe(): () => void {
    return () => undefined;
  }
}
