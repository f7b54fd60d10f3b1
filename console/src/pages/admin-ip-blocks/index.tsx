import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { adminCreateIpBlock as limits } from '../../api/limits.gen';
import { ApiError } from '../../api/problem';
import { useQueryState } from '../../app/router';
import { ConfirmDialog } from '../../components/confirm';
import { Table } from '../../components/table';
import { ReadOnlyNote, StatusBadge, useFullAdmin } from '../../components/admin';
import { Empty, ErrorMessage, Loading, Notice } from '../../components/feedback';
import { check, Field, inputLimits, PanelForm } from '../../components/form';
import { when } from '../../components/format';
import { Person } from '../../components/person';
import { useAction, useLoad } from '../../components/use-load';

/** Lifetimes offered for a block, in seconds ('' is permanent). */
const LIFETIMES: readonly { seconds: string; text: string }[] = [
  { seconds: '3600', text: '1 hour' },
  { seconds: '86400', text: '1 day' },
  { seconds: '604800', text: '7 days' },
  { seconds: '2592000', text: '30 days' },
  { seconds: '', text: 'permanent' },
];

/** The service refuses a block that covers the caller's own address (409, code ip_block_own_address) until it is confirmed (docs/api.md). */
const OWN_ADDRESS_REFUSED = 'ip_block_own_address';

function AddBlockForm({ onAdded }: { onAdded: (note: string) => void }) {
  const [cidr, setCidr] = useState('');
  const [reason, setReason] = useState('');
  const [ttl, setTtl] = useState('86400');
  const [problem, setProblem] = useState<string | null>(null);
  /** The service's refusal of a block of the caller's own address, while the dialog asks. */
  const [ownAddress, setOwnAddress] = useState<string | null>(null);
  const add = useAction(async (confirmOwnAddress: boolean) => {
    const body = { cidr: cidr.trim(), reason: reason.trim() || undefined, ttl_seconds: ttl ? Number(ttl) : undefined };
    const invalid =
      check(limits.cidr, body.cidr) ??
      (body.reason === undefined ? null : check(limits.reason, body.reason)) ??
      (body.ttl_seconds === undefined ? null : check(limits.ttl_seconds, body.ttl_seconds));
    setProblem(invalid);
    if (invalid) return;
    let block;
    try {
      block = ok(await api.POST('/admin/ip-blocks', { body: confirmOwnAddress ? { ...body, confirm_own_address: true } : body }));
    } catch (err) {
      if (!confirmOwnAddress && err instanceof ApiError && err.code === OWN_ADDRESS_REFUSED) {
        // The service's first sentence; its second tells API callers which field confirms ("Block anyway" here).
        setOwnAddress(`${err.message.split('. ')[0]}.`);
        return;
      }
      throw err;
    }
    setOwnAddress(null);
    setCidr('');
    setReason('');
    const until = block.expires_at ? `until ${when(block.expires_at)}` : 'until it is removed';
    onAdded(
      confirmOwnAddress
        ? `${block.cidr} is blocked ${until}, your own address included: from now on this service refuses every request from it, this console's too. Another administrator can remove the block from another address.`
        : `${block.cidr} is blocked ${until}: it gets 403 on every endpoint, at once (on every gateway within 2 s).`,
    );
  });
  return (
    <PanelForm
      title="Block an address or network"
      submit="Block"
      disabled={add.busy}
      onSubmit={() => void add.run(false)}
      error={problem ?? (ownAddress === null ? add.error : null)}
      after={
        <p class="hint">
          Blocking a network that is already blocked replaces its block (reason and expiry). A block that covers the address you are using asks you first: it
          would lock you out.
        </p>
      }
    >
      <Field label="Address or CIDR network" hint="e.g. 203.0.113.7 or 2001:db8::/32">
        <input name="cidr" value={cidr} required {...inputLimits(limits.cidr)} onInput={(e) => setCidr(e.currentTarget.value)} />
      </Field>
      <Field label="Reason" hint="Why, for the other administrators">
        <input name="reason" value={reason} {...inputLimits(limits.reason)} onInput={(e) => setReason(e.currentTarget.value)} />
      </Field>
      <Field label="For how long">
        <select name="ttl" value={ttl} onChange={(e) => setTtl(e.currentTarget.value)}>
          {LIFETIMES.map((l) => (
            <option key={l.text} value={l.seconds}>
              {l.text}
            </option>
          ))}
        </select>
      </Field>
      {ownAddress !== null && (
        <ConfirmDialog
          title="Block your own address?"
          confirm="Block anyway"
          busy={add.busy}
          error={add.error}
          onConfirm={() => void add.run(true)}
          onCancel={() => setOwnAddress(null)}
        >
          <p id="own-address">{ownAddress}</p>
          <p>
            Once blocked, this console stops working from the address you are using at once: every page and every request answers “address blocked”. Another
            administrator from another address, or an operator on the server, can remove the block{ttl ? '; it also ends by itself' : ''}.
          </p>
        </ConfirmDialog>
      )}
    </PanelForm>
  );
}

/** IP blocks: the active ones (or all, expired included), add with a reason and lifetime, remove. */
export function AdminIpBlocksPage() {
  const full = useFullAdmin();
  const [query, setQuery] = useQueryState();
  const all = query.get('all') === 'true';
  const [notice, setNotice] = useState<string | null>(null);
  const blocks = useLoad(async () => ok(await api.GET('/admin/ip-blocks', { params: { query: { all: all || undefined } } })).items, [all]);
  const remove = useAction(async (cidr: string) => {
    ok(await api.DELETE('/admin/ip-blocks', { params: { query: { cidr } } }));
    setNotice(`The block of ${cidr} is removed.`);
    blocks.reload();
  });
  const now = Date.now();
  return (
    <section>
      <h1>IP blocks</h1>
      <ReadOnlyNote />
      <p class="hint">A blocked address gets 403 “address blocked” on every endpoint, public ones included. Blocks work during maintenance too.</p>
      {full && (
        <AddBlockForm
          onAdded={(note) => {
            setNotice(note);
            blocks.reload();
          }}
        />
      )}
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={blocks.error ?? remove.error} />
      <h2>Blocks</h2>
      <Field label="Include expired blocks" inline>
        <input name="all" type="checkbox" checked={all} onChange={(e) => setQuery({ all: e.currentTarget.checked ? 'true' : null })} />
      </Field>
      {blocks.data === undefined ? (
        blocks.loading && <Loading what="IP blocks" />
      ) : blocks.data.length === 0 ? (
        <Empty>No address is blocked. Block one above when the security events show an attacker.</Empty>
      ) : (
        <Table
          wrapClass="admin-table"
          label="IP blocks"
          id="ip-blocks"
          columns={['Network', 'Reason', 'Until', 'By', 'Since', ...(full ? [{ label: 'Action', hidden: true }] : [])]}
        >
          {blocks.data.map((block) => (
            <tr key={block.cidr}>
              <td class="mono">{block.cidr}</td>
              <td class="cell-wrap">{block.reason ?? '—'}</td>
              <td>
                {block.expires_at ? when(block.expires_at) : 'permanent'}{' '}
                {block.expires_at && Date.parse(block.expires_at) <= now && <StatusBadge status="expired" />}
              </td>
              <td>
                <Person actor={block.created_by} />
              </td>
              <td>{when(block.created_at)}</td>
              {full && (
                <td>
                  <button type="button" disabled={remove.busy} aria-label={`Remove the block of ${block.cidr}`} onClick={() => void remove.run(block.cidr)}>
                    Remove
                  </button>
                </td>
              )}
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
