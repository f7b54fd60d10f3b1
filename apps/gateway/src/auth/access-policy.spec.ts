import { describe, expect, it } from '@jest/globals';
import { type AuthRequirement, type CustomerRef, ErrorCode, type Principal, type Scope, ServiceError } from '@app/contracts';
import type { ServiceConfig } from '@app/infra';
import type { CustomerDirectory } from '@app/platform';
import { makeCustomer, makePrincipal } from '@app/testing';
import { AccessPolicy } from './access-policy.js';
import type { Authenticator } from './authenticator.js';

/** An endpoint needing two scopes (the rollout views: builds and devices together). */
const BOTH: AuthRequirement = { kind: 'principal', scope: 'fw:read', alsoScope: 'devices:read', tenant: true };

function policyFor(principal: Principal, other: CustomerRef): AccessPolicy {
  const authenticator = { authenticate: () => Promise.resolve({ principal, csrfHash: null }) } as unknown as Authenticator;
  const customers = {
    byDomain: (domain: string) => Promise.resolve(domain === other.domain ? { ...other, status: 'active' } : null),
  } as unknown as CustomerDirectory;
  return new AccessPolicy({ metricsToken: '' } as unknown as ServiceConfig, authenticator, customers);
}

async function outcome(scopes: readonly Scope[], options: { admin?: 'read' | 'full'; customerParam?: boolean } = {}): Promise<string> {
  const home = makeCustomer();
  const other = makeCustomer();
  const principal = makePrincipal(home, { kind: 'token', scopes, admin: options.admin ?? '' });
  try {
    await policyFor(principal, other).check({
      auth: BOTH,
      method: 'GET',
      credentials: { authorization: 'Bearer x', cookies: {} } as never,
      customerParam: options.customerParam ? other.domain : undefined,
      csrfToken: undefined,
    });
    return 'ok';
  } catch (err) {
    if (ServiceError.is(err) && err.code === ErrorCode.Forbidden) return err.message;
    throw err;
  }
}

describe('AccessPolicy: an endpoint declaring a second scope (alsoScope)', () => {
  it('needs both scopes, naming the one that is missing', async () => {
    expect(await outcome(['fw:read', 'devices:read'])).toBe('ok');
    expect(await outcome(['fw:read'])).toBe('missing scope devices:read');
    expect(await outcome(['devices:read'])).toBe('missing scope fw:read');
  });

  it('admin covers both; a read-only administrator acting on another customer holds every read scope', async () => {
    expect(await outcome(['admin'], { admin: 'full', customerParam: true })).toBe('ok');
    expect(await outcome([], { admin: 'read', customerParam: true })).toBe('ok');
  });
});
