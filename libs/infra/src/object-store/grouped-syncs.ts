/** A path's fsync under way, and the one that follows it for the callers that came meanwhile. */
interface PathSync {
  readonly running: Promise<void>;
  next: Promise<void> | null;
}

/**
 * fsyncs of a path shared by the callers that ask at the same time (a group commit). A sync
 * makes durable what was done to the path before the caller asked: concurrent uploads rename
 * into the same staging directory, and each directory fsync waits for a journal commit. A
 * caller arriving while one runs cannot count on it (it may have begun before the caller's
 * change), so it shares the next, started once the running one ends.
 */
export class GroupedSyncs {
  private readonly underWay = new Map<string, PathSync>();

  constructor(private readonly fsync: (path: string) => Promise<void>) {}

  sync(path: string): Promise<void> {
    const current = this.underWay.get(path);
    if (!current) return this.start(path);
    current.next ??= current.running.then(
      () => this.start(path),
      () => this.start(path),
    );
    return current.next;
  }

  private start(path: string): Promise<void> {
    const sync: PathSync = { running: this.fsync(path), next: null };
    this.underWay.set(path, sync);
    // Registered before any caller's `next`: the entry is gone when the next one starts.
    void sync.running.then(
      () => this.forget(path, sync),
      () => this.forget(path, sync),
    );
    return sync.running;
  }

  private forget(path: string, sync: PathSync): void {
    if (this.underWay.get(path) === sync) this.underWay.delete(path);
  }
}
