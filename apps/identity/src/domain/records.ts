import type { Bundle, CustomerId, Scope } from '@app/contracts';

// Stored records as the use cases and services see them: the repositories return them and the
// ORM entities implement them (so the two stay in step), but nothing outside the repositories
// sees the ORM.

/** `deleting`: a deletion under way (hidden everywhere; see FinishCustomerDeletionUseCase). */
export type CustomerStatus = 'active' | 'suspended' | 'deleting';

/** A tenant, identified by its domain (stored lower-case). */
export interface Customer {
  readonly id: CustomerId;
  readonly domain: string;
  readonly name: string;
  readonly status: CustomerStatus;
  readonly corsOrigins: string[];
  readonly isSandbox: boolean;
  /** Seconds between its devices' update checks (Poll-After); null: UPDATE_POLL_SECONDS. */
  readonly pollIntervalSeconds: number | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** What PATCH /admin/customers changes: the given fields only. */
export interface CustomerChange {
  readonly name?: string;
  readonly domain?: string;
  readonly status?: CustomerStatus;
  /** Each once. */
  readonly corsOrigins?: readonly string[];
}

/** One POST /auth/login (user_id null for uninvited addresses, never verifiable). */
export interface LoginChallenge {
  readonly id: string;
  readonly email: string;
  readonly userId: string | null;
  readonly codeSalt: string;
  readonly codeHash: string;
  /** SHA-256 of the magic-link token. */
  readonly linkHash: string;
  /** Verification attempts reserved so far. */
  readonly attempts: number;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly usedAt: Date | null;
}

export type LoginAttemptKind = 'login' | 'verify';

/** What the service keeps of an API token: its id (the JWT `jti`) and metadata, never the token. */
export interface ApiToken {
  readonly id: string;
  readonly customerId: CustomerId;
  /** The user the token acts as. */
  readonly createdBy: string;
  readonly name: string;
  readonly bundle: Bundle;
  readonly scopes: Scope[];
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly revokedAt: Date | null;
  readonly lastUsedAt: Date | null;
}
