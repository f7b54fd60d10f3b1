import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AdminMessages, escapeHtml, HEALTH_PARTS, type HealthHistory, type HealthPart, partIsUp, type PartDayEntry, type StatusDocument } from '@app/contracts';
import { JsonLogger, MessageBus, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG, TtlCache } from '@app/platform';
import { ServiceHealth } from '../health/service-health.js';
import { PAGE_FILE_URLS } from './page-files.js';
import { renderShell } from './page-shell.js';

/** Days the bars of /health show. */
export const HEALTH_PAGE_DAYS = 90;
const HISTORY_TIMEOUT_MS = 2_000;
/** The page is public: one rendering serves everyone for a few seconds (the state it shows is at most this old). */
const PAGE_CACHE_MS = 5_000;

const LABELS: Readonly<Record<HealthPart, string>> = {
  gateway: 'Gateway (HTTP)',
  database: 'Database',
  object_store: 'Object store (files)',
  firmware: 'Firmware app',
  logdata: 'Log data app',
  registry: 'Device registry app',
  identity: 'Identity app (logins, tokens)',
  admin: 'Admin app',
  worker: 'Worker (mail, background jobs)',
};

const OVERALL: Readonly<Record<StatusDocument['status'], string>> = {
  ok: 'All parts are working.',
  degraded: 'Degraded: some parts are not working (see below).',
  down: 'Down: the database cannot be reached.',
};

/** A day's uptime as text: "99.93 %"; a whole 100 % only when nothing failed. */
function percent(ratio: number): string {
  if (ratio >= 1) return '100 %';
  return `${(Math.floor(ratio * 10_000) / 100).toFixed(2)} %`;
}

/** The colour class of a day: the text says the same, so colour is never the only sign. */
function cellClass(day: PartDayEntry): string {
  if (day.uptime_ratio === null) return 'u-none';
  if (day.uptime_ratio >= 1) return 'u-full';
  if (day.uptime_ratio >= 0.99) return 'u-high';
  if (day.uptime_ratio >= 0.9) return 'u-mid';
  return 'u-low';
}

function dayText(day: PartDayEntry): string {
  return day.uptime_ratio === null ? `${day.day}: no data` : `${day.day}: ${percent(day.uptime_ratio)} up (${day.samples} samples)`;
}

function partState(part: HealthPart, status: StatusDocument): 'up' | 'down' {
  return partIsUp(part, status) ? 'up' : 'down';
}

/** A part's state mark; the page's script refreshes it from /status with the texts it carries. */
function stateMark(part: HealthPart, status: StatusDocument, upText: string, downText: string): string {
  const state = partState(part, status);
  return `<span class="state ${state}" data-part-state="${part}" data-up-text="${upText}" data-down-text="${downText}">${state === 'up' ? upText : downText}</span>`;
}

function summary(label: string, days: readonly PartDayEntry[]): string {
  const known = days.filter((d) => d.samples > 0);
  if (!known.length) return `${label}: no data for the last ${days.length} days.`;
  const samples = known.reduce((n, d) => n + d.samples, 0);
  const up = known.reduce((n, d) => n + d.up, 0);
  const worst = known.reduce((w, d) => (d.uptime_ratio! < w.uptime_ratio! ? d : w));
  const worstText = worst.uptime_ratio! < 1 ? `; worst day ${worst.day} at ${percent(worst.uptime_ratio!)}` : '';
  return `${label}: ${percent(up / samples)} uptime over the ${known.length} of the last ${days.length} days with data${worstText}.`;
}

function partSection(part: HealthPart, days: readonly PartDayEntry[] | null, status: StatusDocument): string {
  const label = LABELS[part];
  const oldestFirst = days ? [...days].reverse() : [];
  return [
    `<section class="part" id="part-${part}" aria-labelledby="part-${part}-name">`,
    '<div class="part-head">',
    `<h3 id="part-${part}-name">${escapeHtml(label)}</h3>`,
    stateMark(part, status, 'Up now', 'Down now'),
    '</div>',
    days
      ? [
          `<p class="summary" id="part-${part}-summary">${escapeHtml(summary(label, days))}</p>`,
          `<ol class="bar" aria-label="${escapeHtml(`${label}: daily uptime, oldest day first`)}" aria-describedby="part-${part}-summary">`,
          ...oldestFirst.map((d) => {
            const text = escapeHtml(dayText(d));
            return `<li class="${cellClass(d)}" title="${text}"><span class="visually-hidden">${text}</span></li>`;
          }),
          '</ol>',
          `<div class="axis" aria-hidden="true"><span>${escapeHtml(oldestFirst[0]?.day ?? '')}</span><span>today</span></div>`,
        ].join('\n')
      : '',
    '</section>',
  ].join('\n');
}

/**
 * GET /health: the public status page, complete as rendered on the server; its script
 * (console/src/health/health.ts, built with the console) only refreshes the current state.
 */
export function renderHealthPage(status: StatusDocument, history: HealthHistory | null): string {
  const byPart = new Map(history?.parts.map((p) => [p.part, p.days]) ?? []);
  const rows = HEALTH_PARTS.map((part) => `<tr><th scope="row">${escapeHtml(LABELS[part])}</th><td>${stateMark(part, status, 'Up', 'Down')}</td></tr>`);
  const overallTexts = Object.entries(OVERALL).map(([state, text]) => `data-text-${state}="${escapeHtml(text)}"`);
  const body = [
    '<h1>Service health</h1>',
    `<p class="overall ${status.status}" id="overall" role="status" ${overallTexts.join(' ')}>${escapeHtml(OVERALL[status.status])}</p>`,
    status.maintenance.enabled
      ? `<p class="overall degraded">Maintenance: ${escapeHtml(status.maintenance.message || 'changes are paused for a while; reading works.')}</p>`
      : '',
    `<p class="hint">As of <span id="as-of">${escapeHtml(status.time)}</span> (UTC), version <span id="version">${escapeHtml(status.version)}</span>. The same data as JSON: <a href="/status">/status</a> and <a href="/health/history">/health/history</a>.</p>`,
    '<p class="error" id="refresh-note" role="status" hidden></p>',
    '<h2 id="now">Each part now</h2>',
    '<table aria-labelledby="now"><thead><tr><th scope="col">Part</th><th scope="col">State</th></tr></thead><tbody>',
    ...rows,
    '</tbody></table>',
    `<h2 id="days">Daily uptime, last ${HEALTH_PAGE_DAYS} days</h2>`,
    '<p class="hint">Each cell is one day (UTC), oldest on the left, today on the right: the share of samples (one a minute) in which the part answered. Hover or focus a day for its figure; a day without samples shows no data, not 100 %.</p>',
    '<ul class="legend" aria-label="Legend">',
    '<li><span class="u-full"></span>100 %</li>',
    '<li><span class="u-high"></span>99 % or more</li>',
    '<li><span class="u-mid"></span>90 % or more</li>',
    '<li><span class="u-low"></span>under 90 %</li>',
    '<li><span class="u-none"></span>no data</li>',
    '</ul>',
    history ? '' : '<p class="error" role="alert">The uptime history cannot be shown right now; the current state above is live.</p>',
    ...HEALTH_PARTS.map((part) => partSection(part, history ? (byPart.get(part) ?? null) : null, status)),
  ];
  return renderShell({
    title: 'Service health',
    stylesheets: [PAGE_FILE_URLS.healthCss],
    scripts: [PAGE_FILE_URLS.healthJs],
    body: body.filter(Boolean).join('\n'),
  });
}

/** Gathers what /health shows: the live status (as /status) and the admin app's history. */
@Injectable()
export class HealthPage {
  private readonly logger = new JsonLogger('gateway');
  private readonly page = new TtlCache<'page', string>(1, PAGE_CACHE_MS);

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(MessageBus) private readonly bus: MessageBus,
    private readonly health: ServiceHealth,
  ) {}

  render(): Promise<string> {
    return this.page.getOrLoad('page', async () => {
      const [status, history] = await Promise.all([this.health.status(), this.history()]);
      return renderHealthPage(status, history);
    });
  }

  private async history(): Promise<HealthHistory | null> {
    const ctx = {
      requestId: randomUUID(),
      principal: null,
      customer: null,
      actor: 'anonymous',
      auditActor: 'anonymous',
      ip: '',
      userAgent: '',
      baseUrl: this.config.publicUrl,
    };
    try {
      return await this.bus.send(
        AdminMessages.healthHistory,
        { ctx, params: {}, query: { days: HEALTH_PAGE_DAYS }, body: undefined },
        { timeoutMs: HISTORY_TIMEOUT_MS },
      );
    } catch (err) {
      this.logger.warn('health history unavailable for /health', { error: err instanceof Error ? err.message : String(err) });
      return null;
    }
  }
}
