import type { operations } from '../api/openapi.gen';
import { ApiError, describe, errorOf } from '../api/problem';
import { partIsUp } from '../../../libs/contracts/src/health/part-state';

/**
 * The script of /health (the gateway renders the whole page on the server and serves this from
 * /static/; without JavaScript the page is complete as served). It keeps the current state
 * fresh: every REFRESH_MS it reads /status and updates the overall line, each part's state and
 * the time. A failed read says so with the console's problem handling (a 429's Retry-After
 * said as the console says it, and waited for) and keeps the last state shown. Built by the
 * console's build as a classic script (docs/console.md).
 */

type StatusDocument = operations['status']['responses'][200]['content']['application/json'];

const REFRESH_MS = 30_000;

const overall = document.getElementById('overall');
const asOf = document.getElementById('as-of');
const version = document.getElementById('version');
const note = document.getElementById('refresh-note');

function say(text: string): void {
  if (!note) return;
  note.textContent = text;
  note.hidden = text === '';
}

function isStatusDocument(body: unknown): body is StatusDocument {
  return typeof body === 'object' && body !== null && typeof (body as { status?: unknown }).status === 'string';
}

/** /status answers 503 with the same document when the database is down: that is a state to show, not a failure. */
async function readStatus(): Promise<StatusDocument> {
  const response = await fetch('/status', { credentials: 'omit', headers: { Accept: 'application/json' } });
  if (response.ok || response.status === 503) {
    const body: unknown = await response
      .clone()
      .json()
      .catch(() => null);
    if (isStatusDocument(body)) return body;
  }
  throw await errorOf(response);
}

function show(status: StatusDocument): void {
  if (overall) {
    overall.className = `overall ${status.status}`;
    overall.textContent = overall.dataset[`text${status.status[0].toUpperCase()}${status.status.slice(1)}`] ?? overall.textContent;
  }
  if (asOf) asOf.textContent = status.time;
  if (version) version.textContent = status.version;
  for (const mark of document.querySelectorAll<HTMLElement>('[data-part-state]')) {
    const up = partIsUp(mark.dataset.partState ?? '', status);
    mark.className = `state ${up ? 'up' : 'down'}`;
    mark.textContent = (up ? mark.dataset.upText : mark.dataset.downText) ?? mark.textContent;
  }
}

async function refresh(): Promise<void> {
  let wait = REFRESH_MS;
  try {
    show(await readStatus());
    say('');
  } catch (error) {
    say(`The state could not be refreshed: ${describe(error)}. It is shown as of the time above.`);
    wait = Math.max(REFRESH_MS, error instanceof ApiError ? (error.retryAfterSeconds ?? 0) * 1000 : 0);
  }
  setTimeout(() => void refresh(), wait);
}

setTimeout(() => void refresh(), REFRESH_MS);
