import { Inject, Injectable } from '@nestjs/common';
import { type AuditEntryView, type AuditPage, IdentityMessages, SERVICE_ADMINISTRATOR, UUID_UNANCHORED } from '@app/contracts';
import { JsonLogger, MessageBus } from '@app/infra';
import { type ListedAuditRow } from '../../repositories/audit.repository.js';
import { ListAuditCommand } from './list-audit.command.js';
import { AdminStore } from '../../repositories/admin.store.js';

/** How long a page waits for the actors' emails; past it the page is answered without them. */
const EMAILS_TIMEOUT_MS = 2_000;
const USER_ACTOR = new RegExp(`^(?:admin:)?user:(${UUID_UNANCHORED})$`, 'i');

/**
 * A page of the audit log, newest first, with the email of each person who acted (asked of
 * identity once per page). A customer's members see every administrator as SERVICE_ADMINISTRATOR,
 * in `actor` and wherever the administrator's id appears in `before`/`after`.
 */
@Injectable()
export class ListAudit {
  private readonly logger = new JsonLogger('admin');

  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  async execute(command: ListAuditCommand): Promise<AuditPage> {
    if (command.matchesNothing) return { items: [], next_offset: null, next_cursor: null };
    const { audience, filter } = command;
    const rows =
      audience.kind === 'customer'
        ? await this.adminStore.repos.audit.listOfCustomer({ ...filter, customer: audience.customer })
        : await this.adminStore.repos.audit.list({ ...filter, domain: audience.domain });
    const more = rows.length > filter.limit;
    const page = more ? rows.slice(0, filter.limit) : rows;
    const entries = audience.kind === 'customer' ? page.map(asMembersSeeIt) : page;
    const emails = await this.emailsOf(entries);
    return {
      items: entries.map((row) => view(row, emails)),
      next_offset: more ? filter.offset + filter.limit : null,
      next_cursor: more ? ListAuditCommand.cursorAfter(page[page.length - 1]) : null,
    };
  }

  /** The emails behind the page's `user:<id>` actors; none when identity does not answer (the page still shows the ids). */
  private async emailsOf(rows: readonly ListedAuditRow[]): Promise<Map<string, string>> {
    const ids = [...new Set(rows.map((row) => USER_ACTOR.exec(row.actor)?.[1]?.toLowerCase()).filter((id): id is string => id !== undefined))];
    if (ids.length === 0) return new Map();
    try {
      const { emails } = await this.bus.send(IdentityMessages.userEmails, { ids }, { timeoutMs: EMAILS_TIMEOUT_MS });
      return new Map(Object.entries(emails));
    } catch (err) {
      this.logger.warn('audit page listed without emails: identity did not answer', { error: err instanceof Error ? err.message : String(err) });
      return new Map();
    }
  }
}

function view(row: ListedAuditRow, emails: ReadonlyMap<string, string>): AuditEntryView {
  const userId = USER_ACTOR.exec(row.actor)?.[1]?.toLowerCase();
  return {
    ts: row.ts,
    domain: row.domain,
    actor: row.actor,
    actor_email: (userId && emails.get(userId)) || null,
    action: row.action,
    target_type: row.target_type,
    target_id: row.target_id,
    before: row.before ?? {},
    after: row.after ?? {},
  };
}

/** An administrator's entry as the customer's members see it: the administrator's identity replaced. */
function asMembersSeeIt(row: ListedAuditRow): ListedAuditRow {
  if (!row.actor.startsWith('admin:')) return row;
  const identities = new Set([row.actor, row.actor.slice('admin:'.length)]);
  return { ...row, actor: SERVICE_ADMINISTRATOR, before: withoutIdentities(row.before, identities), after: withoutIdentities(row.after, identities) };
}

function withoutIdentities<T>(value: T, identities: ReadonlySet<string>): T {
  if (typeof value === 'string') return (identities.has(value) ? SERVICE_ADMINISTRATOR : value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => withoutIdentities(item, identities)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutIdentities(item, identities)])) as T;
  }
  return value;
}
