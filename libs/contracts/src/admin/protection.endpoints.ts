import { AdminErrors } from './admin.errors.js';
import { Type } from '@sinclair/typebox';
import { defineEndpoint } from '../endpoints/endpoint.js';
import { ProtectionMessages } from './protection.messages.js';
import {
  CreatedIpBlockSchema,
  CreateIpBlockRequest,
  DeleteIpBlockQuery,
  IpBlockSchema,
  IpBlocksQuery,
  MaintenanceSettingSchema,
  UpdateMaintenanceRequest,
} from './protection.schemas.js';
import { NoParams } from '../schemas.js';

/**
 * Maintenance mode and IP blocks (stored by the admin app, enforced by the gateway that
 * forwarded a change before it answers and by every other gateway within 2 s: docs/api.md
 * "Maintenance mode and IP blocks"). The writes stay allowed in maintenance: an operator must
 * be able to end it and to block an attacker while it is on.
 */
export const protectionEndpoints = [
  defineEndpoint({
    operationId: 'adminGetMaintenance',
    method: 'GET',
    path: '/admin/settings/maintenance',
    tag: 'Admin',
    summary: 'Maintenance mode: whether writes are refused (503), and the message',
    auth: { kind: 'principal', tenant: false, admin: 'read', notInSandbox: true },
    errorMode: 'json',
    params: NoParams,
    body: { kind: 'none' },
    responses: { 200: { description: 'The setting', schema: MaintenanceSettingSchema } },
    errors: [],
    target: { kind: 'message', message: ProtectionMessages.getMaintenance, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
  defineEndpoint({
    operationId: 'adminSetMaintenance',
    method: 'PUT',
    path: '/admin/settings/maintenance',
    tag: 'Admin',
    summary: 'Turn maintenance mode on or off (in force for the next request through the same gateway, on every other gateway within 2 s)',
    auth: { kind: 'principal', tenant: false, admin: 'full', notInSandbox: true },
    errorMode: 'json',
    allowedInMaintenance: true,
    params: NoParams,
    body: { kind: 'json', schema: UpdateMaintenanceRequest, required: true },
    responses: { 200: { description: 'The new setting', schema: MaintenanceSettingSchema } },
    errors: [],
    target: {
      kind: 'message',
      message: ProtectionMessages.updateMaintenance,
      reply: (r) => ({ kind: 'json', status: 200, body: r.result }),
      protection: (r) => r.protection,
    },
  }),
  defineEndpoint({
    operationId: 'adminListIpBlocks',
    method: 'GET',
    path: '/admin/ip-blocks',
    tag: 'Admin',
    summary: 'IP blocks in force (all=true: expired ones too), newest first',
    auth: { kind: 'principal', tenant: false, admin: 'read', notInSandbox: true },
    errorMode: 'json',
    params: NoParams,
    query: IpBlocksQuery,
    body: { kind: 'none' },
    responses: { 200: { description: 'The blocks', schema: Type.Object({ items: Type.Array(IpBlockSchema) }) } },
    errors: [],
    target: { kind: 'message', message: ProtectionMessages.listIpBlocks, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
  defineEndpoint({
    operationId: 'adminCreateIpBlock',
    method: 'POST',
    path: '/admin/ip-blocks',
    tag: 'Admin',
    summary:
      "Block an address or network: 403 on every endpoint, at once through the same gateway, on every other within 2 s (the same network again replaces its block; one covering the caller's own address needs confirm_own_address)",
    auth: { kind: 'principal', tenant: false, admin: 'full', notInSandbox: true },
    errorMode: 'json',
    allowedInMaintenance: true,
    params: NoParams,
    body: { kind: 'json', schema: CreateIpBlockRequest, required: true },
    responses: { 201: { description: 'The block as normalised', schema: CreatedIpBlockSchema } },
    // 409: the network covers the caller's own address and confirm_own_address was not true.
    errors: [AdminErrors.ip_network_invalid, AdminErrors.ip_block_own_address],
    target: {
      kind: 'message',
      message: ProtectionMessages.createIpBlock,
      reply: (r) => ({ kind: 'json', status: 201, body: r.result }),
      protection: (r) => r.protection,
    },
  }),
  defineEndpoint({
    operationId: 'adminDeleteIpBlock',
    method: 'DELETE',
    path: '/admin/ip-blocks',
    tag: 'Admin',
    summary: 'Remove the block of a network (cidr normalised like on creation)',
    auth: { kind: 'principal', tenant: false, admin: 'full', notInSandbox: true },
    errorMode: 'json',
    allowedInMaintenance: true,
    params: NoParams,
    query: DeleteIpBlockQuery,
    body: { kind: 'none' },
    responses: { 204: { description: 'Removed' } },
    errors: [AdminErrors.ip_network_invalid, AdminErrors.ip_block_not_found],
    target: { kind: 'message', message: ProtectionMessages.deleteIpBlock, reply: () => ({ kind: 'empty', status: 204 }), protection: (r) => r.protection },
  }),
];
