import { useState } from 'preact/hooks';
import { api, ok, type Paths } from '../../api/client';
import { createToken as limits } from '../../api/limits.gen';
import { useMe } from '../../app/identity';
import { Empty, ErrorMessage, Loading, Notice } from '../../components/feedback';
import { check, Field, inputLimits } from '../../components/form';
import { when } from '../../components/format';
import { Table } from '../../components/table';
import { useAction, useLoad } from '../../components/use-load';
import { Person } from '../../components/person';

type CreatedToken = Paths['/tokens']['post']['responses'][201]['content']['application/json'];
type Bundle = Paths['/tokens']['post']['requestBody']['content']['application/json']['bundle'];

const BUNDLE_TEXT: Record<Bundle, string> = {
  'read-only': 'Lists and downloads firmware, log files, devices, tags and statistics',
  uploader: 'Read-only plus uploading firmware and log files',
  full: 'Every read and write of the customer (not members, not administration)',
  admin: 'Everything on every customer (service administrators only)',
};
/** The bundles in the contract's order (limits.gen.ts); a bundle added there fails the type check until it has a text. */
const BUNDLES = limits.bundle.oneOf.map((bundle) => ({ bundle, text: BUNDLE_TEXT[bundle] }));

/** The token, shown once, with a copy button. */
function CreatedTokenBox({ created, onDone }: { created: CreatedToken; onDone: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.token);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser did not allow copying: select the token and copy it by hand.');
    }
  };
  return (
    <div class="token-once" role="region" aria-label="New token">
      <p>
        <strong>{created.name}</strong> is ready. Copy it now: the service stores only its id and will never show it again.
      </p>
      <code id="new-token">{created.token}</code>
      <div class="actions">
        <button type="button" class="primary" onClick={() => void copy()}>
          Copy token
        </button>
        <button type="button" onClick={onDone}>
          I have stored it
        </button>
        {copied && <span role="status">{copied}</span>}
      </div>
      <p class="hint">
        Use it as <code>Authorization: Bearer &lt;token&gt;</code>. Expires {when(created.expires_at)}.
      </p>
    </div>
  );
}

function CreateTokenForm({ onCreated }: { onCreated: (token: CreatedToken) => void }) {
  const me = useMe();
  const [name, setName] = useState('');
  const [bundle, setBundle] = useState<Bundle>('read-only');
  const [days, setDays] = useState('90');
  const [problem, setProblem] = useState<string | null>(null);
  const offered = BUNDLES.filter((b) => b.bundle !== 'admin' || me.identity.admin === 'full');
  const create = useAction(async () => {
    const expires = Number(days);
    const invalid = check(limits.name, name.trim()) ?? check(limits.expires_in_days, expires);
    setProblem(invalid);
    if (invalid) return;
    onCreated(ok(await api.POST('/tokens', { body: { name: name.trim(), bundle, expires_in_days: expires } })));
    setName('');
  });
  return (
    <form
      class="panel"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void create.run();
      }}
    >
      <h2>Create a token</h2>
      <div class="form-grid">
        <Field label="Name" hint="Where it is used, e.g. build server">
          <input name="name" value={name} required {...inputLimits(limits.name)} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <Field label="Bundle" hint={`${BUNDLES.find((b) => b.bundle === bundle)?.text ?? ''}. Never more than you may do.`}>
          <select name="bundle" value={bundle} onChange={(e) => setBundle(e.currentTarget.value as Bundle)}>
            {offered.map((b) => (
              <option key={b.bundle} value={b.bundle}>
                {b.bundle}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Lifetime in days" hint="1 to 365; 90 when unsure">
          <input name="days" type="number" value={days} required {...inputLimits(limits.expires_in_days)} onInput={(e) => setDays(e.currentTarget.value)} />
        </Field>
      </div>
      <div class="actions">
        <button type="submit" class="primary" disabled={create.busy}>
          Create token
        </button>
      </div>
      <ErrorMessage error={problem ?? create.error} />
    </form>
  );
}

/** API tokens: create one (shown once), the list with status and last use, revoke. */
export function TokensPage() {
  const me = useMe();
  const tokens = useLoad(async () => ok(await api.GET('/tokens')).items, []);
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const revoke = useAction(async (id: string, name: string) => {
    ok(await api.DELETE('/tokens/{id}', { params: { path: { id } } }));
    setNotice(`${name} is revoked: it stops working within 30 seconds.`);
    tokens.reload();
  });
  return (
    <section>
      <h1>API tokens</h1>
      <p class="hint">
        Programs use tokens instead of a login.{' '}
        {me.can('members:manage') ? 'As an owner you see every token of the customer.' : 'You see the tokens you created.'}
      </p>
      {created ? (
        <CreatedTokenBox created={created} onDone={() => setCreated(null)} />
      ) : (
        <CreateTokenForm
          onCreated={(token) => {
            setCreated(token);
            setNotice(null);
            tokens.reload();
          }}
        />
      )}
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={tokens.error ?? revoke.error} />
      <h2>Tokens</h2>
      {tokens.data === undefined ? (
        tokens.loading && <Loading what="tokens" />
      ) : tokens.data.length === 0 ? (
        <Empty>No tokens yet. Create one above for a build server or a script.</Empty>
      ) : (
        <Table columns={['Name', 'Bundle', 'Status', 'Created', 'Expires', 'Last used', 'Created by', { label: 'Action', hidden: true }]}>
          {tokens.data.map((token) => (
            <tr key={token.id}>
              <td>{token.name}</td>
              <td>{token.bundle}</td>
              <td class={`status-${token.status}`}>{token.status}</td>
              <td>{when(token.created_at)}</td>
              <td>{when(token.expires_at)}</td>
              <td>{token.last_used_at ? when(token.last_used_at) : 'never'}</td>
              <td>
                <Person actor={token.created_by} />
              </td>
              <td>
                {token.status === 'active' && (
                  <button
                    type="button"
                    class="danger"
                    disabled={revoke.busy}
                    aria-label={`Revoke ${token.name}`}
                    onClick={() => void revoke.run(token.id, token.name)}
                  >
                    Revoke
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
