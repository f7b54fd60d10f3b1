import { type ConnectionOptions, NatsConnectionImpl, type NatsConnection, setTransportFactory } from '@nats-io/transport-node';
import { NodeTransport, nodeResolveHost } from '@nats-io/transport-node/lib/node_transport.js';

/**
 * nats.js's socket transport, its writes held until the end of the current event-loop turn
 * and then sent together (one writev) instead of one socket write per publish.
 *
 * Why: nats.js flushes its buffer in a microtask after each command, so every request the
 * gateway forwards, and every reply an app publishes, was its own write syscall and woke
 * nats-server once each. Under load one turn handles many requests; held and sent in the
 * check phase (setImmediate), their publishes leave as one write (bench:update-check,
 * distributed: about 8,000-9,300 -> 11,700 checks/s, gateway CPU per check about 75 -> 53 µs,
 * firmware 34 -> 21 µs). A lone publish waits for nothing: the check phase follows the phase
 * that published (a publish from a setImmediate callback leaves in the next turn, which
 * does not block while an immediate is pending).
 */
class TurnBatchedTransport extends NodeTransport {
  private holding = false;

  override send(frame: Uint8Array): void {
    const socket = this.socket;
    if (socket && !this.holding && !this.isClosed) {
      this.holding = true;
      socket.cork();
      setImmediate(() => {
        this.holding = false;
        socket.uncork();
      });
    }
    super.send(frame);
  }
}

/**
 * `connect()` of @nats-io/transport-node with the turn-batched transport. Every NATS
 * connection of the service opens through here (the bus and Nest's ServerNats), since the
 * library keeps one transport factory per process and reads it again at each reconnect.
 */
export function connectNats(options: ConnectionOptions): Promise<NatsConnection> {
  setTransportFactory({ factory: () => new TurnBatchedTransport(), dnsResolveFn: nodeResolveHost });
  return NatsConnectionImpl.connect(options);
}

/** Whether a connection writes through the turn-batched transport (for tests). */
export function writesPerTurn(connection: NatsConnection): boolean {
  return (connection as unknown as { protocol?: { transport?: unknown } }).protocol?.transport instanceof TurnBatchedTransport;
}

/** NATS_URL may list several servers, comma-separated. */
export function natsServers(natsUrl: string): string[] {
  return natsUrl
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
