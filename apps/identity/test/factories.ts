import {
  type AdminLevel,
  asCustomerId,
  type CustomerRef,
  type EndpointCall,
  type Principal,
  type RequestContext,
  type Role,
  ROLE_SCOPES,
  type Scope,
} from '@app/contracts';
import { loadConfig, type ServiceConfig } from '@app/infra';
import { randomBytes, randomUUID } from 'node:crypto';
import type { CustomerEntity } from '../src/entities/customer.entity.js';
import type { UserEntity } from '../src/entities/user.entity.js';
import type { IdentityRepositories } from '../src/repositories/identity.store.js';

let sequence = 0;
const unique = (): string => `${++sequence}-${randomBytes(3).toString('hex')}`;

export const aDomain = (prefix = 'customer'): string => `${prefix}-${unique()}.example`;
export const anEmail = (prefix = 'person'): string => `${prefix}-${unique()}@mail.example`;

/** A config for the identity app under test (the database comes from the test's own DataSource). */
export function identityConfig(overrides: Record<string, string> = {}): ServiceConfig {
  return loadConfig({ PUBLIC_URL: 'https://fw.example.test', OPERATOR_DOMAIN: 'operator.example', LOG_LEVEL: 'error', ...overrides });
}

export function customerRef(customer: Pick<CustomerEntity, 'id' | 'domain' | 'isSandbox'>): CustomerRef {
  return { id: asCustomerId(customer.id), domain: customer.domain, isSandbox: customer.isSandbox };
}

export function aPrincipal(input: {
  userId: string;
  customer: CustomerRef;
  kind?: Principal['kind'];
  credentialId?: string;
  role?: Role;
  scopes?: readonly Scope[];
  admin?: AdminLevel;
}): Principal {
  const admin = input.admin ?? '';
  const scopes = input.scopes ?? [...(input.role ? ROLE_SCOPES[input.role] : []), ...(admin === 'full' ? (['admin'] as Scope[]) : [])];
  return {
    kind: input.kind ?? 'session',
    userId: input.userId,
    credentialId: input.credentialId ?? randomUUID(),
    homeCustomer: input.customer,
    scopes,
    admin,
  };
}

export function aContext(input: { principal: Principal | null; customer: CustomerRef | null; baseUrl?: string }): RequestContext {
  const actor = input.principal
    ? `${input.principal.kind === 'token' ? 'token' : 'user'}:${input.principal.kind === 'token' ? input.principal.credentialId : input.principal.userId}`
    : 'anonymous';
  const acting = input.principal && input.customer && input.principal.homeCustomer.id !== input.customer.id;
  return {
    requestId: randomUUID(),
    principal: input.principal,
    customer: input.customer,
    actor,
    auditActor: acting ? `admin:${actor}` : actor,
    ip: '192.0.2.10',
    userAgent: 'jest',
    baseUrl: input.baseUrl ?? 'https://fw.example.test',
  };
}

export function aCall<Params, Query, Body>(
  ctx: RequestContext,
  input: { params?: Params; query?: Query; body?: Body } = {},
): EndpointCall<Params, Query, Body> {
  return { ctx, params: (input.params ?? {}) as Params, query: (input.query ?? {}) as Query, body: input.body as Body };
}

/** Persisted test data, created through the app's own repositories. */
export interface StoreLike {
  readonly repos: IdentityRepositories;
}

export async function aCustomer(
  store: StoreLike,
  input: { domain?: string; name?: string; isSandbox?: boolean; at?: Date; suspended?: boolean } = {},
): Promise<CustomerEntity> {
  const domain = input.domain ?? aDomain();
  const at = input.at ?? new Date();
  await store.repos.customers.insertIfAbsent({
    id: asCustomerId(randomUUID()),
    domain,
    name: input.name ?? `Customer ${domain}`,
    corsOrigins: [],
    isSandbox: input.isSandbox ?? false,
    at,
  });
  const customer = (await store.repos.customers.findByDomain(domain))!;
  if (input.suspended) {
    await store.repos.customers.setStatus(customer.id, 'suspended', at);
    return (await store.repos.customers.findByDomain(domain))!;
  }
  return customer;
}

export async function aMember(
  store: StoreLike,
  customer: Pick<CustomerEntity, 'id'>,
  role: Role,
  input: { email?: string; disabled?: boolean; at?: Date } = {},
): Promise<UserEntity> {
  const at = input.at ?? new Date();
  const { user } = await store.repos.users.ensure(input.email ?? anEmail(role), at);
  await store.repos.memberships.addIfAbsent({ customerId: asCustomerId(customer.id), userId: user.id, role, at });
  if (input.disabled) await store.repos.users.setDisabled(user.id, true);
  return (await store.repos.users.findById(user.id))!;
}
