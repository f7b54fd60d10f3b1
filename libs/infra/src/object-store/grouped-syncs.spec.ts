import { describe, expect, it } from '@jest/globals';
import { GroupedSyncs } from './grouped-syncs.js';

/** A stand-in for the operating system's fsync: each call waits until the test ends it. */
function fakeFsync() {
  const calls: { path: string; end: () => void; fail: (err: Error) => void }[] = [];
  const fsync = (path: string) =>
    new Promise<void>((resolve, reject) => {
      calls.push({ path, end: resolve, fail: reject });
    });
  return { calls, fsync };
}

const settled = async (promise: Promise<void>): Promise<boolean> => {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('GroupedSyncs', () => {
  it('starts an fsync for a lone caller and answers when it ends', async () => {
    const os = fakeFsync();
    const syncs = new GroupedSyncs(os.fsync);
    const first = syncs.sync('/d');
    expect(os.calls.map((c) => c.path)).toEqual(['/d']);
    expect(await settled(first)).toBe(false);
    os.calls[0].end();
    expect(await settled(first)).toBe(true);
  });

  it('gives the callers that come while one runs one shared fsync, started after the running one', async () => {
    const os = fakeFsync();
    const syncs = new GroupedSyncs(os.fsync);
    const first = syncs.sync('/d');
    const later = [syncs.sync('/d'), syncs.sync('/d'), syncs.sync('/d')];
    expect(os.calls).toHaveLength(1); // the running fsync may predate their changes: not theirs
    os.calls[0].end();
    expect(await settled(first)).toBe(true);
    expect(await settled(later[0])).toBe(false);
    expect(os.calls).toHaveLength(2);
    os.calls[1].end();
    for (const caller of later) expect(await settled(caller)).toBe(true);
    expect(os.calls).toHaveLength(2);
  });

  it('keeps paths apart, and starts afresh once nothing is under way', async () => {
    const os = fakeFsync();
    const syncs = new GroupedSyncs(os.fsync);
    const a = syncs.sync('/a');
    const b = syncs.sync('/b');
    expect(os.calls.map((c) => c.path)).toEqual(['/a', '/b']);
    os.calls[0].end();
    os.calls[1].end();
    expect((await settled(a)) && (await settled(b))).toBe(true);
    void syncs.sync('/a');
    expect(os.calls.map((c) => c.path)).toEqual(['/a', '/b', '/a']);
  });

  it('runs the next fsync even when the one before it failed', async () => {
    const os = fakeFsync();
    const syncs = new GroupedSyncs(os.fsync);
    const first = syncs.sync('/d');
    const second = syncs.sync('/d');
    os.calls[0].fail(new Error('EIO'));
    await expect(first).rejects.toThrow('EIO');
    expect(os.calls).toHaveLength(2);
    os.calls[1].end();
    await expect(second).resolves.toBeUndefined();
  });
});
