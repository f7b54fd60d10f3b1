import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import { session } from '../api/session';

/** A person as lists carry them (`user:<uuid>`, or `admin:user:<uuid>` for an administrator's action). */
const USER_ACTOR = /^(admin:)?(user:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
/** GET /people takes at most this many ids at once. */
const PEOPLE_PER_REQUEST = 100;

/** Emails asked for or known, per customer acted on (members differ by customer): null when the service names nobody. */
const known = new Map<string, Promise<string | null>>();
let waiting: { key: string; id: string; resolve: (email: string | null) => void }[] = [];

/** Sends the ids asked for during one render as few GET /people requests as possible. */
function flush(): void {
  const batch = waiting;
  waiting = [];
  for (let start = 0; start < batch.length; start += PEOPLE_PER_REQUEST) {
    const part = batch.slice(start, start + PEOPLE_PER_REQUEST);
    const ids = [...new Set(part.map((entry) => entry.id))];
    api.GET('/people', { params: { query: { id: ids } } }).then(
      (result) => {
        const emails = new Map(ok(result).items.map((person) => [person.id, person.email]));
        for (const entry of part) entry.resolve(emails.get(entry.id) ?? null);
      },
      () => {
        // The ids stay shown as they are; asked again on the next page.
        for (const entry of part) {
          known.delete(entry.key);
          entry.resolve(null);
        }
      },
    );
  }
}

function emailOf(id: string): Promise<string | null> {
  const key = `${session.customer ?? ''} ${id}`;
  let email = known.get(key);
  if (!email) {
    email = new Promise((resolve) => {
      if (waiting.length === 0) setTimeout(flush, 0);
      waiting.push({ key, id, resolve });
    });
    known.set(key, email);
  }
  return email;
}

/**
 * Who did something (a token's creator, a build's uploader…): the person's email where the
 * service names them (GET /people: members of the customer, anyone for administrators), else
 * the actor as stored (`token:<id>`, `system`, a person the caller may not know). The stored
 * actor stays in the title.
 */
export function Person({ actor }: { actor: string }) {
  const match = USER_ACTOR.exec(actor);
  const [email, setEmail] = useState<string | null>(null);
  useEffect(() => {
    setEmail(null);
    if (!match) return;
    let current = true;
    void emailOf(match[2].toLowerCase()).then((found) => current && setEmail(found));
    return () => {
      current = false;
    };
  }, [actor]);
  if (!match || email === null) return <span class="mono">{actor}</span>;
  return (
    <span class="person" title={actor}>
      {email}
      {match[1] ? ' (administrator)' : ''}
    </span>
  );
}
