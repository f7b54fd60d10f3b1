import { healthEndpoints, downloadEndpoints } from '../health/health.endpoints.js';
import { identityEndpoints } from '../identity/identity.endpoints.js';
import { logdataEndpoints } from '../logdata/logdata.endpoints.js';
import type { EndpointDef } from './endpoint.js';

/** Every HTTP endpoint of the service. The gateway routes, validates and documents from this list only. */
export const ENDPOINTS: readonly EndpointDef<any, any, any>[] = [
  ...healthEndpoints,
  ...downloadEndpoints,
  ...identityEndpoints,
  ...logdataEndpoints,
];
