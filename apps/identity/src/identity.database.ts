import type { AppDatabaseOptions } from '@app/infra';
import { IDENTITY_ENTITIES } from './entities/index.js';
import { IdentitySchema1763700000000 } from './migrations/1763700000000-identity-schema.js';
import { IdentityLoginLimits1763800000000 } from './migrations/1763800000000-identity-login-limits.js';
import { IdentityOutbox1764400000000 } from './migrations/1764400000000-identity-outbox.js';
import { IdentityCustomerDeleting1764500000000 } from './migrations/1764500000000-identity-customer-deleting.js';
import { CustomerPollInterval1765300000000 } from './migrations/1765300000000-customer-poll-interval.js';

/** The identity app's schema, entities and hand-written migrations (oldest first). */
export const IDENTITY_DATABASE: AppDatabaseOptions = {
  schema: 'identity',
  entities: IDENTITY_ENTITIES,
  migrations: [
    IdentitySchema1763700000000,
    IdentityLoginLimits1763800000000,
    IdentityOutbox1764400000000,
    IdentityCustomerDeleting1764500000000,
    CustomerPollInterval1765300000000,
  ],
};
