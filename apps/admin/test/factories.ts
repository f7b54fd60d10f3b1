/** Test factories for the admin app's tests. */
import { randomUUID } from 'node:crypto';
import type { HealthSample, RequestLogEntry } from '@app/contracts';

let seq = 0;

export function makeRequestLogEntry(overrides: Partial<RequestLogEntry> = {}): RequestLogEntry {
  seq++;
  return {
    ts: new Date(Date.UTC(2026, 10, 21, 12, 0, 0, seq)).toISOString(),
    domain: 'acme.example',
    actor: 'token:tok-1',
    method: 'GET',
    route: '/logdata/{name}',
    path: `/logdata/${'a'.repeat(128)}`,
    status: 200,
    ip: '192.0.2.10',
    user_agent: 'curl/8.0',
    bytes_in: 0,
    bytes_out: 1234,
    duration_ms: 12,
    request_id: randomUUID(),
    ...overrides,
  };
}

export function makeHealthSample(ts: string, status: HealthSample['status'] = 'ok', parts?: HealthSample['parts']): HealthSample {
  return parts ? { ts, status, parts } : { ts, status };
}

/** A Clock fixed at `iso`. */
export function makeFixedClock(iso: string) {
  return { now: () => new Date(iso) };
}
