import { Inject, Injectable } from '@nestjs/common';
import { OutboxRepository } from '@app/platform';
import { DataSource, type EntityManager } from 'typeorm';
import { ApiTokenRepository } from './api-token.repository.js';
import { CustomerRepository } from './customer.repository.js';
import { LockRepository } from './lock.repository.js';
import { LoginAttemptRepository } from './login-attempt.repository.js';
import { LoginChallengeRepository } from './login-challenge.repository.js';
import { MembershipRepository } from './membership.repository.js';
import { SandboxTokenRepository } from './sandbox-token.repository.js';
import { SecretRepository } from './secret.repository.js';
import { SessionRepository } from './session.repository.js';
import { SigningKeyRepository } from './signing-key.repository.js';
import { UserRepository } from './user.repository.js';

export interface IdentityRepositories {
  readonly customers: CustomerRepository;
  readonly users: UserRepository;
  readonly memberships: MembershipRepository;
  readonly signingKeys: SigningKeyRepository;
  readonly secrets: SecretRepository;
  readonly tokens: ApiTokenRepository;
  readonly sessions: SessionRepository;
  readonly challenges: LoginChallengeRepository;
  readonly attempts: LoginAttemptRepository;
  readonly sandboxTokens: SandboxTokenRepository;
  readonly locks: LockRepository;
  /** Audit entries and security events on their way to the admin app (OutboxRelay). */
  readonly outbox: OutboxRepository;
}

export function createRepositories(manager: EntityManager): IdentityRepositories {
  return {
    customers: new CustomerRepository(manager),
    users: new UserRepository(manager),
    memberships: new MembershipRepository(manager),
    signingKeys: new SigningKeyRepository(manager),
    secrets: new SecretRepository(manager),
    tokens: new ApiTokenRepository(manager),
    sessions: new SessionRepository(manager),
    challenges: new LoginChallengeRepository(manager),
    attempts: new LoginAttemptRepository(manager),
    sandboxTokens: new SandboxTokenRepository(manager),
    locks: new LockRepository(manager),
    outbox: new OutboxRepository(manager, 'identity'),
  };
}

/**
 * The identity app's unit of work: repositories bound to the DataSource, or to one
 * transaction. Use cases go through this and never touch the ORM themselves.
 */
@Injectable()
export class IdentityStore {
  readonly repos: IdentityRepositories;

  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {
    this.repos = createRepositories(dataSource.manager);
  }

  /** Runs `work` in one transaction; `lock` serialises it with others taking the same advisory lock. */
  transaction<T>(work: (repos: IdentityRepositories) => Promise<T>, options: { lock?: string } = {}): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      const repos = createRepositories(manager);
      if (options.lock) await repos.locks.lockForTransaction(options.lock);
      return work(repos);
    });
  }
}
