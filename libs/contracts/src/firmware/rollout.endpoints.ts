import { defineEndpoint } from '../endpoints/endpoint.js';
import { RegistryErrors } from '../registry/registry.errors.js';
import { DeviceParams } from '../registry/registry.schemas.js';
import { FirmwareErrors } from './firmware.errors.js';
import { FirmwareMessages } from './firmware.messages.js';
import { BUILD_ID_PATTERN, FirmwareIdParams } from './firmware.schemas.js';
import { BuildAudience, BuildAudienceQuery, UpdatePreview, UpdatePreviewQuery } from './rollout.schemas.js';

/**
 * Rollout views answered by the firmware app with the update check's own rules
 * (docs/api.md "Rollouts"): they show builds and devices together, so they need fw:read and
 * devices:read.
 */
export const rolloutEndpoints = [
  defineEndpoint({
    operationId: 'getFirmwareAudience',
    method: 'GET',
    path: '/firmware/{id}/audience',
    tag: 'Firmware',
    summary: 'Who the update check offers this build to now: the rule, device counts and a page of the devices',
    auth: { kind: 'principal', scope: 'fw:read', alsoScope: 'devices:read', tenant: true },
    errorMode: 'json',
    params: FirmwareIdParams,
    query: BuildAudienceQuery,
    body: { kind: 'none' },
    routeWhen: { id: BUILD_ID_PATTERN },
    responses: { 200: { description: "The build's audience", schema: BuildAudience } },
    errors: [FirmwareErrors.build_not_found],
    target: { kind: 'message', message: FirmwareMessages.audience, reply: (audience) => ({ kind: 'json', status: 200, body: audience }) },
  }),
  defineEndpoint({
    operationId: 'previewDeviceUpdate',
    method: 'GET',
    path: '/devices/{hwid}/update-preview',
    tag: 'Devices',
    summary: 'What the update check naming this device answers now (by default for the product line and version it last reported); records no sighting',
    auth: { kind: 'principal', scope: 'devices:read', alsoScope: 'fw:read', tenant: true },
    errorMode: 'json',
    params: DeviceParams,
    query: UpdatePreviewQuery,
    body: { kind: 'none' },
    responses: { 200: { description: 'The update items and how they were chosen', schema: UpdatePreview } },
    errors: [RegistryErrors.device_hwid_invalid, RegistryErrors.device_not_found, FirmwareErrors.builds_unavailable],
    target: { kind: 'message', message: FirmwareMessages.previewUpdate, reply: (preview) => ({ kind: 'json', status: 200, body: preview }) },
  }),
];
