/** How long a domain stays known after its last answered update check. */
const KNOWN_FOR_MS = 3600_000;
/** At most this many domains (only domains that answered get in, so about the number of customers). */
const MAX_DOMAINS = 100_000;

/**
 * The customer domains this gateway has seen an update check answered for (2xx or 304: the
 * firmware app found the customer), for an hour after the last one. An update check refused
 * before the customer is looked up (400 bad input, 429 rate limited, 403 blocked address, 503)
 * counts for the domain in its path only while it is known here, else under `(none)` (docs/api.md
 * "Usage statistics"): a made-up domain is never counted, and the hottest path does no lookup.
 * A 404 (no such customer) forgets the domain at once.
 */
export class KnownCustomerDomains {
  /** Domain → when it stops being known; in order of the last refresh (the oldest go first past MAX_DOMAINS). */
  private readonly until = new Map<string, number>();

  /** The domain an update check naming `domain` and answered `status` counts for: the domain, or null for `(none)`. */
  countedDomain(domain: string, status: number, now: number): string | null {
    if ((status >= 200 && status < 300) || status === 304) {
      this.remember(domain, now);
      return domain;
    }
    if (status === 404) {
      this.until.delete(domain);
      return null;
    }
    const until = this.until.get(domain);
    return until !== undefined && until > now ? domain : null;
  }

  private remember(domain: string, now: number): void {
    const until = this.until.get(domain);
    if (until !== undefined && until - now > KNOWN_FOR_MS / 2) return; // fresh enough: no Map write per request
    this.until.delete(domain);
    this.until.set(domain, now + KNOWN_FOR_MS);
    if (this.until.size > MAX_DOMAINS) this.until.delete(this.until.keys().next().value!);
  }
}
