import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { useMe } from '../../app/identity';
import { Link } from '../../app/router';
import { Empty, ErrorMessage, Loading, Notice } from '../../components/feedback';
import { Table } from '../../components/table';
import { ReadOnlyNote, StatusBadge, useFullAdmin } from '../../components/admin';
import { Field } from '../../components/form';
import { when } from '../../components/format';
import { useAction, useLoad } from '../../components/use-load';
import { customerPath } from '../admin-customers/shared';

/** Every person, one row per membership; disable (ends every session, revokes every token they made) or enable. */
export function AdminUsersPage() {
  const me = useMe();
  const full = useFullAdmin();
  const users = useLoad(async () => ok(await api.GET('/admin/users')).items, []);
  const [filter, setFilter] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const toggle = useAction(async (email: string, disabled: boolean) => {
    ok(await api.PATCH('/admin/users/{email}', { params: { path: { email } }, body: { disabled } }));
    setNotice(
      disabled
        ? `${email} is disabled: their sessions have ended and every token they created is revoked, on every customer.`
        : `${email} is enabled: they can log in again. Their old tokens stay revoked.`,
    );
    users.reload();
  });
  const needle = filter.trim().toLowerCase();
  const shown = (users.data ?? []).filter((u) => !needle || u.email.toLowerCase().includes(needle) || u.domain.includes(needle));
  return (
    <section>
      <h1>Users</h1>
      <ReadOnlyNote />
      <p class="hint">
        One row per membership. <strong>Disabling</strong> a person ends all their sessions and revokes every token they created, on every customer; enabling
        them again lets them log in, but revives none of those tokens. Nobody can disable themselves. To change a role, act on the customer and use its Members
        page.
      </p>
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={users.error ?? toggle.error} />
      <Field label="Find by email or domain" inline>
        <input type="search" name="find" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
      </Field>
      {users.data === undefined ? (
        users.loading && <Loading what="users" />
      ) : shown.length === 0 ? (
        <Empty>{needle ? `Nobody matches “${filter}”.` : 'Nobody yet: people appear here when a customer invites them.'}</Empty>
      ) : (
        <Table
          wrapClass="admin-table"
          label="Users"
          id="users"
          columns={['Email', 'Customer', 'Role', 'Person', 'Last login', 'Member since', ...(full ? [{ label: 'Action', hidden: true }] : [])]}
        >
          {shown.map((u) => (
            <tr key={`${u.email} ${u.domain}`}>
              <td>{u.email}</td>
              <td>
                <Link href={customerPath(u.domain)}>{u.domain}</Link>
              </td>
              <td>{u.role}</td>
              <td>
                <StatusBadge status={u.user_disabled ? 'disabled' : 'enabled'} />
              </td>
              <td>{u.last_login_at ? when(u.last_login_at) : 'never'}</td>
              <td>{when(u.created_at)}</td>
              {full && (
                <td>
                  {u.email !== me.identity.email &&
                    (u.user_disabled ? (
                      <button type="button" disabled={toggle.busy} aria-label={`Enable ${u.email}`} onClick={() => void toggle.run(u.email, false)}>
                        Enable
                      </button>
                    ) : (
                      <button
                        type="button"
                        class="danger"
                        disabled={toggle.busy}
                        aria-label={`Disable ${u.email}`}
                        onClick={() => void toggle.run(u.email, true)}
                      >
                        Disable
                      </button>
                    ))}
                </td>
              )}
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
