import type { KeyObject } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Jwks, verifyAnswer } from './answer-signature.js';
import { downloadVerified, type DownloadResult } from './download.js';
import { DeviceClientError } from './errors.js';
import { delaySecondsOf, nextPollSeconds, type PollingSettings } from './polling.js';
import { type InstallReport, reportClaims, reportUrl, signReport } from './report.js';

/** An update item as the update check lists it (docs/api.md "The update check"). */
export interface UpdateItem {
  readonly id: string;
  readonly fw_name: string;
  readonly fw_version: string;
  readonly fw_type: string;
  readonly hw_name: string;
  readonly hw_version: string;
  readonly build_date: string;
  readonly general_release: boolean;
  readonly size_bytes: number;
  readonly sha256: string;
  readonly url: string;
  readonly notes_url: string | null;
}

export interface DeviceIdentity {
  readonly domain: string;
  readonly hwid: string;
  readonly hwName: string;
  readonly hwVersion: string;
  readonly fwName: string;
  /** The version installed now; `installed()` moves it. */
  readonly fwVersion: string;
}

export interface DeviceClientOptions {
  /** The service, e.g. `https://updates.example.com` (no trailing path). */
  readonly baseUrl: string;
  readonly device: DeviceIdentity;
  /** The pinned key set answers must be signed with; omitted: answers are not verified (tests and simulations only). */
  readonly verifyKeys?: Jwks;
  /** The device's private key for reports; omitted: reports are not sent. */
  readonly deviceKey?: KeyObject;
  /** Fallback polling when the service names no interval. */
  readonly polling?: PollingSettings;
  /** Build types asked for (`type=`), default the service's default. */
  readonly types?: string;
  readonly fetch?: typeof fetch;
}

export interface CheckResult {
  /** 200: the builds offered now; 304: those of the last 200. */
  readonly items: readonly UpdateItem[];
  readonly status: number;
  /** Seconds until the next check, as the service said (or the fallback). */
  readonly nextPollSeconds: number;
}

const DEFAULT_POLLING: PollingSettings = { intervalSeconds: 3600, jitter: 0.2 };

/**
 * One device's side of the protocol (docs/device-protocol.md): check, verify, download,
 * report. Holds the last answer's ETag so unchanged answers cost a 304.
 */
export class DeviceClient {
  private device: DeviceIdentity;
  private etag: string | null = null;
  private lastItems: readonly UpdateItem[] = [];
  private readonly doFetch: typeof fetch;

  constructor(private readonly options: DeviceClientOptions) {
    this.device = options.device;
    this.doFetch = options.fetch ?? fetch;
  }

  get identity(): DeviceIdentity {
    return this.device;
  }

  checkUrl(): string {
    const d = this.device;
    const segments = [d.domain, d.hwName, d.hwVersion, d.fwName, d.fwVersion, d.hwid].map(encodeURIComponent).join('/');
    const query = new URLSearchParams({ latest: 'true', ...(this.options.types ? { type: this.options.types } : {}) });
    return `${this.options.baseUrl.replace(/\/$/, '')}/firmware/${segments}?${query.toString()}`;
  }

  /** One update check. Throws DeviceClientError for a refused signature or an unexpected status (with Retry-After when given). */
  async check(): Promise<CheckResult> {
    const url = this.checkUrl();
    const requestHeaders = new Headers({ accept: 'application/json' });
    if (this.etag) requestHeaders.set('if-none-match', this.etag);
    const response = await this.doFetch(url, { headers: requestHeaders });
    const polling = this.options.polling ?? DEFAULT_POLLING;
    const next = nextPollSeconds(response.status, response.headers, polling);
    if (response.status === 304) {
      await response.body?.cancel();
      return { items: this.lastItems, status: 304, nextPollSeconds: next };
    }
    const body = new Uint8Array(await response.arrayBuffer());
    if (response.status !== 200) {
      throw new DeviceClientError(
        'http_status',
        `update check answered ${response.status}`,
        response.status,
        delaySecondsOf(response.headers.get('retry-after')) ?? next,
      );
    }
    if (this.options.verifyKeys) {
      verifyAnswer(
        { status: response.status, headers: response.headers, body, request: { url, method: 'GET', headers: requestHeaders } },
        { keys: this.options.verifyKeys },
      );
    }
    let items: UpdateItem[];
    try {
      items = JSON.parse(Buffer.from(body).toString('utf8')) as UpdateItem[];
      if (!Array.isArray(items)) throw new Error('not an array');
    } catch (err) {
      throw new DeviceClientError('answer_invalid', `the update check's body is not a list of update items: ${String(err)}`);
    }
    this.etag = response.headers.get('etag');
    this.lastItems = items;
    return { items, status: 200, nextPollSeconds: next };
  }

  /** Downloads an offered build to `destination`, resuming cut transfers, and checks its size and SHA-256. */
  download(item: UpdateItem, destination: string, options: { attempts?: number; retryDelayMs?: number } = {}): Promise<DownloadResult> {
    return downloadVerified({ url: item.url, destination, sizeBytes: item.size_bytes, sha256: item.sha256, fetch: this.doFetch, ...options });
  }

  /** The device now runs `fwVersion` (after an install or a roll-back): later checks name it. */
  installed(fwVersion: string): void {
    this.device = { ...this.device, fwVersion };
    this.etag = null;
  }

  /**
   * Reports an install's outcome, signed with the device key. Returns the HTTP status (201
   * stored, 200 the same report again); throws DeviceClientError('report_refused') otherwise.
   */
  async report(report: InstallReport, options: { now?: Date; unsigned?: boolean } = {}): Promise<number> {
    const key = this.options.deviceKey;
    if (!key && !options.unsigned) throw new DeviceClientError('report_refused', 'no device key configured: reports must be signed');
    const claims = reportClaims(this.device, report, options.now);
    const body = key && !options.unsigned ? signReport(claims, key) : { payload: Buffer.from(JSON.stringify(claims)).toString('base64url') };
    const response = await this.doFetch(reportUrl(this.options.baseUrl, this.device.domain, this.device.hwid), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status !== 200 && response.status !== 201) {
      throw new DeviceClientError(
        'report_refused',
        `report answered ${response.status}: ${text.slice(0, 300)}`,
        response.status,
        delaySecondsOf(response.headers.get('retry-after')) ?? undefined,
      );
    }
    return response.status;
  }

  /**
   * The device's whole loop until `signal` aborts: check, and when a build is offered
   * download it, hand it to `install` (which returns the outcome), report, wait as told.
   */
  async run(
    install: (file: DownloadResult, item: UpdateItem) => Promise<InstallReport['outcome'] | { outcome: InstallReport['outcome']; reason?: string }>,
    options: { directory: string; signal: AbortSignal },
  ): Promise<void> {
    let failures = 0;
    while (!options.signal.aborted) {
      let wait: number;
      try {
        const answer = await this.check();
        failures = 0;
        wait = answer.nextPollSeconds;
        const item = answer.items.at(-1);
        if (item && answer.status === 200) {
          const file = await this.download(item, `${options.directory}/${item.id}.bin`);
          const result = await install(file, item);
          const { outcome, reason } = typeof result === 'string' ? { outcome: result, reason: undefined } : result;
          if (outcome === 'installed') this.installed(item.fw_version);
          if (this.options.deviceKey) await this.report({ buildId: item.id, fwVersion: item.fw_version, outcome, ...(reason ? { reason } : {}) });
        }
      } catch (err) {
        failures++;
        const told = err instanceof DeviceClientError ? err.retryAfterSeconds : undefined;
        wait = told ?? Math.min(3600, 2 ** Math.min(failures, 12));
      }
      await sleep(wait * 1000, undefined, { signal: options.signal }).catch(() => undefined);
    }
  }
}
