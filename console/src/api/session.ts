import { errorOf } from './problem';

/** Renew this long before the access cookie's end, so ordinary requests never need the gateway to renew it. */
const RENEW_MARGIN_MS = 60_000;
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

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

  start(csrfToken: string): void {
    this.csrf = csrfToken;
  }

  get csrfToken(): string {
    return this.csrf;
  }

  actOn(customer: string | null): void {
    this.actingOn = customer;
  }

  get customer(): string | null {
    return this.actingOn;
  }

  /** POST /auth/refresh, at most one at a time: callers meanwhile share the one under way. */
  renew(): Promise<void> {
    this.renewal ??= this.refresh().finally(() => {
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
    this.freshUntil = performance.now() + Date.parse(body.access_expires_at) - serverNow - RENEW_MARGIN_MS;
  }
}

export const session = new Session();

/** The login page, told to come back to the console page shown now (a deep link survives the login). */
export function loginUrl(): string {
  const here = window.location.pathname + window.location.search + window.location.hash;
  return here === '/console' ? '/login' : `/login?next=${encodeURIComponent(here)}`;
}
