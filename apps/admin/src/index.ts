/** What other parts of the service (the standalone runner, the operator CLI) use of the admin app. */
export { AdminModule, ADMIN_DATABASE } from './admin.module.js';
export { type OperatorProtection, withOperatorProtection } from './cli/operator-protection.js';
