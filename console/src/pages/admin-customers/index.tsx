import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { adminCreateCustomer as limits } from '../../api/limits.gen';
import { Link, navigate } from '../../app/router';
import { Empty, ErrorMessage, Loading } from '../../components/feedback';
import { Table } from '../../components/table';
import { ReadOnlyNote, StatusBadge, useFullAdmin } from '../../components/admin';
import { check, Field, inputLimits, PanelForm } from '../../components/form';
import { bytes, when } from '../../components/format';
import { useAction, useLoad } from '../../components/use-load';
import { checkEmail, customerPath, originsOf } from './shared';

function CreateCustomerForm() {
  const [domain, setDomain] = useState('');
  const [name, setName] = useState('');
  const [owner, setOwner] = useState('');
  const [origins, setOrigins] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const create = useAction(async () => {
    const body = { domain: domain.trim(), name: name.trim() || undefined, owner_email: owner.trim() || undefined, cors_origins: originsOf(origins) };
    const invalid =
      check(limits.domain, body.domain) ??
      (body.name === undefined ? null : check(limits.name, body.name)) ??
      (body.owner_email === undefined ? null : checkEmail(body.owner_email)) ??
      check(limits.cors_origins, body.cors_origins);
    setProblem(invalid);
    if (invalid) return;
    const { customer } = ok(await api.POST('/admin/customers', { body }));
    navigate(customerPath(customer.domain) + '?created=1');
  });
  return (
    <PanelForm
      title="Open a customer"
      submit="Open customer"
      disabled={create.busy}
      onSubmit={() => void create.run()}
      error={problem ?? create.error}
      after={
        <Field label="CORS origins" hint="One per line, e.g. https://fleet.example.com: web pages on these origins may call the API">
          <textarea name="cors_origins" rows={2} value={origins} onInput={(e) => setOrigins(e.currentTarget.value)} />
        </Field>
      }
    >
      <Field label="Domain" hint="Lower-case DNS name; devices use it in the update check">
        <input name="domain" value={domain} required {...inputLimits(limits.domain)} onInput={(e) => setDomain(e.currentTarget.value)} />
      </Field>
      <Field label="Name" hint="Shown to people; the domain when empty">
        <input name="name" value={name} {...inputLimits(limits.name)} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field label="First owner's email" hint="Invited by mail as the customer's owner">
        <input name="owner_email" type="email" value={owner} {...inputLimits(limits.owner_email)} onInput={(e) => setOwner(e.currentTarget.value)} />
      </Field>
    </PanelForm>
  );
}

/** Every customer with what it stores; open one, or its page. */
export function AdminCustomersPage() {
  const full = useFullAdmin();
  const customers = useLoad(async () => ok(await api.GET('/admin/customers')).items, []);
  const [filter, setFilter] = useState('');
  const shown = (customers.data ?? []).filter((c) => !filter || c.domain.includes(filter.toLowerCase()) || c.name.toLowerCase().includes(filter.toLowerCase()));
  return (
    <section>
      <h1>Customers</h1>
      <ReadOnlyNote />
      {full && <CreateCustomerForm />}
      <h2>All customers</h2>
      <Field label="Find" inline>
        <input type="search" name="find" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
      </Field>
      <ErrorMessage error={customers.error} />
      {customers.data === undefined ? (
        customers.loading && <Loading what="customers" />
      ) : shown.length === 0 ? (
        <Empty>{filter ? `No customer matches “${filter}”.` : 'No customers yet. Open one above with its first owner.'}</Empty>
      ) : (
        <Table
          wrapClass="admin-table"
          label="Customers"
          id="customers"
          columns={[
            'Domain',
            'Name',
            'Status',
            { label: 'Builds', num: true },
            { label: 'Devices', num: true },
            { label: 'Log files', num: true },
            { label: 'Tags', num: true },
            { label: 'Active tokens', num: true },
            { label: 'Stored', num: true },
            'Created',
          ]}
        >
          {shown.map((c) => (
            <tr key={c.domain}>
              <td>
                <Link href={customerPath(c.domain)}>{c.domain}</Link>
                {c.is_sandbox && <span class="hint"> (sandbox)</span>}
              </td>
              <td>{c.name}</td>
              <td>
                <StatusBadge status={c.status} />
              </td>
              <td class="num">{c.counts.firmware}</td>
              <td class="num">{c.counts.devices}</td>
              <td class="num">{c.counts.logdata}</td>
              <td class="num">{c.counts.tags}</td>
              <td class="num">{c.counts.active_tokens}</td>
              <td class="num">{bytes(c.counts.stored_bytes)}</td>
              <td>{when(c.created_at)}</td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
