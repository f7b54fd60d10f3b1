import type { EventDef, MessageDef } from '@app/contracts';
import { type JobHandler, type JobOptions, JobQueue, type JobRecord, MessageBus, type SendOptions } from '@app/infra';
import { Clock } from '../src/services/clock.js';

/** A clock the test moves by hand. */
export class FakeClock extends Clock {
  private current: number;

  constructor(start: string | Date = '2026-11-21T10:00:00.000Z') {
    super();
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += ms;
  }
}

type Responder = (payload: unknown) => unknown;

/** The MessageBus port, in memory: records emitted events, answers `send` from registered responders. */
export class FakeBus extends MessageBus {
  readonly emitted: Array<{ subject: string; payload: unknown }> = [];
  readonly sent: Array<{ pattern: string; payload: unknown; options?: SendOptions }> = [];
  private readonly responders = new Map<string, Responder>();

  respond<Req, Res>(message: MessageDef<Req, Res>, responder: (payload: Req) => Res | Promise<Res>): void {
    this.responders.set(message.pattern, responder as Responder);
  }

  async send<Req, Res>(message: MessageDef<Req, Res>, payload: Req, options?: SendOptions): Promise<Res> {
    this.sent.push({ pattern: message.pattern, payload, options });
    const responder = this.responders.get(message.pattern);
    if (!responder) throw new Error(`no responder for ${message.pattern}`);
    return (await responder(JSON.parse(JSON.stringify(payload)))) as Res;
  }

  emit<P>(event: EventDef<P>, payload: P): void {
    this.emitted.push({ subject: event.subject, payload: JSON.parse(JSON.stringify(payload)) });
  }

  serve(): () => void {
    throw new Error('FakeBus serves no messages');
  }

  subscribe(): () => void {
    return () => undefined;
  }

  events<P>(event: EventDef<P>): P[] {
    return this.emitted.filter((e) => e.subject === event.subject).map((e) => e.payload as P);
  }
}

/** The JobQueue port, in memory: keeps what was added (de-duplicated by jobId like BullMQ). */
export class FakeJobQueue extends JobQueue {
  readonly jobs: Array<{ queue: string; name: string; data: unknown; options?: JobOptions }> = [];

  async add<T>(queue: string, name: string, data: T, options?: JobOptions): Promise<void> {
    if (options?.jobId && this.jobs.some((j) => j.queue === queue && j.options?.jobId === options.jobId)) return;
    this.jobs.push({ queue, name, data: JSON.parse(JSON.stringify(data)), options });
  }

  process<T>(_queue: string, _handler: JobHandler<T>): void {}

  async schedule(): Promise<void> {}

  async list(): Promise<JobRecord[]> {
    return [];
  }

  async close(): Promise<void> {}
}
