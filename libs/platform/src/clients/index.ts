export * from './ttl-cache.js';
export * from './device-directory.js';
export * from './device-sightings.js';
export * from './customer-directory.js';
