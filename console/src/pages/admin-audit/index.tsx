import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { adminAudit as limits } from '../../api/limits.gen';
import { useQueryState } from '../../app/router';
import { FilterForm, JsonDetails, LimitField, limitParam, limitProblem, ScrollingTable } from '../../components/admin-kit';
import { Empty, ErrorMessage, Loading } from '../../components/feedback';
import { check, Field } from '../../components/form';
import { when } from '../../components/format';
import { useLoad } from '../../components/use-load';

/** Every change (by people, tokens, administrators), newest first, with what it was before and after. */
export function AdminAuditPage() {
  const [query, setQuery] = useQueryState();
  const domain = query.get('domain') ?? '';
  const limit = query.get('limit') ?? '100';
  const [domainText, setDomainText] = useState(domain);
  const [limitText, setLimitText] = useState(limit);
  const entries = useLoad(
    async () => ok(await api.GET('/admin/audit', { params: { query: { domain: domain || undefined, limit: Number(limit) } } })).items,
    [domain, limit],
  );
  return (
    <section>
      <h1>Audit log</h1>
      <p class="hint">
        Every change with the state before and after, newest first. Administrators' actions carry <code>admin:</code> in front of the actor.
      </p>
      <FilterForm
        validate={() => limitProblem(limits.limit, limitText, '100') ?? (domainText.trim() ? check(limits.domain, domainText.trim()) : null)}
        apply={() => setQuery({ domain: domainText.trim() || null, limit: limitParam(limitText, '100') })}
      >
        <Field label="Customer domain" hint="Empty: every customer and the service's own changes">
          <input name="domain" value={domainText} onInput={(e) => setDomainText(e.currentTarget.value)} />
        </Field>
        <LimitField name="limit" value={limitText} onInput={setLimitText} limits={limits.limit} />
      </FilterForm>
      <ErrorMessage error={entries.error} />
      {entries.data === undefined ? (
        entries.loading && <Loading what="the audit log" />
      ) : entries.data.length === 0 ? (
        <Empty>{domain ? `No changes recorded for ${domain}. Check the domain, or clear it to see every change.` : 'No changes recorded yet.'}</Empty>
      ) : (
        <ScrollingTable label="Audit entries" id="audit" columns={['When', 'Customer', 'Actor', 'Action', 'Target', 'Before', 'After']}>
          {entries.data.map((entry, index) => (
            <tr key={`${entry.ts} ${index}`}>
              <td>{when(entry.ts)}</td>
              <td>{entry.domain ?? <span class="hint">service</span>}</td>
              <td class="mono">{entry.actor}</td>
              <td class="mono">{entry.action}</td>
              <td class="cell-wrap">
                {entry.target_type} <span class="mono">{entry.target_id}</span>
              </td>
              <td>
                <JsonDetails summary="before" value={entry.before} />
              </td>
              <td>
                <JsonDetails summary="after" value={entry.after} />
              </td>
            </tr>
          ))}
        </ScrollingTable>
      )}
    </section>
  );
}
