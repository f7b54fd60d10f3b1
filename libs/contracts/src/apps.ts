/** The apps of the service. Each owns its tables (schema of the same name) and message subjects. */
export const APP_NAMES = ['gateway', 'firmware', 'logdata', 'registry', 'identity', 'admin', 'worker'] as const;
export type AppName = (typeof APP_NAMES)[number];

/** Apps that answer messages (everything but the gateway). */
export const BACKEND_APPS = ['firmware', 'logdata', 'registry', 'identity', 'admin', 'worker'] as const satisfies readonly AppName[];
export type BackendApp = (typeof BACKEND_APPS)[number];
