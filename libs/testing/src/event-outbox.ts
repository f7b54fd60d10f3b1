import { sql } from '@app/infra';
import type { DataSource } from 'typeorm';

/**
 * For tests of a producing app: the audit entries or security events waiting in its outbox
 * table (OutboxRepository), oldest first. With a test bus that answers no AdminMessages.storeRecords
 * the relay never deletes them, so they are all there.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the payloads loosely, as the recording buses did
export async function outboxPayloads<P = Record<string, any>>(
  dataSource: DataSource,
  schema: 'identity' | 'registry' | 'firmware',
  kind: 'audit' | 'security_event',
): Promise<P[]> {
  const { rows } = await sql(dataSource, `SELECT payload FROM ${schema}.outbox WHERE kind = $1 ORDER BY seq`, [kind]);
  return rows.map((r) => JSON.parse(String(r.payload)) as P);
}

export async function clearOutbox(dataSource: DataSource, schema: 'identity' | 'registry' | 'firmware'): Promise<void> {
  await sql(dataSource, `DELETE FROM ${schema}.outbox`);
}
