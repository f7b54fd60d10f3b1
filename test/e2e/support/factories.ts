import { randomBytes, randomInt } from 'node:crypto';

/** Random test data: every file draws its own, nothing is shared between files. */

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Lower-case letters only (no digits: a 6-digit run in a mail must be a login code). */
export function letters(n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += LETTERS[randomInt(LETTERS.length)];
  return out;
}

export function randomDomain(): string {
  return `e2e-${letters(12)}.test`;
}

export function randomEmail(domain = `${letters(8)}.example`): string {
  return `${letters(10)}@${domain}`;
}

/** A valid log file name: 128 lower-case hex characters, optionally starting with `prefix`. */
export function randomLogName(prefix = ''): string {
  return (prefix + randomBytes(64).toString('hex')).slice(0, 128);
}

export function randomContent(size: number): Buffer {
  return randomBytes(size);
}

export function hexPrefix(length: number): string {
  return randomBytes(Math.ceil(length / 2))
    .toString('hex')
    .slice(0, length);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Calls `probe` until `accept` says yes (for effects that are asynchronous by design). */
export async function eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, { timeoutMs = 10_000, intervalMs = 100 } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T;
  for (;;) {
    last = await probe();
    if (accept(last)) return last;
    if (Date.now() > deadline) return last;
    await sleep(intervalMs);
  }
}
