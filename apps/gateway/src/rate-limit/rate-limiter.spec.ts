import { describe, expect, it } from '@jest/globals';
import { FixedWindowCounter } from './window-counter.js';

describe('FixedWindowCounter', () => {
  it('allows perMinute requests per key per minute, then answers the seconds until the window ends', () => {
    let now = 1_000_000;
    const counter = new FixedWindowCounter(10, () => now);
    for (let i = 0; i < 3; i++) expect(counter.hit('a', 3)).toBeNull();
    expect(counter.hit('a', 3)).toBe(60);
    now += 45_500;
    expect(counter.hit('a', 3)).toBe(15);
    expect(counter.hit('b', 3)).toBeNull();
    now += 15_000;
    expect(counter.hit('a', 3)).toBeNull(); // a new window
  });

  it('stays within its bound', () => {
    const counter = new FixedWindowCounter(3);
    for (let i = 0; i < 10; i++) counter.hit(`k${i}`, 1);
    expect(counter.size).toBe(3);
  });
});
