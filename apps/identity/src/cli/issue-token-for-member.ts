import type { CreatedToken, IssueTokenRequest } from '@app/contracts';
import { openAppDatabase, type ServiceConfig } from '@app/infra';
import type { DataSource } from 'typeorm';
import { IDENTITY_DATABASE } from '../identity.database.js';
import { IdentityStore } from '../repositories/identity.store.js';
import { Administrators } from '../services/administrators.service.js';
import { AuditTrail } from '../services/audit-trail.service.js';
import { SystemClock } from '../services/clock.js';
import { SigningKeys } from '../services/signing-keys.service.js';
import { CreateTokenUseCase } from '../use-cases/create-token/create-token.usecase.js';
import { TokenCreators } from '../use-cases/create-token/token-creator.js';
import { IssueTokenCommand } from '../use-cases/issue-token/issue-token.command.js';
import { IssueTokenUseCase } from '../use-cases/issue-token/issue-token.usecase.js';

/**
 * For the operator CLI, in-process: issues a token for a member of a customer straight from
 * the identity schema, with no message bus and no running identity app (the same use case as
 * the `identity.tokens.issue` message). Opens the identity DataSource with openAppDatabase
 * (migrations included) and closes it again, unless the caller passes its own `dataSource`.
 * Its audit entry is written to the identity outbox, which the identity app relays to the admin app.
 * Throws ServiceError: 404 unknown customer or member, 403 bundle above the member's scopes
 * or disabled user, 409 suspended customer, 400 invalid input.
 *
 *   const token = await issueTokenForMember(loadConfig(), { customerDomain, email, name, bundle: 'uploader' });
 *   console.log(token.token);
 */
export async function issueTokenForMember(config: ServiceConfig, request: IssueTokenRequest, options: { dataSource?: DataSource } = {}): Promise<CreatedToken> {
  const command = IssueTokenCommand.create(request);
  const dataSource = options.dataSource ?? (await openAppDatabase(config, IDENTITY_DATABASE));
  try {
    const store = new IdentityStore(dataSource);
    const clock = new SystemClock();
    const administrators = new Administrators(config);
    const createToken = new CreateTokenUseCase(
      store,
      new SigningKeys(store, clock),
      new TokenCreators(store, administrators),
      administrators,
      new AuditTrail(store, clock),
      clock,
      config,
    );
    return await new IssueTokenUseCase(store, administrators, createToken).execute(command);
  } finally {
    if (!options.dataSource) await dataSource.destroy();
  }
}
