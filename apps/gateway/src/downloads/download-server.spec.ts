import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, get as httpGet, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { FileRef } from '@app/contracts';
import { closeMessageBuses, createMessageBus, DownloadLinkSigner, FilesystemObjectStore, loadConfig, type ObjectRange } from '@app/infra';
import { DownloadServer, parseRange } from './download-server.js';

describe('parseRange', () => {
  it('reads single ranges, suffixes and open ends', () => {
    expect(parseRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=95-200', 100)).toEqual({ start: 95, end: 99 });
  });

  it('answers the whole file for no or unsupported ranges and flags unsatisfiable ones', () => {
    expect(parseRange(undefined, 100)).toBeNull();
    expect(parseRange('bytes=0-1,5-6', 100)).toBeNull();
    expect(parseRange('bytes=100-', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=5-2', 100)).toBe('unsatisfiable');
  });
});

describe('DownloadServer streaming a file', () => {
  const FILE_BYTES = 16 * 1024 * 1024;
  let dir: string;
  let server: Server;
  let outcomes: Array<'served' | Error>;
  let store: FilesystemObjectStore;
  let downloads: DownloadServer;
  let failMidway = false;
  const signer = new DownloadLinkSigner('s'.repeat(32));
  const file: FileRef = {
    key: 'files/big',
    sizeBytes: FILE_BYTES,
    sha256: '0'.repeat(64),
    contentType: 'application/octet-stream',
    lastModified: '2026-11-25T00:00:00.000Z',
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'download-server-'));
    store = new (class extends FilesystemObjectStore {
      override async get(key: string, range?: ObjectRange): Promise<Readable | null> {
        const body = await super.get(key, range);
        if (!failMidway || !body) return body;
        let sent = 0;
        return body.pipe(
          new Transform({
            transform(chunk: Buffer, _encoding, callback) {
              sent += chunk.length;
              callback(sent > FILE_BYTES / 2 ? new Error('disk read failed') : null, chunk);
            },
          }),
        );
      }
    })(join(dir, 'objects'));
    await store.put(file.key, Readable.from([randomBytes(FILE_BYTES)]), { sizeBytes: FILE_BYTES });
    const config = loadConfig({ DATA_DIR: dir, PUBLIC_URL: 'http://127.0.0.1' });
    downloads = new DownloadServer(config, signer, store, createMessageBus(config, 'gateway'));
    server = createServer((req, res) => {
      downloads.serve(req, res, signer.sign(file), '127.0.0.1').then(
        () => outcomes.push('served'),
        (err: Error) => {
          outcomes.push(err);
          res.destroy();
        },
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await closeMessageBuses();
    await rm(dir, { recursive: true, force: true });
  });

  /** GETs the file, and closes the connection after `stopAfter` bytes (Infinity: reads it all); resolves with the bytes read. */
  function download(stopAfter: number): Promise<number> {
    const { port } = server.address() as AddressInfo;
    return new Promise((resolve) => {
      let read = 0;
      const req = httpGet({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read >= stopAfter) req.destroy();
        });
        res.on('end', () => resolve(read));
      });
      req.on('close', () => resolve(read));
      req.on('error', () => undefined);
    });
  }

  async function outcome(): Promise<'served' | Error> {
    for (let i = 0; i < 200 && outcomes.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(outcomes).toHaveLength(1);
    return outcomes[0];
  }

  it('serves the whole file', async () => {
    outcomes = [];
    expect(await download(Infinity)).toBe(FILE_BYTES);
    expect(await outcome()).toBe('served');
  });

  it('is not a failure when the client closes the connection after part of the file', async () => {
    outcomes = [];
    expect(await download(64 * 1024)).toBeLessThan(FILE_BYTES);
    expect(await outcome()).toBe('served');
  });

  it('still fails when the store fails in the middle of the file', async () => {
    outcomes = [];
    failMidway = true;
    try {
      expect(await download(Infinity)).toBeLessThan(FILE_BYTES);
      expect(await outcome()).toMatchObject({ message: 'disk read failed' });
    } finally {
      failMidway = false;
    }
  });
});
