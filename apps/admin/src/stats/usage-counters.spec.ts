import { describe, expect, it } from '@jest/globals';
import { REFUSAL_CUSTOMER_NOT_FOUND } from '@app/contracts';
import type { RequestLogRow } from '../dtos/request-log-entry.js';
import { chargedDomain, countersOf, dailyIncrements, NO_CUSTOMER } from './usage-counters.js';

function row(overrides: Partial<RequestLogRow>): RequestLogRow {
  return {
    ts: '2026-11-25T10:00:00.000Z',
    domain: 'a.example',
    actor: null,
    method: 'GET',
    route: '/firmware',
    path: '/firmware',
    status: 200,
    ip: '192.0.2.1',
    user_agent: 'ua',
    bytes_in: 0,
    bytes_out: 0,
    duration_ms: 1,
    request_id: 'r',
    refusal: null,
    ...overrides,
  };
}

const CHECK = '/firmware/{domain}/{hw_name}/{hw_version}/{fw_name}/{fw_version}';

describe('usage counters', () => {
  it('counts every request, errors from 400 up, and each kind of work only when it succeeded', () => {
    expect(countersOf('GET', '/firmware', 200)).toEqual(['requests']);
    expect(countersOf('GET', '/firmware', 404)).toEqual(['requests', 'errors']);
    expect(countersOf('GET', '/firmware', 499)).toEqual(['requests', 'errors']);
    expect(countersOf('PUT', '/firmware/{hw_name}/{hw_version}/{fw_name}', 201)).toEqual(['requests', 'firmware_uploads']);
    expect(countersOf('PUT', '/firmware', 200)).toEqual(['requests', 'firmware_uploads']);
    expect(countersOf('PUT', '/firmware', 413)).toEqual(['requests', 'errors']);
    expect(countersOf('PUT', '/logdata/{name}', 201)).toEqual(['requests', 'logdata_uploads']);
    expect(countersOf('GET', '/firmware/{id}/binary', 302)).toEqual(['requests', 'firmware_downloads']);
    expect(countersOf('GET', '/firmware/{id}/notes', 302)).toEqual(['requests', 'notes_downloads']);
    expect(countersOf('GET', '/logdata/{name}', 302)).toEqual(['requests', 'logdata_downloads']);
    expect(countersOf('HEAD', '/logdata/{name}', 200)).toEqual(['requests']);
    expect(countersOf('GET', CHECK, 200)).toEqual(['requests', 'update_checks']);
    expect(countersOf('GET', `${CHECK}/{hwid}`, 304)).toEqual(['requests', 'update_checks']);
    expect(countersOf('GET', CHECK, 429)).toEqual(['requests', 'errors']);
  });

  it('charges no customer for requests without one or naming one refused as not found', () => {
    expect(chargedDomain({ domain: 'a.example', refusal: null })).toBe('a.example');
    expect(chargedDomain({ domain: null, refusal: null })).toBe(NO_CUSTOMER);
    expect(chargedDomain({ domain: 'a.example', refusal: REFUSAL_CUSTOMER_NOT_FOUND })).toBe(NO_CUSTOMER);
  });

  it('sums a batch per UTC day and customer, in key order', () => {
    const cells = dailyIncrements([
      row({ ts: '2026-11-25T23:59:59.999Z', domain: 'b.example', route: CHECK }),
      row({ ts: '2026-11-26T00:00:00.000Z', domain: 'b.example' }),
      row({ ts: '2026-11-25T01:00:00.000Z', domain: 'b.example', status: 500 }),
      row({ ts: '2026-11-25T01:00:00.000Z', domain: null }),
    ]);
    expect(cells.map((c) => [c.day, c.domain, c.counts.requests, c.counts.errors, c.counts.update_checks])).toEqual([
      ['2026-11-25', NO_CUSTOMER, 1, 0, 0],
      ['2026-11-25', 'b.example', 2, 1, 1],
      ['2026-11-26', 'b.example', 1, 0, 0],
    ]);
  });
});
