// s3rver ships no types; the little the test support uses.
declare module 's3rver' {
  import type { Server } from 'node:http';
  import type { AddressInfo } from 'node:net';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    vhostBuckets?: boolean;
    configureBuckets?: Array<{ name: string; configs?: Array<string | Buffer> }>;
  }

  /** s3rver's FilesystemStore (internal; startS3Server patches two methods). */
  interface S3rverStoredObject {
    bucket: string;
    key: string;
    content: NodeJS.ReadableStream | Buffer | null;
    metadata: Record<string, string>;
    range?: { start: number; end: number };
    readonly size: number;
  }
  interface S3rverStore {
    getResourcePath(bucket: string, key: string | undefined, resource: string): string;
    putObject(object: S3rverStoredObject): Promise<{ md5: string; size: number }>;
    getObject(bucket: string, key: string, options?: { start?: number; end?: number }): Promise<S3rverStoredObject | null>;
  }

  class S3rver {
    constructor(options?: S3rverOptions);
    httpServer?: Server;
    store: S3rverStore;
    /** Its winston logger (silent: the option only silences the console transport). */
    logger: { silent: boolean };
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
  export default S3rver;
}
