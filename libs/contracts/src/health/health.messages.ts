import type { BackendApp } from '../apps.js';
import { defineMessage, type MessageDef } from '../messages/message.js';

export interface AppHealth {
  readonly app: BackendApp;
  /** The app's database answered `SELECT 1`. */
  readonly database: boolean;
  readonly uptimeSeconds: number;
}

/** Every backend app answers `<app>.health`; the gateway asks all of them for /readyz and /status. */
export function healthMessage(app: BackendApp): MessageDef<Record<string, never>, AppHealth> {
  return defineMessage<Record<string, never>, AppHealth>(`${app}.health`, { timeoutMs: 2_000 });
}
