/**
 * The operator settings both runtimes of the e2e suite are started with (DECISIONS "Operator
 * interface"). Test data is never taken from here: factories.ts draws random names.
 */
export const OPERATOR_DOMAIN = 'operator.test';
export const OPERATOR_ADMIN_EMAIL = 'admin@operator.test';
export const SANDBOX_DOMAIN = 'sandbox.test';

/**
 * Per-address /dl downloads per minute. The 429 test downloads from a loopback address of
 * its own (127.0.0.x), so this limit never starves the other files that download from
 * 127.0.0.1 against the shared distributed stack; it only has to exceed what one file does
 * within a minute.
 */
export const DOWNLOAD_RATE_PER_MINUTE = 60;

/** SPEC "Limits". */
export const LOGDATA_MAX_BYTES = 16 * 1024 * 1024;
export const LOGDATA_SANDBOX_MAX_BYTES = 256 * 1024;

/** The backend apps (every one but the gateway), as /status lists them. */
export const BACKEND_APPS = ['firmware', 'logdata', 'registry', 'identity', 'admin', 'worker'] as const;
/** Every process of the distributed runtime. */
export const DISTRIBUTED_APPS = ['gateway', 'identity', 'logdata', 'admin', 'registry', 'firmware', 'worker'] as const;
export type DistributedApp = (typeof DISTRIBUTED_APPS)[number];
