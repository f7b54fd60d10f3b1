import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { adminSecurityEvents as limits } from '../../api/limits.gen';
import { useQueryState } from '../../app/router';
import { Empty, ErrorMessage, Loading, Notice } from '../../components/feedback';
import { Table } from '../../components/table';
import { JsonDetails, ReadOnlyNote, StatusBadge, useFullAdmin } from '../../components/admin';
import { anyOf, FilterForm, LimitField, limitParam, limitProblem, QuerySelect } from '../../components/filters';
import { Field } from '../../components/form';
import { when } from '../../components/format';
import { useAction, useLoad } from '../../components/use-load';
import { Person } from '../../components/person';

type Severity = (typeof limits.severity.oneOf)[number];
const KINDS = [
  'admin_login',
  'session_token_reuse',
  'login_code_failures',
  'login_rate_limited',
  'rate_limited',
  'auth_failures',
  'hwid_enumeration',
  'logdata_scanning',
  'tenant_probing',
  'traffic_spike',
];

/** Security events (logins of administrators, detectors' findings), filtered; acknowledge what has been looked at. */
export function AdminSecurityPage() {
  const full = useFullAdmin();
  const [query, setQuery] = useQueryState();
  const kind = query.get('kind') ?? '';
  const severity = (query.get('severity') ?? '') as Severity | '';
  const unacked = query.get('unacked') === 'true';
  const limit = query.get('limit') ?? '100';
  const [limitText, setLimitText] = useState(limit);
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const events = useLoad(
    async () =>
      ok(
        await api.GET('/admin/security/events', {
          params: { query: { kind: kind || undefined, severity: severity || undefined, unacked: unacked || undefined, limit: Number(limit) } },
        }),
      ).items,
    [kind, severity, unacked, limit],
  );
  const ack = useAction(async (id: number) => {
    ok(await api.POST('/admin/security/events/{id}/ack', { params: { path: { id } } }));
    setNotice(`Event ${id} is acknowledged.`);
    events.reload();
  });
  return (
    <section>
      <h1>Security events</h1>
      <ReadOnlyNote />
      <p class="hint">
        Administrator logins, session-token reuse, login limits and the detectors' findings over the request log. Critical events are also mailed to the full
        administrators. Acknowledge an event once someone has looked at it.
      </p>
      <FilterForm
        label="Filter security events"
        problem={problem}
        onApply={() => {
          const invalid = limitProblem(limits.limit, limitText, '100');
          setProblem(invalid);
          if (!invalid) setQuery({ limit: limitParam(limitText, '100') });
        }}
      >
        <QuerySelect label="Kind" name="kind" options={anyOf(KINDS, 'every kind')} />
        <QuerySelect label="Severity" name="severity" options={anyOf(limits.severity.oneOf)} />
        <Field label="Only unacknowledged" inline>
          <input name="unacked" type="checkbox" checked={unacked} onChange={(e) => setQuery({ unacked: e.currentTarget.checked ? 'true' : null })} />
        </Field>
        <LimitField name="limit" value={limitText} onInput={setLimitText} limits={limits.limit} />
      </FilterForm>
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={events.error ?? ack.error} />
      {events.data === undefined ? (
        events.loading && <Loading what="security events" />
      ) : events.data.length === 0 ? (
        <Empty>{kind || severity || unacked ? 'No event matches these filters. Widen them to see more.' : 'No security events yet.'}</Empty>
      ) : (
        <Table
          wrapClass="admin-table"
          label="Security events"
          id="security-events"
          columns={['When', 'Kind', 'Severity', 'Address', 'Customer', 'What was seen', 'Mailed', 'Acknowledged']}
        >
          {events.data.map((event) => (
            <tr key={event.id}>
              <td>{when(event.ts)}</td>
              <td class="mono">{event.kind}</td>
              <td>
                <StatusBadge status={event.severity} />
              </td>
              <td class="mono">{event.ip ?? '—'}</td>
              <td>{event.domain ?? '—'}</td>
              <td>
                <JsonDetails summary="detail" value={event.detail} />
              </td>
              <td>{event.notified_at ? when(event.notified_at) : '—'}</td>
              <td>
                {event.acked_at ? (
                  <span>
                    {when(event.acked_at)}{' '}
                    <span class="hint">
                      by <Person actor={event.acked_by ?? ''} />
                    </span>
                  </span>
                ) : full ? (
                  <button type="button" disabled={ack.busy} aria-label={`Acknowledge event ${event.id}`} onClick={() => void ack.run(event.id)}>
                    Acknowledge
                  </button>
                ) : (
                  'not yet'
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
