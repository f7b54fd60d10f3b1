/**
 * Test factories for the identity app's tests. The request-side ones (makeCustomer, makePrincipal, makeContext,
 * makeCall, makeDomain, makeEmail) come from '@app/testing'.
 */
import { asCustomerId, type Role } from '@app/contracts';
import { loadConfig, type ServiceConfig } from '@app/infra';
import { makeDomain, makeEmail } from '@app/testing';
import { randomUUID } from 'node:crypto';
import type { CustomerEntity } from '../src/entities/customer.entity.js';
import type { UserEntity } from '../src/entities/user.entity.js';
import type { IdentityRepositories } from '../src/repositories/identity.store.js';

/** The client the identity tests' requests come from: pass to makeContext with the principal. */
export const IDENTITY_CLIENT = { ip: '192.0.2.10', baseUrl: 'https://fw.example.test' } as const;

/** A config for the identity app under test (the database comes from the test's own DataSource). */
export function makeIdentityConfig(overrides: Record<string, string> = {}): ServiceConfig {
  return loadConfig({ PUBLIC_URL: 'https://fw.example.test', OPERATOR_DOMAIN: 'operator.example', LOG_LEVEL: 'error', ...overrides });
}

/** Persisted test data, created through the app's own repositories. */
export interface StoreLike {
  readonly repos: IdentityRepositories;
}

export async function makeStoredCustomer(
  store: StoreLike,
  input: { domain?: string; name?: string; isSandbox?: boolean; at?: Date; suspended?: boolean } = {},
): Promise<CustomerEntity> {
  const domain = input.domain ?? makeDomain();
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
    await store.repos.customers.setStatus({ customerId: customer.id, status: 'suspended', at });
    return (await store.repos.customers.findByDomain(domain))!;
  }
  return customer;
}

export async function makeStoredMember(
  store: StoreLike,
  customer: Pick<CustomerEntity, 'id'>,
  role: Role,
  input: { email?: string; disabled?: boolean; at?: Date } = {},
): Promise<UserEntity> {
  const at = input.at ?? new Date();
  const { user } = await store.repos.users.ensure(input.email ?? makeEmail(role), at);
  await store.repos.memberships.addIfAbsent({ customerId: asCustomerId(customer.id), userId: user.id, role, at });
  if (input.disabled) await store.repos.users.setDisabled(user.id, true);
  return (await store.repos.users.findById(user.id))!;
}
