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
      for (const line of lines) if (line) yield storedFileRef(line);
    }
    partial += decoder.end();
    if (partial) yield storedFileRef(partial);
  } finally {
    body.destroy();
  }
}

function storedFileRef(line: string): StoredFileRef {
  const value = JSON.parse(line) as Partial<StoredFileRef>;
  if (typeof value?.key !== 'string' || typeof value.size !== 'number') throw new Error('bad line in a stored-file list');
  return { key: value.key, size: value.size };
}
