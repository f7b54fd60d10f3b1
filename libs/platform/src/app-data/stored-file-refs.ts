import { type StoredFileRef } from '@app/contracts';
import type { ObjectStore } from '@app/infra';
import { StringDecoder } from 'node:string_decoder';

/**
 * The stored files an export listed (AppDataExportReply.filesObjectKey), one at a time: the
 * list can be long, so it is read as a stream, never whole. Throws when the list is missing.
 */
export async function* readStoredFileRefs(store: ObjectStore, filesObjectKey: string): AsyncGenerator<StoredFileRef> {
  const body = await store.get(filesObjectKey);
  if (!body) throw new Error(`no stored-file list at ${filesObjectKey}`);
  const decoder = new StringDecoder('utf8');
  let partial = '';
  try {
    for await (const chunk of body) {
      const lines = (partial + decoder.write(chunk as Buffer)).split('\n');
      partial = lines.pop()!;
      for (const line of lines) if (line.trim()) yield storedFileRef(filesObjectKey, line);
    }
    partial += decoder.end();
    if (partial.trim()) yield storedFileRef(filesObjectKey, partial);
  } finally {
    body.destroy();
  }
}

function storedFileRef(listKey: string, line: string): StoredFileRef {
  let value: Partial<StoredFileRef> | null = null;
  try {
    value = JSON.parse(line) as Partial<StoredFileRef>;
  } catch {
    // reported below with the line
  }
  if (typeof value?.key !== 'string' || !Number.isSafeInteger(value.size) || value.size! < 0)
    throw new Error(`${listKey}: not a stored-file line: ${line.slice(0, 200)}`);
  return { key: value.key, size: value.size! };
}
