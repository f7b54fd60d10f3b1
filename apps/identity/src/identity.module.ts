import { type DynamicModule, Module, type Provider, type Type } from '@nestjs/common';
import type { ServiceConfig } from '@app/infra';
import { appDataController, healthController, InfraModule, outboxRelayProvider } from '@app/platform';
import { IDENTITY_APP_DATA } from './identity.app-data.js';
import { AdminCustomersController } from './controllers/admin-customers.controller.js';
import { AuthController } from './controllers/auth.controller.js';
import { GatewayController } from './controllers/gateway.controller.js';
import { KeysController } from './controllers/keys.controller.js';
import { MembersController } from './controllers/members.controller.js';
import { OperatorController } from './controllers/operator.controller.js';
import { TokensController } from './controllers/tokens.controller.js';
import { IDENTITY_DATABASE } from './identity.database.js';
import { IdentityStore } from './repositories/identity.store.js';
import { Administrators } from './services/administrators.service.js';
import { AuditTrail } from './services/audit-trail.service.js';
import { Clock, SystemClock } from './services/clock.js';
import { CredentialEvents } from './services/credential-events.service.js';
import { CsrfTokens } from './services/csrf-tokens.service.js';
import { CustomerUsage } from './services/customer-usage.service.js';
import { IdentityMail } from './services/identity-mail.service.js';
import { LoginLimits } from './services/login-limits.service.js';
import { RefreshTokens } from './services/refresh-tokens.service.js';
import { RestoredData } from './services/restored-data.service.js';
import { SessionAccess } from './services/session-access.service.js';
import { SigningKeys } from './services/signing-keys.service.js';
import { TokenUsageRecorder } from './services/token-usage.recorder.js';
import { AddMemberUseCase } from './use-cases/add-member/add-member.usecase.js';
import { ChangeMemberRoleUseCase } from './use-cases/change-member-role/change-member-role.usecase.js';
import { CheckMagicLinkUseCase } from './use-cases/check-magic-link/check-magic-link.usecase.js';
import { ConfirmMagicLinkUseCase } from './use-cases/confirm-magic-link/confirm-magic-link.usecase.js';
import { CreateCustomerUseCase } from './use-cases/create-customer/create-customer.usecase.js';
import { CreateTokenUseCase } from './use-cases/create-token/create-token.usecase.js';
import { TokenCreators } from './use-cases/create-token/token-creator.js';
import { CredentialStatusUseCase } from './use-cases/credential-status/credential-status.usecase.js';
import { DescribeIdentityUseCase } from './use-cases/describe-identity/describe-identity.usecase.js';
import { EndSessionUseCase } from './use-cases/end-session/end-session.usecase.js';
import { GetCustomerUseCase } from './use-cases/get-customer/get-customer.usecase.js';
import { InviteMemberUseCase } from './use-cases/invite-member/invite-member.usecase.js';
import { IssueTokenUseCase } from './use-cases/issue-token/issue-token.usecase.js';
import { ListCustomersUseCase } from './use-cases/list-customers/list-customers.usecase.js';
import { ListTokensUseCase } from './use-cases/list-tokens/list-tokens.usecase.js';
import { LogoutUseCase } from './use-cases/logout/logout.usecase.js';
import { ListCorsOriginsUseCase } from './use-cases/list-cors-origins/list-cors-origins.usecase.js';
import { ListMembersUseCase } from './use-cases/list-members/list-members.usecase.js';
import { ListSandboxTokensUseCase } from './use-cases/list-sandbox-tokens/list-sandbox-tokens.usecase.js';
import { ListUsersUseCase } from './use-cases/list-users/list-users.usecase.js';
import { NamePeopleUseCase } from './use-cases/name-people/name-people.usecase.js';
import { ProvisionOperatorUseCase } from './use-cases/provision-operator/provision-operator.usecase.js';
import { FindOperatorEmailsUseCase } from './use-cases/find-operator-emails/find-operator-emails.usecase.js';
import { FindOwnerEmailsUseCase } from './use-cases/find-owner-emails/find-owner-emails.usecase.js';
import { FindUserEmailsUseCase } from './use-cases/find-user-emails/find-user-emails.usecase.js';
import { RefreshSessionUseCase } from './use-cases/refresh-session/refresh-session.usecase.js';
import { RequestLoginUseCase } from './use-cases/request-login/request-login.usecase.js';
import { ResolveCustomerUseCase } from './use-cases/resolve-customer/resolve-customer.usecase.js';
import { RevokeTokenUseCase } from './use-cases/revoke-token/revoke-token.usecase.js';
import { EnsureSandboxTokensUseCase } from './use-cases/ensure-sandbox-tokens/ensure-sandbox-tokens.usecase.js';
import { RemoveMemberUseCase } from './use-cases/remove-member/remove-member.usecase.js';
import { StartSessionUseCase } from './use-cases/start-session/start-session.usecase.js';
import { SwitchCustomerUseCase } from './use-cases/switch-customer/switch-customer.usecase.js';
import { UpdateCustomerUseCase } from './use-cases/update-customer/update-customer.usecase.js';
import { DeleteCustomerUseCase } from './use-cases/delete-customer/delete-customer.usecase.js';
import { UpdateUserUseCase } from './use-cases/update-user/update-user.usecase.js';
import { VerifyLoginUseCase } from './use-cases/verify-login/verify-login.usecase.js';
import { SettingsController } from './controllers/settings.controller.js';
import { FinishCustomerDeletionUseCase } from './use-cases/finish-customer-deletion/finish-customer-deletion.usecase.js';
import { ForgetLoginRecordsUseCase } from './use-cases/forget-login-records/forget-login-records.usecase.js';
import { CustomerDeletionsSchedule } from './schedules/customer-deletions.schedule.js';
import { LoginRecordsSchedule } from './schedules/login-records.schedule.js';
import { StartUpSchedule } from './schedules/start-up.schedule.js';
import { ReadCustomerSettingsUseCase } from './use-cases/customer-settings/read-customer-settings.usecase.js';
import { UpdateCustomerSettingsUseCase } from './use-cases/customer-settings/update-customer-settings.usecase.js';

export { IDENTITY_DATABASE };

/** Everything but the infrastructure: what IdentityModule adds on top of InfraModule. */
export const IDENTITY_PROVIDERS: Provider[] = [
  { provide: Clock, useClass: SystemClock },
  ReadCustomerSettingsUseCase,
  UpdateCustomerSettingsUseCase,
  IdentityStore,
  outboxRelayProvider('identity'),
  Administrators,
  AuditTrail,
  CredentialEvents,
  CsrfTokens,
  CustomerUsage,
  IdentityMail,
  LoginLimits,
  RefreshTokens,
  SessionAccess,
  SigningKeys,
  TokenUsageRecorder,
  RestoredData,
  TokenCreators,
  InviteMemberUseCase,
  EnsureSandboxTokensUseCase,
  ListSandboxTokensUseCase,
  ProvisionOperatorUseCase,
  FindUserEmailsUseCase,
  FindOperatorEmailsUseCase,
  FindOwnerEmailsUseCase,
  NamePeopleUseCase,
  RequestLoginUseCase,
  StartSessionUseCase,
  EndSessionUseCase,
  VerifyLoginUseCase,
  RefreshSessionUseCase,
  SwitchCustomerUseCase,
  LogoutUseCase,
  CheckMagicLinkUseCase,
  ConfirmMagicLinkUseCase,
  DescribeIdentityUseCase,
  CreateTokenUseCase,
  ListTokensUseCase,
  RevokeTokenUseCase,
  IssueTokenUseCase,
  ListMembersUseCase,
  AddMemberUseCase,
  ChangeMemberRoleUseCase,
  RemoveMemberUseCase,
  CreateCustomerUseCase,
  ListCustomersUseCase,
  GetCustomerUseCase,
  UpdateCustomerUseCase,
  DeleteCustomerUseCase,
  ListUsersUseCase,
  UpdateUserUseCase,
  ResolveCustomerUseCase,
  ListCorsOriginsUseCase,
  CredentialStatusUseCase,
  FinishCustomerDeletionUseCase,
  ForgetLoginRecordsUseCase,
  LoginRecordsSchedule,
  CustomerDeletionsSchedule,
  StartUpSchedule,
];

export const IDENTITY_CONTROLLERS: Type<unknown>[] = [
  KeysController,
  SettingsController,
  AuthController,
  TokensController,
  MembersController,
  AdminCustomersController,
  GatewayController,
  OperatorController,
];

@Module({})
export class IdentityModule {
  static register(config: ServiceConfig): DynamicModule {
    return {
      module: IdentityModule,
      imports: [InfraModule.forApp({ app: 'identity', config, database: IDENTITY_DATABASE })],
      controllers: [healthController('identity'), appDataController(IDENTITY_APP_DATA), ...IDENTITY_CONTROLLERS],
      providers: IDENTITY_PROVIDERS,
    };
  }
}
