import { useState } from 'preact/hooks';
import { api, ok, type Paths } from '../../api/client';
import { adminUpdateCustomer as limits } from '../../api/limits.gen';
import { useMe } from '../../app/identity';
import type { PageProps } from '../../routes';
import { CUSTOMER_PARAM, Link, navigate, useLocation } from '../../app/router';
import { Empty, ErrorMessage, Loading, Notice } from '../../components/feedback';
import { Table } from '../../components/table';
import { ReadOnlyNote, StatusBadge, useFullAdmin } from '../../components/admin';
import { check, Field, inputLimits, PanelForm } from '../../components/form';
import { bytes, when } from '../../components/format';
import { ConfirmDialog } from '../../components/confirm';
import { useAction, useLoad } from '../../components/use-load';
import { customerPath, originsOf } from './shared';

type Customer = Paths['/admin/customers/{domain}']['get']['responses'][200]['content']['application/json']['customer'];
type Counts = Paths['/admin/customers']['get']['responses'][200]['content']['application/json']['items'][number]['counts'];

/** "3 devices", "1 device". */
function count(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}

/** The numbers a confirmation states: what the customer has now (the customers list's counts), or why they are unknown. */
function Reach({ counts }: { counts: { data?: Counts | null; error: unknown } }) {
  if (counts.data) return null;
  return <ErrorMessage error={counts.error ?? (counts.data === null ? 'The customer is not in the customers list: its numbers are unknown.' : null)} />;
}

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

function DeleteCustomerForm({ customer, counts }: { customer: Customer; counts: { data?: Counts | null; error: unknown } }) {
  const [confirm, setConfirm] = useState('');
  const [asking, setAsking] = useState(false);
  const [outcome, setOutcome] = useState<string | null>(null);
  const remove = useAction(async () => {
    const answer = await api.DELETE('/admin/customers/{domain}', { params: { path: { domain: customer.domain }, query: { confirm } } });
    ok(answer);
    setOutcome(
      answer.response.status === 202
        ? `${customer.domain} is deleted for every caller, but an app has not erased its part yet (202): the service finishes it by itself within minutes. Deleting again resumes it.`
        : `${customer.domain} is deleted: nothing of it is left (204).`,
    );
    setAsking(false);
  });
  const c = counts.data;
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
      onSubmit={() => setAsking(true)}
      error={asking ? null : remove.error}
    >
      <Field label={`Type ${customer.domain} to confirm`}>
        <input name="confirm" value={confirm} autoComplete="off" onInput={(e) => setConfirm(e.currentTarget.value)} />
      </Field>
      {asking && (
        <ConfirmDialog
          title={`Delete ${customer.domain}?`}
          confirm={`Delete ${customer.domain} for good`}
          busy={remove.busy}
          error={remove.error}
          onConfirm={() => void remove.run()}
          onCancel={() => setAsking(false)}
        >
          {c ? (
            <p id="delete-reach">
              Deleting it stops serving {count(c.devices, 'device')} at once: their update checks answer 404 from now on. Erased with them:{' '}
              {count(c.firmware, 'build')}, {count(c.logdata, 'log file')}, {count(c.tags, 'tag')} and {count(c.active_tokens, 'active API token')} (
              {bytes(c.stored_bytes)} stored).
            </p>
          ) : (
            <Reach counts={counts} />
          )}
          <p>This cannot be undone.</p>
        </ConfirmDialog>
      )}
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
  // What the customer has now: the numbers its confirmations state (the customers list is where the service counts them).
  const counts = useLoad(
    async () => ok(await api.GET('/admin/customers')).items.find((c) => c.domain === params.domain)?.counts ?? null,
    [params.domain, loaded.data?.customer.updated_at],
  );
  const [asking, setAsking] = useState(false);
  const setStatus = useAction(async (status: 'active' | 'suspended') => {
    ok(await api.PATCH('/admin/customers/{domain}', { params: { path: { domain: params.domain } }, body: { status } }));
    setAsking(false);
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
    // A full load: the header's customer picker then lists customers opened since the console started.
    window.location.assign(customer.domain === me.identity.customer ? '/console' : `/console?${CUSTOMER_PARAM}=${encodeURIComponent(customer.domain)}`);
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
      <ErrorMessage error={loaded.error ?? (asking ? null : setStatus.error)} />
      <dl class="facts">
        <dt>Name</dt>
        <dd>{customer.name}</dd>
        <dt>Status</dt>
        <dd id="customer-status">{customer.status}</dd>
        <dt>CORS origins</dt>
        <dd>{customer.cors_origins.length ? customer.cors_origins.join(', ') : 'none: browsers on other sites may not call the API'}</dd>
        <dt>Sandbox</dt>
        <dd>{customer.is_sandbox ? 'yes' : 'no'}</dd>
        <dt>Devices</dt>
        <dd id="customer-devices">{counts.data ? counts.data.devices.toLocaleString() : '—'}</dd>
        <dt>Builds</dt>
        <dd>{counts.data ? counts.data.firmware.toLocaleString() : '—'}</dd>
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
            <button type="button" class="danger" disabled={setStatus.busy} onClick={() => setAsking(true)}>
              Suspend
            </button>
          ) : (
            <button type="button" class="primary" disabled={setStatus.busy} onClick={() => void setStatus.run('active')}>
              Reactivate
            </button>
          ))}
      </div>
      {asking && (
        <ConfirmDialog
          title={`Suspend ${customer.domain}?`}
          confirm={`Suspend ${customer.domain}`}
          busy={setStatus.busy}
          error={setStatus.error}
          onConfirm={() => void setStatus.run('suspended')}
          onCancel={() => setAsking(false)}
        >
          {counts.data ? (
            <p id="suspend-reach">
              Suspending it stops serving {count(counts.data.devices, 'device')} at once: every update check of theirs answers 404 until the customer is
              reactivated. Its API tokens stop working ({counts.data.active_tokens.toLocaleString()} active) and its people's sessions end.
            </p>
          ) : (
            <Reach counts={counts} />
          )}
          <p>Nothing is deleted: reactivating serves them again.</p>
        </ConfirmDialog>
      )}
      <p class="hint">
        “Act on” opens the customer's own pages (firmware, devices, members…) as an administrator: every request then carries{' '}
        <code>customer={customer.domain}</code>. Suspending stops its tokens and sessions and answers its update checks 404, until it is reactivated.
      </p>
      <h2>Members</h2>
      {members.length === 0 ? (
        <Empty>No members. Act on the customer and invite its people from its Members page.</Empty>
      ) : (
        <Table wrapClass="admin-table" label="Members" columns={['Email', 'Role', 'Status', 'Member since', 'Last login']}>
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
        </Table>
      )}
      {full && (
        <>
          <EditCustomerForm
            key={customer.updated_at}
            customer={customer}
            onSaved={(saved, note) => {
              setNotice(note);
              const renamed = `${customerPath(saved.domain)}?renamed=${encodeURIComponent(params.domain)}`;
              // Acting on the renamed customer: the address names it by its new domain from now on.
              if (saved.domain !== params.domain && me.customer === params.domain && me.customer !== me.identity.customer) me.actOn(saved.domain, renamed);
              else if (saved.domain !== params.domain) navigate(renamed, { replace: true });
              else loaded.reload();
            }}
          />
          <DeleteCustomerForm customer={customer} counts={counts} />
        </>
      )}
    </section>
  );
}
