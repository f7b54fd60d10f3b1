import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Bytes forwarded from clients to the target so far. */
  readonly bytesUpstream: number;
  /** Bytes forwarded from the target to clients so far. */
  readonly bytesDownstream: number;
  /** Cuts every open connection (simulates a network failure); new connections still work. */
  destroyConnections(): void;
  close(): Promise<void>;
}

/**
 * A counting TCP proxy on 127.0.0.1 and a random port in front of `target`: lets a test
 * observe how many bytes really left the process (streaming versus buffering) or cut links.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let up = 0;
  let down = 0;
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client);
    sockets.add(upstream);
    client.on('data', (chunk: Buffer) => (up += chunk.length));
    upstream.on('data', (chunk: Buffer) => (down += chunk.length));
    client.pipe(upstream);
    upstream.pipe(client);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    get bytesUpstream() {
      return up;
    },
    get bytesDownstream() {
      return down;
    },
    destroyConnections() {
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    close() {
      for (const s of sockets) s.destroy();
      sockets.clear();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
