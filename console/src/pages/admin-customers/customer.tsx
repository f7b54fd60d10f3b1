import { useState } from 'preact/hooks';
import { api, ok, type Paths } from '../../api/client';
import { adminUpdateCustomer as limits } from '../../api/limits.gen';
import { useMe } from '../../app/identity';
import type { PageProps } from '../../routes';
import { Link, navigate, useLocation } from '../../app/router';
import { PanelForm, ReadOnlyNote, ScrollingTable, StatusBadge, useFullAdmin } from '../../components/admin-kit';
import { Empty, ErrorMessage, Loading, Notice } from '../../components/feedback';
import { check, Field, inputLimits } from '../../components/form';
import { when } from '../../components/format';
import { useAction, useLoad } from '../../components/use-load';
import { customerPath, originsOf } from './shared';

type Customer = Paths['/admin/customers/{domain}']['get']['responses'][200]['content']['application/json']['customer'];

function EditCustomerForm({ customer, onSaved }: { customer: Customer; onSaved: (customer: Customer, note: string) => void }) {
  const [name, setName] = useState(customer.name);
  const [domain, setDomain] = useState(customer.domain);
  const [origins, setOrigins] = useState(customer.cors_origins.join('\n'));
  const [problem, setProblem] = useState<string | null>(null);
  const save = useAction(async () => {
    const body: { name?: string; domain?: string; cors_origins?: string[] } = {};
    if (name.trim() !== customer.name) body.name = name.trim();
    if (domain.trim() !== customer.domain) body.domain = domain.trim();
    const list = originsOf(origins);
    if (list.join('\n') !== customer.cors_origins.join('\n')) body.cors_origins = list;
    const invalid =
      (body.name === undefined ? null : check(limits.name, body.name)) ??
      (body.domain === undefined ? null : check(limits.domain, body.domain)) ??
      (body.cors_origins === undefined ? null : check(limits.cors_origins, body.cors_origins));
    setProblem(invalid ?? (Object.keys(body).length === 0 ? 'Nothing changed.' : null));
    if (invalid || Object.keys(body).length === 0) return;
    const saved = ok(await api.PATCH('/admin/customers/{domain}', { params: { path: { domain: customer.domain } }, body })).customer;
    onSaved(saved, 'Saved.');
  });
  return (
    <PanelForm
      title="Name, domain and CORS origins"
      submit="Save"
      disabled={save.busy}
      onSubmit={() => void save.run()}
      error={problem ?? save.error}
      after={
        <Field label="CORS origins" hint="One per line; web pages on these origins may call the API from a browser">
          <textarea name="cors_origins" rows={3} value={origins} onInput={(e) => setOrigins(e.currentTarget.value)} />
        </Field>
      }
    >
      <Field label="Name">
        <input name="name" value={name} {...inputLimits(limits.name)} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field label="Domain" hint="Changing it renames the customer: devices must then use the new one">
        <input name="domain" value={domain} {...inputLimits(limits.domain)} onInput={(e) => setDomain(e.currentTarget.value)} />
      </Field>
    </PanelForm>
  );
}

function DeleteCustomerForm({ customer }: { customer: Customer }) {
  const [confirm, setConfirm] = useState('');
  const [outcome, setOutcome] = useState<string | null>(null);
  const remove = useAction(async () => {
    const answer = await api.DELETE('/admin/customers/{domain}', { params: { path: { domain: customer.domain }, query: { confirm } } });
    ok(answer);
    setOutcome(
      answer.response.status === 202
        ? `${customer.domain} is deleted for every caller, but an app has not erased its part yet (202): the service finishes it by itself within minutes. Deleting again resumes it.`
        : `${customer.domain} is deleted: nothing of it is left (204).`,
    );
  });
  if (outcome) {
    return (
      <div class="panel danger-zone">
        <Notice>{outcome}</Notice>
        <Link href="/console/admin/customers">Back to the customers</Link>
      </div>
    );
  }
  return (
    <PanelForm
      title="Delete the customer"
      danger
      intro={
        <p>
          Deletes the account and everything it has: builds, devices, log files, every stored file, tokens, memberships and sessions. People who then belong to
          no customer are deleted too. The audit log keeps the deletion. This cannot be undone.
        </p>
      }
      submit={`Delete ${customer.domain}`}
      disabled={remove.busy || confirm.trim().toLowerCase() !== customer.domain}
      onSubmit={() => void remove.run()}
      error={remove.error}
    >
      <Field label={`Type ${customer.domain} to confirm`}>
        <input name="confirm" value={confirm} autoComplete="off" onInput={(e) => setConfirm(e.currentTarget.value)} />
      </Field>
    </PanelForm>
  );
}

/** One customer: its settings, members, suspend / reactivate, delete, and acting on its pages. */
export function AdminCustomerPage({ params }: PageProps) {
  const me = useMe();
  const full = useFullAdmin();
  const location = useLocation();
  const renamedFrom = location.search.get('renamed');
  const [notice, setNotice] = useState<string | null>(
    location.search.get('created')
      ? 'The customer is open; its first owner (if you named one) got an invitation by mail.'
      : renamedFrom
        ? `Renamed from ${renamedFrom}: devices must use the new domain in their update checks; tokens keep working.`
        : null,
  );
  const loaded = useLoad(async () => ok(await api.GET('/admin/customers/{domain}', { params: { path: { domain: params.domain } } })), [params.domain]);
  const setStatus = useAction(async (status: 'active' | 'suspended') => {
    ok(await api.PATCH('/admin/customers/{domain}', { params: { path: { domain: params.domain } }, body: { status } }));
    setNotice(
      status === 'suspended'
        ? 'Suspended: its tokens stop working, its sessions end and its update checks answer 404.'
        : 'Active again: its tokens work again and its people can log in again.',
    );
    loaded.reload();
  });
  if (loaded.data === undefined) {
    return (
      <section>
        <h1>Customer {params.domain}</h1>
        {loaded.loading ? <Loading what="the customer" /> : <ErrorMessage error={loaded.error} />}
        <Link href="/console/admin/customers">All customers</Link>
      </section>
    );
  }
  const { customer, members } = loaded.data;
  const actOn = () => {
    me.actOn(customer.domain === me.identity.customer ? null : customer.domain);
    // A full load: the header's customer picker then lists customers opened since the console started.
    window.location.assign('/console');
  };
  return (
    <section>
      <p>
        <Link href="/console/admin/customers">All customers</Link>
      </p>
      <h1>
        Customer {customer.domain} <StatusBadge status={customer.status} />
      </h1>
      <ReadOnlyNote />
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={loaded.error ?? setStatus.error} />
      <dl class="facts">
        <dt>Name</dt>
        <dd>{customer.name}</dd>
        <dt>Status</dt>
        <dd id="customer-status">{customer.status}</dd>
        <dt>CORS origins</dt>
        <dd>{customer.cors_origins.length ? customer.cors_origins.join(', ') : 'none: browsers on other sites may not call the API'}</dd>
        <dt>Sandbox</dt>
        <dd>{customer.is_sandbox ? 'yes' : 'no'}</dd>
        <dt>Created</dt>
        <dd>{when(customer.created_at)}</dd>
        <dt>Changed</dt>
        <dd>{when(customer.updated_at)}</dd>
      </dl>
      <div class="actions">
        <button type="button" onClick={actOn}>
          Act on {customer.domain}
        </button>
        {full &&
          (customer.status === 'active' ? (
            <button type="button" class="danger" disabled={setStatus.busy} onClick={() => void setStatus.run('suspended')}>
              Suspend
            </button>
          ) : (
            <button type="button" class="primary" disabled={setStatus.busy} onClick={() => void setStatus.run('active')}>
              Reactivate
            </button>
          ))}
      </div>
      <p class="hint">
        “Act on” opens the customer's own pages (firmware, devices, members…) as an administrator: every request then carries{' '}
        <code>customer={customer.domain}</code>. Suspending stops its tokens and sessions and answers its update checks 404, until it is reactivated.
      </p>
      <h2>Members</h2>
      {members.length === 0 ? (
        <Empty>No members. Act on the customer and invite its people from its Members page.</Empty>
      ) : (
        <ScrollingTable label="Members" columns={['Email', 'Role', 'Status', 'Member since', 'Last login']}>
          {members.map((m) => (
            <tr key={m.email}>
              <td>{m.email}</td>
              <td>{m.role}</td>
              <td>
                <StatusBadge status={m.disabled || m.user_disabled ? 'disabled' : 'enabled'} />
              </td>
              <td>{when(m.created_at)}</td>
              <td>{m.last_login_at ? when(m.last_login_at) : 'never'}</td>
            </tr>
          ))}
        </ScrollingTable>
      )}
      {full && (
        <>
          <EditCustomerForm
            key={customer.updated_at}
            customer={customer}
            onSaved={(saved, note) => {
              setNotice(note);
              if (saved.domain !== params.domain) navigate(`${customerPath(saved.domain)}?renamed=${encodeURIComponent(params.domain)}`, { replace: true });
              else loaded.reload();
            }}
          />
          <DeleteCustomerForm customer={customer} />
        </>
      )}
    </section>
  );
}
