import { errorOf } from './problem';

/** Renew this long before the access cookie's end, so ordinary requests never need the gateway to renew it. */
const RENEW_MARGIN_MS = 60_000;
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The Web Lock every tab of the browser takes to renew the session, one tab at a time. */
const RENEW_LOCK = 'fds-session-renew';
/** localStorage: when a tab last renewed and until when (Date.now() terms) its access cookie is fresh. */
const LAST_RENEWAL = 'fds-session-renewed';

interface LastRenewal {
  readonly at: number;
  readonly freshUntil: number;
}

/** The session ended (logged out elsewhere, expired, revoked): the person logs in again. */
export class SessionEnded extends Error {}

/**
 * The browser session every API request of the console goes through (docs/console.md
 * "Session and CSRF"). The one place that
 * - adds the CSRF token (`X-CSRF-Token`, from the identity's `csrf_token`) to every write;
 * - renews the session with POST /auth/refresh, one renewal at a time: the refresh token
 *   rotates on every use and presenting a rotated one ends the session, so while a renewal is
 *   under way every other request waits for it, and a renewal is started before the access
 *   cookie ends (its end is in the refresh answer) rather than by concurrent requests;
 * - takes turns with the other tabs of the browser (they share the cookies): a renewal, and a
 *   tab's first request (which may renew), run under one Web Lock, and a tab that waited for
 *   another's renewal uses the cookies it left instead of presenting the old refresh token;
 * - retries a request once after a renewal when it was answered 401;
 * - adds `customer=<domain>` for an administrator acting on another customer.
 */
export class Session {
  private csrf = '';
  /** performance.now() until which the access cookie is known to work; 0: unknown. */
  private freshUntil = 0;
  private renewal: Promise<void> | null = null;
  /** Administrators: the customer acted on (null: their own). */
  private actingOn: string | null = null;
  onEnded: () => void = () => window.location.assign(loginUrl());

  get csrfToken(): string {
    return this.csrf;
  }

  actOn(customer: string | null): void {
    this.actingOn = customer;
  }

  get customer(): string | null {
    return this.actingOn;
  }

  /**
   * Starts this tab's session: `identify` (GET /auth/me, which renews when the access cookie has
   * ended) and the renewal that gives the access cookie's end, while no other tab renews.
   * null: `identify` found no session.
   */
  begin<T extends { csrf_token: string }>(identify: () => Promise<T | null>): Promise<T | null> {
    const asked = Date.now();
    return acrossTabs(async () => {
      const identity = await identify();
      if (!identity) return null;
      this.csrf = identity.csrf_token;
      await this.renewUnlessRenewedSince(asked);
      return identity;
    });
  }

  /** POST /auth/refresh, at most one at a time in the browser: callers meanwhile share the one under way. */
  renew(): Promise<void> {
    const asked = Date.now();
    this.renewal ??= acrossTabs(() => this.renewUnlessRenewedSince(asked)).finally(() => {
      this.renewal = null;
    });
    return this.renewal;
  }

  /** Wait for a renewal under way, and renew first when the access cookie is about to end. */
  async ready(): Promise<void> {
    if (this.renewal) await this.renewal;
    if (performance.now() >= this.freshUntil) await this.renew();
  }

  /** The `fetch` of the generated client (and of every other API call). */
  fetch = async (input: Request): Promise<Response> => {
    await this.ready();
    const method = input.method;
    const body = method === 'GET' || method === 'HEAD' ? undefined : await input.arrayBuffer();
    const send = () => {
      const headers = new Headers(input.headers);
      for (const [name, value] of Object.entries(this.headers(method))) if (name !== 'Accept' || !headers.has(name)) headers.set(name, value);
      return fetch(this.url(input.url), { method, headers, body, credentials: 'same-origin', signal: input.signal });
    };
    const response = await send();
    if (response.status !== 401) return response;
    await this.renew();
    return send();
  };

  /** The URL with `customer=` added where the administrator acts on another customer. */
  url(path: string): string {
    const url = new URL(path, window.location.origin);
    if (this.actingOn && !/^\/(auth|admin)\//.test(url.pathname) && !url.searchParams.has('customer')) url.searchParams.set('customer', this.actingOn);
    return url.pathname + url.search;
  }

  /** Headers every API request carries: JSON errors, and the CSRF token on writes. */
  headers(method: string): Record<string, string> {
    return { Accept: 'application/json', ...(WRITES.has(method.toUpperCase()) ? { 'X-CSRF-Token': this.csrf } : {}) };
  }

  /** Inside the lock: another tab renewed while this one waited? Then its cookies are the session's. */
  private async renewUnlessRenewedSince(asked: number): Promise<void> {
    const last = lastRenewal();
    if (last && last.at >= asked && last.freshUntil > Date.now()) {
      this.freshUntil = performance.now() + last.freshUntil - Date.now();
      return;
    }
    await this.refresh();
  }

  private async refresh(): Promise<void> {
    const response = await fetch('/auth/refresh', { method: 'POST', headers: this.headers('POST'), credentials: 'same-origin' });
    if (response.status === 401) {
      this.freshUntil = 0;
      this.onEnded();
      throw new SessionEnded('Your session has ended: log in again.');
    }
    if (!response.ok) throw await errorOf(response);
    const body = (await response.json()) as { csrf_token: string; access_expires_at: string };
    this.csrf = body.csrf_token;
    // The server's clock against the server's clock: the answer's Date header.
    const serverNow = Date.parse(response.headers.get('Date') ?? '') || Date.now();
    const freshFor = Date.parse(body.access_expires_at) - serverNow - RENEW_MARGIN_MS;
    this.freshUntil = performance.now() + freshFor;
    noteRenewal({ at: Date.now(), freshUntil: Date.now() + freshFor });
  }
}

/**
 * `work` while no other tab of this browser renews the session (Web Locks: released when the work
 * ends or its tab closes). Without Web Locks (not a secure context) the tab takes turns with itself only.
 */
function acrossTabs<T>(work: () => Promise<T>): Promise<T> {
  const locks = navigator.locks as LockManager | undefined;
  return locks ? (locks.request(RENEW_LOCK, work) as Promise<T>) : work();
}

function lastRenewal(): LastRenewal | null {
  try {
    const noted = JSON.parse(localStorage.getItem(LAST_RENEWAL) ?? 'null') as Partial<LastRenewal> | null;
    return typeof noted?.at === 'number' && typeof noted.freshUntil === 'number' ? { at: noted.at, freshUntil: noted.freshUntil } : null;
  } catch {
    return null; // storage refused or garbled: renew
  }
}

function noteRenewal(renewal: LastRenewal): void {
  try {
    localStorage.setItem(LAST_RENEWAL, JSON.stringify(renewal));
  } catch {
    // storage refused: the other tabs renew themselves, still one at a time
  }
}

export const session = new Session();

/** The login page, told to come back to the console page shown now (a deep link survives the login). */
export function loginUrl(): string {
  const here = window.location.pathname + window.location.search + window.location.hash;
  return here === '/console' ? '/login' : `/login?next=${encodeURIComponent(here)}`;
}
