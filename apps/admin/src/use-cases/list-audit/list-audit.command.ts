import { AdminErrors, AUDIT_CURSOR_PATTERN, type AuditQuery, type CustomerAuditQuery, type CustomerRef, SERVICE_ADMINISTRATOR } from '@app/contracts';
import type { AuditFilter, AuditPosition } from '../../repositories/audit.repository.js';
import { instant } from '../../dtos/range-bound.js';

const CURSOR = new RegExp(AUDIT_CURSOR_PATTERN);
const MAX_LIMIT = 1000;

/** Whose entries a list shows: every customer's (administrators), or one customer's as its members see them. */
export type AuditAudience = { readonly kind: 'administrators'; readonly domain?: string } | { readonly kind: 'customer'; readonly customer: CustomerRef };

/** GET /admin/audit and GET /audit: the filters checked and parsed (docs/api.md "The audit log"). */
export class ListAuditCommand {
  private constructor(
    readonly audience: AuditAudience,
    readonly filter: AuditFilter,
    /** The customer asked for an administrator by id: nothing can match (administrators' ids are not shown to customers). */
    readonly matchesNothing: boolean,
  ) {}

  static forAdministrators(query: AuditQuery | undefined): ListAuditCommand {
    const domain = query?.domain?.trim().toLowerCase() || undefined;
    return new ListAuditCommand({ kind: 'administrators', domain }, filterOf(query ?? {}, query?.actor), false);
  }

  /** `actor=service administrator` lists the administrators' actions. */
  static forCustomer(customer: CustomerRef, query: CustomerAuditQuery | undefined): ListAuditCommand {
    const actor = query?.actor;
    const administrators = actor === SERVICE_ADMINISTRATOR;
    const filter = filterOf(query ?? {}, administrators ? undefined : actor);
    return new ListAuditCommand({ kind: 'customer', customer }, administrators ? { ...filter, administrators } : filter, actor?.startsWith('admin:') ?? false);
  }

  /** The cursor of the page after one ending with `last`. */
  static cursorAfter(last: AuditPosition): string {
    return `${Date.parse(last.ts)}-${last.id}`;
  }
}

function filterOf(query: Partial<Omit<CustomerAuditQuery, 'customer'>>, actor: string | undefined): AuditFilter {
  const from = instant(query.from, 'from', undefined, false);
  const to = instant(query.to, 'to', undefined, true);
  if (from && to && from > to) throw AdminErrors.range_reversed();
  const limit = query.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw AdminErrors.audit_limit_invalid({ max: MAX_LIMIT });
  const offset = query.offset ?? 0;
  if (!Number.isSafeInteger(offset) || offset < 0) throw AdminErrors.audit_offset_invalid({ max: Number.MAX_SAFE_INTEGER });
  return {
    action: query.action,
    actor,
    targetType: query.target_type,
    targetId: query.target_id,
    from,
    to,
    before: query.cursor === undefined ? undefined : positionOf(query.cursor),
    limit,
    offset,
  };
}

function positionOf(cursor: string): AuditPosition {
  const match = CURSOR.test(cursor) ? /^(\d+)-(\d+)$/.exec(cursor) : null;
  const ms = match ? Number(match[1]) : NaN;
  if (!match || !Number.isSafeInteger(ms) || ms > 8.64e15) throw AdminErrors.audit_cursor_invalid();
  return { ts: new Date(ms).toISOString(), id: match[2] };
}
