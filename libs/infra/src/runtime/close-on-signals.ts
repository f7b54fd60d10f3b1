import type { JsonLogger } from '../logging/logger.js';

const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** What a process hands over once it has started: how to close it. */
export interface SignalCloser {
  started(close: () => Promise<void>): void;
}

/**
 * Listens for SIGTERM and SIGINT from the first line of a process's start, not after it. A signal
 * that met no listener would end the process by the default action at once (its lock file left,
 * connections cut mid-write), and a supervisor may well send one the instant the process says it
 * is ready. A signal received while starting closes the process as soon as it has started; a
 * second signal while closing ends it at once, with exit code 1.
 */
export function closeOnSignals(logger: JsonLogger): SignalCloser {
  let close: (() => Promise<void>) | undefined;
  let received: string | undefined;
  const stop = async (): Promise<void> => {
    if (!close) return;
    try {
      await close();
      process.exit(0);
    } catch (err) {
      logger.error(err instanceof Error ? err : new Error(String(err)), 'failed to stop cleanly');
      process.exit(1);
    }
  };
  for (const signal of STOP_SIGNALS) {
    process.on(signal, () => {
      if (received) {
        logger.info('stopping at once', { signal });
        process.exit(1);
      }
      received = signal;
      logger.info('stopping', { signal });
      void stop();
    });
  }
  return {
    started(closeService) {
      close = closeService;
      if (received) void stop();
    },
  };
}
