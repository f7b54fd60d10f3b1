import { describe, expect, it } from '@jest/globals';
import { KnownCustomerDomains } from './known-customer-domains.js';

const HOUR = 3600_000;

describe('KnownCustomerDomains', () => {
  it('counts a refused update check for its domain only after an answered one, for an hour', () => {
    const known = new KnownCustomerDomains();
    expect(known.countedDomain('a.example', 429, 0)).toBeNull();
    expect(known.countedDomain('a.example', 400, 0)).toBeNull();
    expect(known.countedDomain('a.example', 304, 1000)).toBe('a.example');
    expect(known.countedDomain('a.example', 429, 2000)).toBe('a.example');
    expect(known.countedDomain('a.example', 400, 1000 + HOUR - 1)).toBe('a.example');
    expect(known.countedDomain('a.example', 400, 1000 + HOUR)).toBeNull();
    expect(known.countedDomain('b.example', 200, 0)).toBe('b.example');
    expect(known.countedDomain('c.example', 429, 0)).toBeNull();
  });

  it('forgets a domain answered 404 (no such customer) at once', () => {
    const known = new KnownCustomerDomains();
    expect(known.countedDomain('gone.example', 200, 0)).toBe('gone.example');
    expect(known.countedDomain('gone.example', 404, 1)).toBeNull();
    expect(known.countedDomain('gone.example', 429, 2)).toBeNull();
  });

  it('keeps a domain checked again within the hour known past it (refreshed after half of it)', () => {
    const known = new KnownCustomerDomains();
    known.countedDomain('a.example', 200, 0);
    known.countedDomain('a.example', 200, HOUR / 2 + 1);
    expect(known.countedDomain('a.example', 429, HOUR + 1)).toBe('a.example');
  });
});
