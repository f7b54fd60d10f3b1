/** What other parts of the service (the standalone runner, the operator CLI) use of the identity app. */
export { IdentityModule, IDENTITY_CONTROLLERS, IDENTITY_PROVIDERS } from './identity.module.js';
export { IDENTITY_DATABASE } from './identity.database.js';
export { issueTokenForMember } from './cli/issue-token-for-member.js';
