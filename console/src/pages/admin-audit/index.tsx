import { api, ok } from '../../api/client';
import { adminAudit as limits } from '../../api/limits.gen';
import { useQueryState } from '../../app/router';
import { AuditEntries, AuditFilterForm, type AuditFilter, useAuditQuery } from '../../components/audit-log';
import { Empty, ErrorMessage, Loading } from '../../components/feedback';
import { Pager } from '../../components/pager';
import { useLoad } from '../../components/use-load';

const FILTERS: readonly AuditFilter[] = ['domain', 'action', 'actor', 'target_type', 'target_id', 'from', 'to'];

/** Every change (by people, tokens, administrators), newest first, with what it was before and after. */
export function AdminAuditPage() {
  const [, setQuery] = useQueryState();
  const audit = useAuditQuery(FILTERS);
  const page = useLoad(
    async () =>
      ok(
        await api.GET('/admin/audit', {
          params: { query: { ...audit.filters, domain: audit.filters.domain?.toLowerCase(), limit: audit.limit, offset: audit.offset } },
        }),
      ),
    [audit.key],
  );
  return (
    <section>
      <h1>Audit log</h1>
      <p class="hint">
        Every change with the state before and after, newest first. Administrators' actions carry <code>admin:</code> in front of the actor. Click an action, a
        target or a person to see only their entries.
      </p>
      <AuditFilterForm names={FILTERS} limits={limits} />
      <ErrorMessage error={page.error} />
      {page.data === undefined ? (
        page.loading && <Loading what="the audit log" />
      ) : page.data.items.length === 0 ? (
        <Empty>{audit.filtered ? 'No change matches these filters. Clear them to see every change.' : 'No changes recorded yet.'}</Empty>
      ) : (
        <>
          <AuditEntries entries={page.data.items} showCustomer />
          <Pager
            offset={audit.offset}
            limit={audit.limit}
            nextOffset={page.data.next_offset}
            onOffset={(next) => setQuery({ offset: next ? String(next) : null })}
          />
        </>
      )}
    </section>
  );
}
