/** Nest injection tokens for values that are not classes. */
export const SERVICE_CONFIG = Symbol('ServiceConfig');
export const APP_NAME = Symbol('AppName');
