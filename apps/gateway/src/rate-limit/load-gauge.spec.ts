import { describe, expect, it } from '@jest/globals';
import type { ServiceConfig } from '@app/infra';
import { LoadGauge, MAX_POLL_STRETCH } from './load-gauge.js';

describe('LoadGauge: Poll-After is lengthened past the in-flight threshold, by the ratio, at most 8 times', () => {
  const gauge = new LoadGauge({ updateCheckBusyInFlight: 10, updateCheckBusyLagMs: 100 } as ServiceConfig);

  it('is 1 up to the threshold, then the ratio, capped', () => {
    expect(gauge.pollStretch()).toBe(1);
    for (let i = 0; i < 10; i++) gauge.enter();
    expect(gauge.pollStretch()).toBe(1);
    for (let i = 0; i < 20; i++) gauge.enter();
    expect(gauge.pollStretch()).toBe(3);
    for (let i = 0; i < 200; i++) gauge.enter();
    expect(gauge.pollStretch()).toBe(MAX_POLL_STRETCH);
    for (let i = 0; i < 230; i++) gauge.leave();
    expect(gauge.pollStretch()).toBe(1);
  });
});
