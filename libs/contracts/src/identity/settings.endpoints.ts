import { defineEndpoint } from '../endpoints/endpoint.js';
import { NoParams } from '../schemas.js';
import { SettingsMessages } from './settings.messages.js';
import { CustomerSettingsSchema, UpdateCustomerSettingsRequest } from './settings.schemas.js';

/** A customer's own settings: its devices' polling interval (docs/api.md "When to check again"). */
export const settingsEndpoints = [
  defineEndpoint({
    operationId: 'getSettings',
    method: 'GET',
    path: '/settings',
    tag: 'Devices',
    summary: "The customer's settings: its devices' polling interval",
    auth: { kind: 'principal', scope: 'devices:read', tenant: true },
    errorMode: 'json',
    params: NoParams,
    body: { kind: 'none' },
    responses: { 200: { description: 'The settings', schema: CustomerSettingsSchema } },
    errors: [],
    target: { kind: 'message', message: SettingsMessages.get, reply: (settings) => ({ kind: 'json', status: 200, body: settings }) },
  }),
  defineEndpoint({
    operationId: 'updateSettings',
    method: 'PATCH',
    path: '/settings',
    tag: 'Devices',
    summary: "Change the customer's settings (poll_interval_seconds; null: the service default); devices see it from their next check",
    auth: { kind: 'principal', scope: 'devices:write', tenant: true },
    errorMode: 'json',
    params: NoParams,
    body: { kind: 'json', schema: UpdateCustomerSettingsRequest, required: true },
    responses: { 200: { description: 'The settings after the change', schema: CustomerSettingsSchema } },
    errors: [],
    target: { kind: 'message', message: SettingsMessages.update, reply: (settings) => ({ kind: 'json', status: 200, body: settings }) },
  }),
];
