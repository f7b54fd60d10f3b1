export * from './outbox.repository.js';
export * from './outbox-relay.js';
