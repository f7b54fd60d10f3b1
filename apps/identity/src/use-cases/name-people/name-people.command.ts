import { CommonErrors, type CustomerId, PEOPLE_MAX_IDS, type RequestContext, requireTenant, UUID_UNANCHORED } from '@app/contracts';
import { requirePrincipal } from '../../domain/access.js';

const USER_ACTOR = new RegExp(`^user:(${UUID_UNANCHORED})$`, 'i');

/** GET /people: which `user:<id>` actors to name, for whom. */
export class NamePeopleCommand {
  private constructor(
    readonly customerId: CustomerId,
    /** Administrators may know every person; everyone else only the customer's members. */
    readonly anyPerson: boolean,
    /** Distinct user ids (lower-case), with the actor as asked. */
    readonly users: ReadonlyMap<string, string>,
  ) {}

  /** Throws 400 for an id that is not `user:<uuid>`, or for none or more than PEOPLE_MAX_IDS. */
  static create(input: { ctx: RequestContext; ids: unknown }): NamePeopleCommand {
    const { customer } = requireTenant(input.ctx);
    const principal = requirePrincipal(input.ctx);
    const ids = Array.isArray(input.ids) ? input.ids : [input.ids];
    if (ids.length === 0 || ids.length > PEOPLE_MAX_IDS) throw CommonErrors.invalid_request({ detail: `1 to ${PEOPLE_MAX_IDS} id parameters` });
    const users = new Map<string, string>();
    for (const id of ids) {
      const match = typeof id === 'string' ? USER_ACTOR.exec(id) : null;
      if (!match) throw CommonErrors.invalid_request({ detail: 'id must be user:<uuid>' });
      users.set(match[1].toLowerCase(), id as string);
    }
    return new NamePeopleCommand(customer.id, principal.admin !== '', users);
  }
}
