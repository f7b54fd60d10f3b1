import { defineEndpoint } from '../endpoints/endpoint.js';
import { NoParams } from '../schemas.js';
import { FirmwareMessages } from './firmware.messages.js';
import { RotateUpdateSigningKeyRequest, UpdateSigningKeysSchema } from './update-signing.schemas.js';

/** The keys that sign update-check answers (docs/api.md "Signed answers"): their schedule, and rotation. */
export const updateSigningEndpoints = [
  defineEndpoint({
    operationId: 'adminRotateUpdateSigningKey',
    method: 'POST',
    path: '/admin/update-signing-keys/rotate',
    tag: 'Admin',
    summary: 'Publish a new key for signing update-check answers; it signs after starts_in_seconds, the keys it replaces stay published 86400 s longer',
    auth: { kind: 'principal', tenant: false, admin: 'full', notInSandbox: true },
    errorMode: 'json',
    params: NoParams,
    body: { kind: 'json', schema: RotateUpdateSigningKeyRequest, required: false },
    responses: { 200: { description: 'The published keys after the rotation, the one that signs latest first', schema: UpdateSigningKeysSchema } },
    errors: [],
    target: { kind: 'message', message: FirmwareMessages.rotateUpdateSigningKey, reply: (keys) => ({ kind: 'json', status: 200, body: keys }) },
  }),
];
