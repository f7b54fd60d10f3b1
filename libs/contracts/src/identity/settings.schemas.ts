import { type Static, Type } from '@sinclair/typebox';

/** The range of a customer's polling interval (docs/api.md "When to check again"). */
export const POLL_INTERVAL_MIN_SECONDS = 60;
export const POLL_INTERVAL_MAX_SECONDS = 604_800;

const PollInterval = Type.Integer({
  minimum: POLL_INTERVAL_MIN_SECONDS,
  maximum: POLL_INTERVAL_MAX_SECONDS,
  description: "Seconds between a device's update checks, before jitter (null: the service default UPDATE_POLL_SECONDS)",
  'x-error': `poll_interval_seconds must be an integer from ${POLL_INTERVAL_MIN_SECONDS} to ${POLL_INTERVAL_MAX_SECONDS}, or null`,
});

/** GET /settings: the customer's own settings. */
export const CustomerSettingsSchema = Type.Object(
  {
    poll_interval_seconds: Type.Union([PollInterval, Type.Null()]),
    /** What devices are told now: the setting, or the service default. */
    effective_poll_interval_seconds: Type.Integer(),
  },
  { $id: 'CustomerSettings' },
);
export type CustomerSettings = Static<typeof CustomerSettingsSchema>;

/** PATCH /settings. */
export const UpdateCustomerSettingsRequest = Type.Object(
  { poll_interval_seconds: Type.Optional(Type.Union([PollInterval, Type.Null()])) },
  { additionalProperties: false },
);
export type UpdateCustomerSettingsRequest = Static<typeof UpdateCustomerSettingsRequest>;
