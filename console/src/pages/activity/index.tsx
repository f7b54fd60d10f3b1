import { api, ok } from '../../api/client';
import { listAudit as limits } from '../../api/limits.gen';
import { useQueryState } from '../../app/router';
import { AuditEntries, AuditFilterForm, type AuditFilter, useAuditQuery } from '../../components/audit-log';
import { Empty, ErrorMessage, Loading } from '../../components/feedback';
import { Pager } from '../../components/pager';
import { useLoad } from '../../components/use-load';

const FILTERS: readonly AuditFilter[] = ['action', 'actor', 'target_type', 'target_id', 'from', 'to'];

/** The customer's own audit log (GET /audit, owners): who changed what, the service's administrators shown as such. */
export function ActivityPage() {
  const [, setQuery] = useQueryState();
  const audit = useAuditQuery(FILTERS);
  const page = useLoad(
    async () => ok(await api.GET('/audit', { params: { query: { ...audit.filters, limit: audit.limit, offset: audit.offset } } })),
    [audit.key],
  );
  return (
    <section>
      <h1>Activity</h1>
      <p class="hint">
        Every change in this customer, newest first: who made it and the state before and after. Changes made by the service's administrators are shown as{' '}
        <q>service administrator</q>. Click an action, a target or a person to see only their entries.
      </p>
      <AuditFilterForm names={FILTERS} limits={limits} />
      <ErrorMessage error={page.error} />
      {page.data === undefined ? (
        page.loading && <Loading what="the activity" />
      ) : page.data.items.length === 0 ? (
        <Empty>{audit.filtered ? 'No change matches these filters. Clear them to see every change.' : 'No changes recorded yet.'}</Empty>
      ) : (
        <>
          <AuditEntries entries={page.data.items} showCustomer={false} />
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
