import type { ComponentType } from 'preact';
import { ActivityPage } from './pages/activity';
import { AdminAuditPage } from './pages/admin-audit';
import { AdminBackupRunPage } from './pages/admin-backups/run';
import { AdminBackupsPage } from './pages/admin-backups';
import { AdminCustomerPage } from './pages/admin-customers/customer';
import { AdminCustomersPage } from './pages/admin-customers';
import { AdminIpBlocksPage } from './pages/admin-ip-blocks';
import { AdminJobsPage } from './pages/admin-jobs';
import { AdminMaintenancePage } from './pages/admin-maintenance';
import { AdminSecurityPage } from './pages/admin-security';
import { AdminStatsPage } from './pages/admin-stats';
import { AdminUsersPage } from './pages/admin-users';
import { DevicePage } from './pages/device';
import { DevicesPage } from './pages/devices';
import { FirmwareBuildPage } from './pages/firmware-build';
import { FirmwarePage } from './pages/firmware';
import { FirmwareUploadPage } from './pages/firmware-upload';
import { FleetPage } from './pages/fleet';
import { HomePage } from './pages/home';
import { LogsPage } from './pages/logs';
import { MembersPage } from './pages/members';
import { RolloutPage } from './pages/rollout';
import { RolloutStartPage } from './pages/rollout-start';
import { SettingsPage } from './pages/settings';
import { TagsPage } from './pages/tags';
import { TokensPage } from './pages/tokens';
import { UsagePage } from './pages/usage';

export interface PageProps {
  /** The path's parameters (`:id` in the route's path), decoded. */
  readonly params: Readonly<Record<string, string>>;
}

export interface RouteDef {
  /** `/console/...`; `:name` segments are parameters. */
  readonly path: string;
  readonly title: string;
  readonly page: ComponentType<PageProps>;
  /** The scope the page needs (from the identity's scopes); without it the page is hidden. */
  readonly scope?: string;
  /** Administrator pages: the standing they need ('read': any administrator). */
  readonly admin?: 'read' | 'full';
  /** The navigation's label; omitted for item pages reached from a list. */
  readonly nav?: string;
}

/**
 * Every console page, in navigation order: one line per page, whose code lives in its own
 * folder under pages/. The gateway answers every /console path with the app, so any path
 * here is a deep link that survives a reload.
 */
export const ROUTES: readonly RouteDef[] = [
  { path: '/console', title: 'Overview', nav: 'Overview', page: HomePage },
  { path: '/console/firmware', title: 'Firmware', nav: 'Firmware', scope: 'fw:read', page: FirmwarePage },
  { path: '/console/firmware/upload', title: 'Upload a build', scope: 'fw:write', page: FirmwareUploadPage },
  { path: '/console/firmware/:id', title: 'Build', scope: 'fw:read', page: FirmwareBuildPage },
  { path: '/console/firmware/:id/rollout', title: 'Rollout', scope: 'fw:read', page: RolloutPage },
  { path: '/console/firmware/:id/rollout/new', title: 'Start a rollout', scope: 'fw:write', page: RolloutStartPage },
  { path: '/console/devices', title: 'Devices', nav: 'Devices', scope: 'devices:read', page: DevicesPage },
  { path: '/console/devices/:hwid', title: 'Device', scope: 'devices:read', page: DevicePage },
  { path: '/console/fleet', title: 'Fleet', nav: 'Fleet', scope: 'devices:read', page: FleetPage },
  { path: '/console/settings', title: 'Settings', nav: 'Settings', scope: 'devices:read', page: SettingsPage },
  { path: '/console/logs', title: 'Log files', nav: 'Log files', scope: 'logdata:read', page: LogsPage },
  { path: '/console/tags', title: 'Tags', nav: 'Tags', scope: 'tags:read', page: TagsPage },
  { path: '/console/tokens', title: 'API tokens', nav: 'API tokens', page: TokensPage },
  { path: '/console/members', title: 'Members', nav: 'Members', scope: 'members:manage', page: MembersPage },
  { path: '/console/activity', title: 'Activity', nav: 'Activity', scope: 'members:manage', page: ActivityPage },
  { path: '/console/usage', title: 'Usage', nav: 'Usage', scope: 'stats:read', page: UsagePage },
  { path: '/console/admin/customers', title: 'Customers', nav: 'Customers', admin: 'read', page: AdminCustomersPage },
  { path: '/console/admin/customers/:domain', title: 'Customer', admin: 'read', page: AdminCustomerPage },
  { path: '/console/admin/users', title: 'Users', nav: 'Users', admin: 'read', page: AdminUsersPage },
  { path: '/console/admin/audit', title: 'Audit log', nav: 'Audit log', admin: 'read', page: AdminAuditPage },
  { path: '/console/admin/security', title: 'Security events', nav: 'Security events', admin: 'read', page: AdminSecurityPage },
  { path: '/console/admin/ip-blocks', title: 'IP blocks', nav: 'IP blocks', admin: 'read', page: AdminIpBlocksPage },
  { path: '/console/admin/maintenance', title: 'Maintenance mode', nav: 'Maintenance', admin: 'read', page: AdminMaintenancePage },
  { path: '/console/admin/jobs', title: 'Background jobs', nav: 'Background jobs', admin: 'read', page: AdminJobsPage },
  { path: '/console/admin/backups', title: 'Backups', nav: 'Backups', admin: 'read', page: AdminBackupsPage },
  { path: '/console/admin/backups/:id', title: 'Backup run', admin: 'read', page: AdminBackupRunPage },
  { path: '/console/admin/stats', title: 'Service statistics', nav: 'Service statistics', admin: 'read', page: AdminStatsPage },
];
