import { useCallback, useEffect, useState } from 'react';
import type { FetchState } from './types';

/**
 * What `load` answers, fetched when the component mounts or `load` changes: loading, loaded or
 * failed. `reload` fetches again (Try again); `update` changes what was loaded (a deleted
 * report leaves the list). A superseded request is aborted and never reported.
 */
export function useFetched<T>(load: (signal: AbortSignal) => Promise<T>) {
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<FetchState<T>>({ status: 'loading' });

  useEffect(() => {
    const controller = new AbortController();
    load(controller.signal)
      .then((data) => setState({ status: 'loaded', data }))
      .catch(() => {
        if (!controller.signal.aborted) setState({ status: 'failed' });
      });
    return () => controller.abort();
  }, [load, attempt]);

  const reload = useCallback(() => {
    setState({ status: 'loading' });
    setAttempt((count) => count + 1);
  }, []);
  const update = useCallback((change: (data: T) => T) => {
    setState((current) => (current.status === 'loaded' ? { status: 'loaded', data: change(current.data) } : current));
  }, []);
  return { state, reload, update };
}
