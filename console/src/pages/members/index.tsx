import { useState } from 'preact/hooks';
import { api, ok, type Paths } from '../../api/client';
import { inviteMember as limits } from '../../api/limits.gen';
import { useMe } from '../../app/identity';
import { Empty, ErrorMessage, Loading, Notice } from '../../components/feedback';
import { check, Field } from '../../components/form';
import { when } from '../../components/format';
import { Table } from '../../components/table';
import { useAction, useLoad } from '../../components/use-load';

type Role = Paths['/members']['post']['requestBody']['content']['application/json']['role'];
const ROLE_TEXT: Record<Role, string> = {
  viewer: 'viewer: sees everything, changes nothing',
  editor: 'editor: also uploads, tags, registers and withdraws',
  owner: 'owner: also manages the people',
};
/** The roles in the contract's order (limits.gen.ts); a role added there fails the type check until it has a text. */
const ROLES = limits.role.oneOf.map((role) => ({ role, text: ROLE_TEXT[role] }));

/** The customer's people (owners): invite, change a role, remove; the last owner stays. */
export function MembersPage() {
  const me = useMe();
  const members = useLoad(async () => ok(await api.GET('/members')).items, []);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  const invite = useAction(async () => {
    const invalid =
      check(limits.email, email.trim()) ?? (/^[^\s@]+@[^\s@]+$/.test(email.trim()) ? null : (limits.email.message ?? 'a valid email address is needed'));
    setProblem(invalid);
    if (invalid) return;
    ok(await api.POST('/members', { body: { email: email.trim(), role } }));
    setNotice(`${email.trim()} is invited as ${role}: an email tells them how to log in.`);
    setEmail('');
    members.reload();
  });
  const change = useAction(async (who: string, to: Role) => {
    ok(await api.PATCH('/members/{email}', { params: { path: { email: who } }, body: { role: to } }));
    setNotice(`${who} is now ${to}.`);
    members.reload();
  });
  const remove = useAction(async (who: string) => {
    ok(await api.DELETE('/members/{email}', { params: { path: { email: who } } }));
    setRemoving(null);
    setNotice(`${who} is removed: their sessions on ${me.customer} end and the tokens they created for it are revoked.`);
    members.reload();
  });
  return (
    <section>
      <h1>Members</h1>
      <p class="hint">
        People log in by email; an invitation is all they need. A customer always keeps at least one owner: the last owner cannot be removed or given another
        role (make someone else owner first).
      </p>
      <form
        class="panel"
        noValidate
        aria-labelledby="invite-heading"
        onSubmit={(event) => {
          event.preventDefault();
          void invite.run();
        }}
      >
        <h2 id="invite-heading">Invite someone</h2>
        <div class="form-grid">
          <Field label="Email address">
            <input type="email" name="email" value={email} required autoComplete="off" onInput={(e) => setEmail(e.currentTarget.value)} />
          </Field>
          <Field label="Role">
            <select value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
              {ROLES.map((r) => (
                <option key={r.role} value={r.role}>
                  {r.text}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <div class="actions">
          <button type="submit" class="primary" disabled={invite.busy}>
            Send invitation
          </button>
        </div>
        <ErrorMessage error={problem ?? invite.error} />
      </form>
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={members.error ?? change.error ?? remove.error} />
      {members.data === undefined ? (
        members.loading && <Loading what="members" />
      ) : members.data.length === 0 ? (
        <Empty>No members. Invite the first one above.</Empty>
      ) : (
        <Table columns={['Email', 'Role', 'Invited', 'Last login', { label: 'Action', hidden: true }]}>
          {members.data.map((m) => (
            <tr key={m.email}>
              <td>
                {m.email}
                {m.disabled && <span class="hint"> (disabled)</span>}
                {m.email === me.identity.email && <span class="hint"> (you)</span>}
              </td>
              <td>
                <select
                  aria-label={`Role of ${m.email}`}
                  value={m.role}
                  disabled={change.busy}
                  onChange={(e) => void change.run(m.email, e.currentTarget.value as Role)}
                >
                  {ROLES.map((r) => (
                    <option key={r.role} value={r.role}>
                      {r.role}
                    </option>
                  ))}
                </select>
              </td>
              <td>{when(m.created_at)}</td>
              <td>{m.last_login_at ? when(m.last_login_at) : 'never'}</td>
              <td>
                {removing === m.email ? (
                  <span class="actions">
                    <span>Remove {m.email}?</span>
                    <button type="button" class="danger" disabled={remove.busy} onClick={() => void remove.run(m.email)}>
                      Yes, remove
                    </button>
                    <button type="button" onClick={() => setRemoving(null)}>
                      Keep
                    </button>
                  </span>
                ) : (
                  <button type="button" class="danger" aria-label={`Remove ${m.email}`} onClick={() => setRemoving(m.email)}>
                    Remove
                  </button>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
