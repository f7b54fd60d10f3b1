export * from './s3-server.js';
export * from './smtp-sink.js';
export * from './mail-parser.js';
export * from './outbox.js';
export * from './tcp-proxy.js';
export * from './streams.js';
export * from './request-factories.js';
export * from './event-outbox.js';
