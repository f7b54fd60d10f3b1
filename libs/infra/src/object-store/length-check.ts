import { Transform, type TransformCallback } from 'node:stream';

/** Raised when a body is shorter or longer than the size the caller announced. */
export class ObjectSizeMismatchError extends Error {
  constructor(
    readonly expectedBytes: number,
    readonly actualBytes: number,
  ) {
    super(`object body has ${actualBytes}${actualBytes > expectedBytes ? '+' : ''} bytes, expected ${expectedBytes}`);
    this.name = 'ObjectSizeMismatchError';
  }
}

/**
 * A pass-through that counts bytes and fails when the stream ends with a different count
 * than announced (or goes past it), so a truncated upload never becomes an object.
 */
export class LengthCheck extends Transform {
  bytes = 0;

  constructor(private readonly expectedBytes?: number) {
    super();
  }

  override _transform(chunk: Buffer | string, encoding: BufferEncoding, callback: TransformCallback): void {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk;
    this.bytes += buffer.length;
    if (this.expectedBytes !== undefined && this.bytes > this.expectedBytes) {
      callback(new ObjectSizeMismatchError(this.expectedBytes, this.bytes));
      return;
    }
    callback(null, buffer);
  }

  override _flush(callback: TransformCallback): void {
    if (this.expectedBytes !== undefined && this.bytes !== this.expectedBytes) {
      callback(new ObjectSizeMismatchError(this.expectedBytes, this.bytes));
      return;
    }
    callback();
  }
}
