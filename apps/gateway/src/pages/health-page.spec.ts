import { describe, expect, it } from '@jest/globals';
import { HEALTH_PARTS, type HealthHistory, type StatusDocument } from '@app/contracts';
import { renderHealthPage } from './health-page.js';

const status = (overrides: Partial<StatusDocument> = {}): StatusDocument => ({
  status: 'ok',
  version: '1.0.0',
  time: '2026-11-26T10:00:00.000Z',
  database: true,
  object_store: true,
  apps: { firmware: 'up', logdata: 'up', registry: 'up', identity: 'up', admin: 'up', worker: 'up' },
  maintenance: { enabled: false, message: '' },
  ...overrides,
});

/** 90 days, newest first: today 1439 of 1440 up, yesterday no data, the rest 100 %. */
function history(): HealthHistory {
  const days = Array.from({ length: 90 }, (_, i) => new Date(Date.UTC(2026, 10, 26) - i * 86_400_000).toISOString().slice(0, 10));
  const partDays = days.map((day, i) =>
    i === 0
      ? { day, samples: 1440, up: 1439, down: 1, uptime_ratio: 1439 / 1440 }
      : i === 1
        ? { day, samples: 0, up: 0, down: 0, uptime_ratio: null }
        : { day, samples: 1440, up: 1440, down: 0, uptime_ratio: 1 },
  );
  return {
    days: days.map((day) => ({ day, samples: 0, ok: 0, degraded: 0, down: 0, uptime_ratio: null })),
    parts: HEALTH_PARTS.map((part) => ({ part, days: partDays })),
  };
}

describe('renderHealthPage', () => {
  it('shows a down part and the degraded service in text, not colour alone', () => {
    const html = renderHealthPage(status({ status: 'degraded', object_store: false, apps: { ...status().apps, worker: 'down' } }), history());
    expect(html).toMatch(/<p class="overall degraded" id="overall" role="status" [^>]*>Degraded: some parts are not working \(see below\)\.<\/p>/);
    expect(html).toMatch(
      /<tr><th scope="row">Object store \(files\)<\/th><td><span class="state down" data-part-state="object_store"[^>]*>Down<\/span><\/td><\/tr>/,
    );
    expect(html).toMatch(/id="part-worker"[\s\S]*?<span class="state down" data-part-state="worker"[^>]*>Down now<\/span>/);
    expect(html).toMatch(/id="part-database"[\s\S]*?<span class="state up" data-part-state="database"[^>]*>Up now<\/span>/);
    // Complete without a script: the one script is a file from /static/ that only refreshes the state; no inline script or style.
    expect(html.match(/<script[^>]*>/g)).toEqual([expect.stringMatching(/^<script src="\/static\/health\.[0-9a-f]{12}\.js" defer>$/)]);
    expect(html).not.toMatch(/<script>|\sstyle=/);
  });

  it('draws each day oldest first with its figure; a day without samples is "no data"; the summary names the worst day', () => {
    const html = renderHealthPage(status(), history());
    const bar = html.slice(html.indexOf('<ol class="bar" aria-label="Database'), html.indexOf('</ol>', html.indexOf('<ol class="bar" aria-label="Database')));
    const cells = [...bar.matchAll(/<li class="(u-[a-z]+)" title="([^"]+)">/g)].map((m) => [m[1], m[2]]);
    expect(cells).toHaveLength(90);
    expect(cells[0]).toEqual(['u-full', '2026-08-29: 100 % up (1440 samples)']);
    expect(cells[88]).toEqual(['u-none', '2026-11-25: no data']);
    expect(cells[89]).toEqual(['u-high', '2026-11-26: 99.93 % up (1440 samples)']);
    expect(html).toContain(
      '<p class="summary" id="part-database-summary">Database: 99.99 % uptime over the 89 of the last 90 days with data; worst day 2026-11-26 at 99.93 %.</p>',
    );
  });

  it('still shows the state now when the history cannot be had', () => {
    const html = renderHealthPage(status({ maintenance: { enabled: true, message: 'Upgrade until 11:00' } }), null);
    expect(html).toContain('The uptime history cannot be shown right now; the current state above is live.');
    expect(html).toContain('Maintenance: Upgrade until 11:00');
    expect(html).not.toContain('<ol class="bar"');
    expect(html.match(/<span class="state up" data-part-state="[a-z_]+" data-up-text="Up" data-down-text="Down">Up<\/span>/g)).toHaveLength(
      HEALTH_PARTS.length,
    );
  });
});
