import { AdminErrors } from './admin.errors.js';
import { Type } from '@sinclair/typebox';
import { defineEndpoint } from '../endpoints/endpoint.js';
import { IdentityMessages } from '../identity/identity.messages.js';
import { IdentityErrors } from '../identity/identity.errors.js';
import { CommonErrors } from '../errors/common.errors.js';
import {
  CreateCustomerRequest,
  CustomerDomainParams,
  CustomerSchema,
  CustomerWithCounts,
  DeleteCustomerQuery,
  EmailParams,
  MemberSchema,
  UpdateCustomerRequest,
  UpdatedUser,
  UpdateUserRequest,
} from '../identity/identity.schemas.js';
import { AdminMessages } from './admin.messages.js';
import { AuditPage, AuditQuery, CustomerAuditQuery, SecurityEventIdParams, SecurityEventSchema, SecurityEventsQuery } from './admin.schemas.js';
import { NoParams } from '../schemas.js';

/**
 * The administrators' customers and people (kept by the identity app): every customer with
 * its counts and members, opening, changing and suspending customers, disabling people.
 */
export const adminAccountEndpoints = [
  defineEndpoint({
    operationId: 'adminListCustomers',
    method: 'GET',
    path: '/admin/customers',
    tag: 'Admin',
    summary: 'All customers with counts',
    auth: { kind: 'principal', tenant: false, admin: 'read', notInSandbox: true },
    errorMode: 'json',
    params: NoParams,
    body: { kind: 'none' },
    responses: { 200: { description: 'Customers', schema: Type.Object({ items: Type.Array(CustomerWithCounts) }) } },
    errors: [],
    target: { kind: 'message', message: IdentityMessages.listCustomers, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
  defineEndpoint({
    operationId: 'adminCreateCustomer',
    method: 'POST',
    path: '/admin/customers',
    tag: 'Admin',
    summary: 'Open a customer account; owner_email is invited as its first owner',
    auth: { kind: 'principal', tenant: false, admin: 'full', notInSandbox: true },
    errorMode: 'json',
    params: NoParams,
    body: { kind: 'json', schema: CreateCustomerRequest, required: true },
    responses: { 201: { description: 'The customer', schema: Type.Object({ customer: CustomerSchema }) } },
    errors: [IdentityErrors.customer_exists],
    target: { kind: 'message', message: IdentityMessages.createCustomer, reply: (r) => ({ kind: 'json', status: 201, body: r }) },
  }),
  defineEndpoint({
    operationId: 'adminGetCustomer',
    method: 'GET',
    path: '/admin/customers/{domain}',
    tag: 'Admin',
    summary: 'One customer with its members',
    auth: { kind: 'principal', tenant: false, admin: 'read', notInSandbox: true },
    errorMode: 'json',
    params: CustomerDomainParams,
    body: { kind: 'none' },
    responses: {
      200: { description: 'The customer and its members', schema: Type.Object({ customer: CustomerSchema, members: Type.Array(MemberSchema) }) },
    },
    errors: [CommonErrors.customer_not_found],
    target: { kind: 'message', message: IdentityMessages.getCustomer, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
  defineEndpoint({
    operationId: 'adminUpdateCustomer',
    method: 'PATCH',
    path: '/admin/customers/{domain}',
    tag: 'Admin',
    summary: 'Rename, suspend or reactivate a customer, or set its name and CORS origins (suspending ends its sessions and stops its tokens)',
    auth: { kind: 'principal', tenant: false, admin: 'full', notInSandbox: true },
    errorMode: 'json',
    params: CustomerDomainParams,
    body: { kind: 'json', schema: UpdateCustomerRequest, required: true },
    responses: { 200: { description: 'The customer', schema: Type.Object({ customer: CustomerSchema }) } },
    errors: [
      CommonErrors.customer_not_found,
      IdentityErrors.customer_domain_configured,
      IdentityErrors.operator_customer_unsuspendable,
      IdentityErrors.customer_exists,
    ],
    target: { kind: 'message', message: IdentityMessages.updateCustomer, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
  defineEndpoint({
    operationId: 'adminDeleteCustomer',
    method: 'DELETE',
    path: '/admin/customers/{domain}',
    tag: 'Admin',
    summary:
      'Delete a customer and all its data in every app (builds, devices, tags, log files, stored files, tokens, members, sessions); confirm repeats the domain. The operator and sandbox customers cannot be deleted.',
    auth: { kind: 'principal', tenant: false, admin: 'full', notInSandbox: true },
    errorMode: 'json',
    params: CustomerDomainParams,
    query: DeleteCustomerQuery,
    body: { kind: 'none' },
    responses: {
      204: { description: 'Deleted: nothing of the customer is left' },
      202: { description: 'Deletion under way: the customer is gone for every caller, an app has not erased its part yet; identity retries until it has' },
    },
    errors: [
      CommonErrors.customer_not_found,
      IdentityErrors.customer_delete_unconfirmed,
      IdentityErrors.operator_customer_undeletable,
      IdentityErrors.sandbox_customer_undeletable,
    ],
    target: { kind: 'message', message: IdentityMessages.deleteCustomer, reply: (r) => ({ kind: 'empty', status: r.done ? 204 : 202 }) },
  }),
  defineEndpoint({
    operationId: 'adminListUsers',
    method: 'GET',
    path: '/admin/users',
    tag: 'Admin',
    summary: 'Every membership of every person',
    auth: { kind: 'principal', tenant: false, admin: 'read', notInSandbox: true },
    errorMode: 'json',
    params: NoParams,
    body: { kind: 'none' },
    responses: { 200: { description: 'One entry per membership, by email then domain', schema: Type.Object({ items: Type.Array(MemberSchema) }) } },
    errors: [],
    target: { kind: 'message', message: IdentityMessages.listUsers, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
  defineEndpoint({
    operationId: 'adminUpdateUser',
    method: 'PATCH',
    path: '/admin/users/{email}',
    tag: 'Admin',
    summary: 'Disable a person (ends their sessions, revokes every token they created) or enable them again',
    auth: { kind: 'principal', tenant: false, admin: 'full', notInSandbox: true },
    errorMode: 'json',
    params: EmailParams,
    body: { kind: 'json', schema: UpdateUserRequest, required: true },
    responses: { 200: { description: 'The new state', schema: UpdatedUser } },
    errors: [IdentityErrors.user_not_found, IdentityErrors.user_self_disable],
    target: { kind: 'message', message: IdentityMessages.updateUser, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
];

/** What a page of the audit log may be refused with, by either list (GET /admin/audit and GET /audit). */
const AUDIT_PAGE_ERRORS = [
  AdminErrors.range_bound_invalid,
  AdminErrors.range_reversed,
  AdminErrors.audit_limit_invalid,
  AdminErrors.audit_offset_invalid,
  AdminErrors.audit_cursor_invalid,
];

/** The administrators' audit log and security events (stored by the admin app). */
export const adminEndpoints = [
  defineEndpoint({
    operationId: 'adminAudit',
    method: 'GET',
    path: '/admin/audit',
    tag: 'Admin',
    summary: 'Audit log: every change with before and after, newest first; filtered, paged by offset or cursor',
    auth: { kind: 'principal', tenant: false, admin: 'read', notInSandbox: true },
    errorMode: 'json',
    params: NoParams,
    query: AuditQuery,
    body: { kind: 'none' },
    responses: { 200: { description: 'A page of audit entries; next_offset and next_cursor are null on the last page', schema: AuditPage } },
    errors: AUDIT_PAGE_ERRORS,
    target: { kind: 'message', message: AdminMessages.listAudit, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
  defineEndpoint({
    operationId: 'adminSecurityEvents',
    method: 'GET',
    path: '/admin/security/events',
    tag: 'Admin',
    summary: 'Security events, newest first',
    auth: { kind: 'principal', tenant: false, admin: 'read', notInSandbox: true },
    errorMode: 'json',
    params: NoParams,
    query: SecurityEventsQuery,
    body: { kind: 'none' },
    responses: { 200: { description: 'Security events', schema: Type.Object({ items: Type.Array(SecurityEventSchema) }) } },
    errors: [],
    target: { kind: 'message', message: AdminMessages.listSecurityEvents, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
  defineEndpoint({
    operationId: 'adminAckSecurityEvent',
    method: 'POST',
    path: '/admin/security/events/{id}/ack',
    tag: 'Admin',
    summary: 'Acknowledge a security event (sets acked_at and acked_by; idempotent)',
    auth: { kind: 'principal', tenant: false, admin: 'full', notInSandbox: true },
    errorMode: 'json',
    params: SecurityEventIdParams,
    body: { kind: 'none' },
    responses: { 204: { description: 'Acknowledged' } },
    errors: [AdminErrors.security_event_id_invalid, AdminErrors.security_event_not_found],
    target: { kind: 'message', message: AdminMessages.ackSecurityEvent, reply: () => ({ kind: 'empty', status: 204 }) },
  }),
];

/**
 * A customer's own audit log (tag Audit), for its owners (scope members:manage: the log names
 * members, roles and tokens, which only owners manage); administrators' actions are shown as
 * `service administrator`.
 */
export const customerAuditEndpoints = [
  defineEndpoint({
    operationId: 'listAudit',
    method: 'GET',
    path: '/audit',
    tag: 'Audit',
    summary: "The customer's audit log: every change with before and after, newest first; administrators shown as service administrator",
    auth: { kind: 'principal', tenant: true, scope: 'members:manage', notInSandbox: true },
    errorMode: 'json',
    params: NoParams,
    query: CustomerAuditQuery,
    body: { kind: 'none' },
    responses: { 200: { description: 'A page of audit entries; next_offset and next_cursor are null on the last page', schema: AuditPage } },
    errors: AUDIT_PAGE_ERRORS,
    target: { kind: 'message', message: AdminMessages.listCustomerAudit, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
];
