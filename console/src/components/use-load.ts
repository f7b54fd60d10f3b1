import { useCallback, useEffect, useState } from 'preact/hooks';

export interface Loaded<T> {
  readonly data?: T;
  readonly error: unknown;
  readonly loading: boolean;
  readonly reload: () => void;
}

/** Loads when `key` changes (and on reload()); keeps the last data while loading again. */
export function useLoad<T>(load: () => Promise<T>, key: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error: unknown; loading: boolean }>({ error: null, loading: true });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => current && setState({ data, error: null, loading: false }),
      (error: unknown) => current && setState((previous) => ({ data: previous.data, error, loading: false })),
    );
    return () => {
      current = false;
    };
  }, [...key, generation]);
  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  return { ...state, reload };
}

/** Runs one action at a time (a form's submit): its error, whether it runs. */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<void>): { run: (...args: A) => Promise<void>; busy: boolean; error: unknown } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (...args: A) => {
    setBusy(true);
    setError(null);
    try {
      await action(...args);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error };
}

/**
 * Loads again `everyMs` after each load has ended, while `active` (a running rollout): the
 * next request starts only once the last one answered, so requests never overlap.
 */
export function useAutoRefresh(loaded: Pick<Loaded<unknown>, 'loading' | 'reload'>, everyMs: number, active: boolean): void {
  const { loading, reload } = loaded;
  useEffect(() => {
    if (!active || loading) return;
    const timer = setTimeout(reload, everyMs);
    return () => clearTimeout(timer);
  }, [active, loading, everyMs, reload]);
}

/** `value` once it has stopped changing for `ms` (a preview asked while a person types). */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
