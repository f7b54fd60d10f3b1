import { ApiTokenEntity } from './api-token.entity.js';
import { CustomerEntity } from './customer.entity.js';
import { LoginAttemptEntity } from './login-attempt.entity.js';
import { LoginChallengeEntity } from './login-challenge.entity.js';
import { MembershipEntity } from './membership.entity.js';
import { RefreshTokenEntity } from './refresh-token.entity.js';
import { SandboxTokenEntity } from './sandbox-token.entity.js';
import { SecretEntity } from './secret.entity.js';
import { SessionEntity } from './session.entity.js';
import { SigningKeyEntity } from './signing-key.entity.js';
import { UserEntity } from './user.entity.js';

export {
  ApiTokenEntity,
  CustomerEntity,
  LoginAttemptEntity,
  LoginChallengeEntity,
  MembershipEntity,
  RefreshTokenEntity,
  SandboxTokenEntity,
  SecretEntity,
  SessionEntity,
  SigningKeyEntity,
  UserEntity,
};

export const IDENTITY_ENTITIES = [
  CustomerEntity,
  UserEntity,
  MembershipEntity,
  SigningKeyEntity,
  SecretEntity,
  ApiTokenEntity,
  SessionEntity,
  RefreshTokenEntity,
  LoginChallengeEntity,
  LoginAttemptEntity,
  SandboxTokenEntity,
];
