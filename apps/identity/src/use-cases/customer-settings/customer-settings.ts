import type { CustomerSettings } from '@app/contracts';
import type { Customer } from '../../domain/records.js';

/** The settings view of a customer: the stored interval and what its devices are told now. */
export function settingsOf(customer: Customer, defaultPollSeconds: number): CustomerSettings {
  return { poll_interval_seconds: customer.pollIntervalSeconds, effective_poll_interval_seconds: customer.pollIntervalSeconds ?? defaultPollSeconds };
}
