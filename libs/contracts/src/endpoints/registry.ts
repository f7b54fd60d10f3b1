import { healthEndpoints, downloadEndpoints } from '../health/health.endpoints.js';
import { adminAccountEndpoints, adminEndpoints, customerAuditEndpoints } from '../admin/admin.endpoints.js';
import { protectionEndpoints } from '../admin/protection.endpoints.js';
import { jobEndpoints } from '../admin/jobs.endpoints.js';
import { statsEndpoints } from '../admin/stats.endpoints.js';
import { backupEndpoints } from '../admin/backups.endpoints.js';
import { consoleEndpoints } from '../identity/console.endpoints.js';
import { pageEndpoints } from '../pages/pages.endpoints.js';
import { identityEndpoints, memberEndpoints } from '../identity/identity.endpoints.js';
import { settingsEndpoints } from '../identity/settings.endpoints.js';
import { logdataEndpoints } from '../logdata/logdata.endpoints.js';
import { firmwareEndpoints } from '../firmware/firmware.endpoints.js';
import { rolloutEndpoints } from '../firmware/rollout.endpoints.js';
import { updateSigningEndpoints } from '../firmware/update-signing.endpoints.js';
import { tagEndpoints } from '../tags/tags.endpoints.js';
import { deviceEndpoints } from '../registry/registry.endpoints.js';
import { deviceReportEndpoints } from '../registry/device-reports.endpoints.js';
import type { AnyEndpointDef, EndpointDef } from './endpoint.js';

const ALL_ENDPOINTS: readonly AnyEndpointDef[] = [
  ...healthEndpoints,
  ...downloadEndpoints,
  ...identityEndpoints,
  ...adminAccountEndpoints,
  ...memberEndpoints,
  ...settingsEndpoints,
  ...customerAuditEndpoints,
  ...adminEndpoints,
  ...protectionEndpoints,
  ...jobEndpoints,
  ...statsEndpoints,
  ...backupEndpoints,
  ...consoleEndpoints,
  ...pageEndpoints,
  ...logdataEndpoints,
  ...firmwareEndpoints,
  ...tagEndpoints,
  ...deviceEndpoints,
  ...deviceReportEndpoints,
  ...rolloutEndpoints,
  ...updateSigningEndpoints,
];

/** Every HTTP endpoint of the service. The gateway routes, validates and documents from this list only. */
export const ENDPOINTS = ALL_ENDPOINTS as readonly EndpointDef[];
