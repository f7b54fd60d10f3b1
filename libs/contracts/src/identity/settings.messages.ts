import type { EndpointCall } from '../endpoints/endpoint.js';
import { defineMessage } from '../messages/message.js';
import type { NoParams } from '../schemas.js';
import type { CustomerSettings, UpdateCustomerSettingsRequest } from './settings.schemas.js';

/** A customer's own settings (identity). */
export const SettingsMessages = {
  get: defineMessage<EndpointCall<NoParams, NoParams, undefined>, CustomerSettings>('identity.settings.get'),
  update: defineMessage<EndpointCall<NoParams, NoParams, UpdateCustomerSettingsRequest>, CustomerSettings>('identity.settings.update'),
} as const;
