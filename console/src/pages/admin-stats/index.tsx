import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { adminStatsEvents as eventLimits, adminStatsSummary as summaryLimits } from '../../api/limits.gen';
import { Link, useQueryState } from '../../app/router';
import { Empty, ErrorMessage, Loading } from '../../components/feedback';
import { Table } from '../../components/table';
import { FilterForm, intOrUndefined, LimitField, limitParam, limitProblem } from '../../components/filters';
import { BarChart } from '../../components/bar-chart';
import { check, Field, inputLimits } from '../../components/form';
import { when } from '../../components/format';
import { Pager } from '../../components/pager';
import { useLoad } from '../../components/use-load';
import { customerPath } from '../admin-customers/shared';

const COUNTERS = {
  requests: 'Requests',
  errors: 'Errors (4xx and 5xx)',
  update_checks: 'Update checks',
  firmware_uploads: 'Firmware uploads',
  firmware_downloads: 'Firmware downloads',
  notes_downloads: 'Release-notes downloads',
  logdata_uploads: 'Log-file uploads',
  logdata_downloads: 'Log-file downloads',
} as const;
type Counter = keyof typeof COUNTERS;

/** Rows per page of the request log (the API allows up to 1000). */
const DEFAULT_PAGE = '50';

const EVENT_FILTERS = ['domain', 'ip', 'route', 'status', 'from', 'to'] as const;
type EventFilter = (typeof EVENT_FILTERS)[number];
const EVENT_LABELS: Record<EventFilter, { label: string; hint: string }> = {
  domain: { label: 'Customer domain', hint: '(none): requests naming no customer' },
  ip: { label: 'Client address', hint: 'e.g. 203.0.113.7' },
  route: { label: 'Route', hint: 'the route pattern, e.g. /firmware/{id}' },
  status: { label: 'Status', hint: 'e.g. 404' },
  from: { label: 'From', hint: 'YYYY-MM-DD or RFC 3339; default 7 days ago' },
  to: { label: 'To', hint: 'YYYY-MM-DD or RFC 3339; default now' },
};

function Summary() {
  const [query, setQuery] = useQueryState();
  const from = query.get('from') ?? '';
  const to = query.get('to') ?? '';
  const counter = (query.get('counter') ?? 'requests') as Counter;
  const [fromText, setFromText] = useState(from);
  const [toText, setToText] = useState(to);
  const [problem, setProblem] = useState<string | null>(null);
  const summary = useLoad(
    async () => ok(await api.GET('/admin/stats/summary', { params: { query: { from: from || undefined, to: to || undefined } } })),
    [from, to],
  );
  return (
    <>
      <FilterForm
        label="Filter the summary"
        problem={problem}
        onApply={() => {
          const invalid = (fromText ? check(summaryLimits.from, fromText) : null) ?? (toText ? check(summaryLimits.to, toText) : null);
          setProblem(invalid);
          if (!invalid) setQuery({ from: fromText || null, to: toText || null });
        }}
      >
        <Field label="From" hint="Default: 30 days ago">
          <input name="from" type="date" value={fromText} onInput={(e) => setFromText(e.currentTarget.value)} />
        </Field>
        <Field label="To" hint="Default: now">
          <input name="to" type="date" value={toText} onInput={(e) => setToText(e.currentTarget.value)} />
        </Field>
        <Field label="Chart by day">
          <select name="counter" value={counter} onChange={(e) => setQuery({ counter: e.currentTarget.value === 'requests' ? null : e.currentTarget.value })}>
            {Object.entries(COUNTERS).map(([key, label]) => (
              <option key={key} value={key}>
                {label}
              </option>
            ))}
          </select>
        </Field>
      </FilterForm>
      <ErrorMessage error={summary.error} />
      {summary.data === undefined ? (
        summary.loading && <Loading what="statistics" />
      ) : (
        <>
          <p class="hint">
            From {when(summary.data.from)} to {when(summary.data.to)}. Requests show here within 30 s.
          </p>
          <div class="charts">
            <BarChart
              title={`${COUNTERS[counter]} by day`}
              rows={summary.data.days.map((day) => ({ label: day.day, value: day[counter] }))}
              empty="No requests in this range."
            />
            <BarChart
              title="Requests by customer"
              rows={summary.data.customers.map((c) => ({ label: c.domain, value: c.requests }))}
              empty="No requests in this range."
            />
          </div>
          {summary.data.customers.length > 0 && (
            <Table
              wrapClass="admin-table"
              label="Requests by customer"
              id="stats-customers"
              caption={<span class="hint">Per customer</span>}
              columns={['Customer', { label: 'Requests', num: true }, { label: 'Errors', num: true }, { label: 'Update checks', num: true }]}
            >
              {summary.data.customers.map((c) => (
                <tr key={c.domain}>
                  <td>
                    {c.domain === '(none)' ? (
                      <span title="Requests that named no customer">(none)</span>
                    ) : (
                      <Link href={customerPath(c.domain)}>{c.domain}</Link>
                    )}
                  </td>
                  <td class="num">{c.requests}</td>
                  <td class="num">{c.errors}</td>
                  <td class="num">{c.update_checks}</td>
                </tr>
              ))}
            </Table>
          )}
        </>
      )}
    </>
  );
}

function RequestLog() {
  const [query, setQuery] = useQueryState();
  const filters = Object.fromEntries(EVENT_FILTERS.map((name) => [name, query.get(`e_${name}`) ?? ''])) as Record<EventFilter, string>;
  const limit = Number(query.get('e_limit') ?? DEFAULT_PAGE);
  const offset = Number(query.get('e_offset') ?? '0');
  const [texts, setTexts] = useState<Record<EventFilter, string>>(filters);
  const [limitText, setLimitText] = useState(String(limit));
  const [problem, setProblem] = useState<string | null>(null);
  const key = EVENT_FILTERS.map((name) => filters[name]).join('\u0000');
  const events = useLoad(
    async () =>
      ok(
        await api.GET('/admin/stats/events', {
          params: {
            query: {
              domain: filters.domain || undefined,
              ip: filters.ip || undefined,
              route: filters.route || undefined,
              status: intOrUndefined(filters.status),
              from: filters.from || undefined,
              to: filters.to || undefined,
              limit,
              offset,
            },
          },
        }),
      ),
    [key, limit, offset],
  );
  const problemOf = () =>
    (texts.status ? check(eventLimits.status, Number(texts.status)) : null) ??
    (texts.from ? check(eventLimits.from, texts.from) : null) ??
    (texts.to ? check(eventLimits.to, texts.to) : null) ??
    limitProblem(eventLimits.limit, limitText, DEFAULT_PAGE);
  const apply = () =>
    setQuery({
      ...Object.fromEntries(EVENT_FILTERS.map((name) => [`e_${name}`, texts[name].trim() || null])),
      e_limit: limitParam(limitText, DEFAULT_PAGE),
      e_offset: null,
    });
  return (
    <>
      <FilterForm
        label="Filter the request log"
        problem={problem}
        onApply={() => {
          const invalid = problemOf();
          setProblem(invalid);
          if (!invalid) apply();
        }}
      >
        {EVENT_FILTERS.map((name) => (
          <Field key={name} label={EVENT_LABELS[name].label} hint={EVENT_LABELS[name].hint}>
            <input
              name={`e_${name}`}
              inputMode={name === 'status' ? 'numeric' : 'text'}
              value={texts[name]}
              {...inputLimits(eventLimits[name])}
              onInput={(e) => setTexts({ ...texts, [name]: e.currentTarget.value })}
            />
          </Field>
        ))}
        <LimitField name="e_limit" value={limitText} onInput={setLimitText} limits={eventLimits.limit} label="Per page" />
      </FilterForm>
      <ErrorMessage error={events.error} />
      {events.data === undefined ? (
        events.loading && <Loading what="the request log" />
      ) : events.data.items.length === 0 ? (
        <Empty>No request matches. The log keeps every request; widen the dates or clear a filter.</Empty>
      ) : (
        <>
          <Table
            wrapClass="admin-table"
            label="Request log"
            id="stats-events"
            columns={[
              'When',
              'Customer',
              'Request',
              { label: 'Status', num: true },
              'Address',
              'Actor',
              { label: 'ms', num: true },
              { label: 'Bytes in / out', num: true },
              'User agent',
            ]}
          >
            {events.data.items.map((e) => (
              <tr key={e.request_id}>
                <td>{when(e.ts)}</td>
                <td>{e.domain ?? '(none)'}</td>
                <td class="mono cell-wrap" title={e.route}>
                  {e.method} {e.path}
                </td>
                <td class="num">{e.status}</td>
                <td class="mono">{e.ip}</td>
                <td class="mono">{e.actor ?? '—'}</td>
                <td class="num">{e.duration_ms}</td>
                <td class="num">
                  {e.bytes_in} / {e.bytes_out}
                </td>
                <td class="hint user-agent" title={e.user_agent}>
                  {e.user_agent}
                </td>
              </tr>
            ))}
          </Table>
          <Pager offset={offset} limit={limit} nextOffset={events.data.next_offset} onOffset={(next) => setQuery({ e_offset: next ? String(next) : null })} />
        </>
      )}
    </>
  );
}

/** Service-wide statistics: by day and by customer, and the request log with every filter. */
export function AdminStatsPage() {
  return (
    <section>
      <h1>Service statistics</h1>
      <h2>Summary</h2>
      <Summary />
      <h2>Request log</h2>
      <p class="hint">Every request to the service, newest first, with full addresses and user agents.</p>
      <RequestLog />
    </section>
  );
}
