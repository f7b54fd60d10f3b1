import { firmwareEndpoints, logdataEndpoints } from '@app/contracts';

/** The route pattern (as the request log stores it) of an endpoint named by its operationId. */
function routeOf(endpoints: ReadonlyArray<{ operationId: string; path: string }>, operationId: string): string {
  const found = endpoints.find((e) => e.operationId === operationId);
  if (!found) throw new Error(`no endpoint ${operationId}`);
  return found.path;
}

/** The update check that names a device: `/firmware/{domain}/.../{fw_version}/{hwid}`. */
export const DEVICE_UPDATE_CHECK_ROUTE = routeOf(firmwareEndpoints, 'checkForDeviceUpdates');
/** Segments of its path (split on `/`, 1-based as PostgreSQL's split_part counts, the empty one before the first `/` included). */
export const UPDATE_CHECK_DOMAIN_PART = 3;
export const UPDATE_CHECK_HWID_PART = 8;

/** Reads of one log file: GET and HEAD `/logdata/{name}`, GET `/logdata/{name}/meta`. */
export const LOG_FILE_READ_ROUTES: readonly string[] = [
  routeOf(logdataEndpoints, 'downloadLogFile'),
  routeOf(logdataEndpoints, 'headLogFile'),
  routeOf(logdataEndpoints, 'getLogFileMeta'),
];
export const LOG_FILE_NAME_PART = 3;
