export * from './tokens.js';
export * from './infra.module.js';
export * from './rpc-exception.filter.js';
export * from './health.controller.js';
export * from './run-app.js';
export * from './clients/index.js';
export * from './validation/contract-check.js';
export * from './uploads/write-once-upload.js';
