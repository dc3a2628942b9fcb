import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useMemo, useState } from 'react';
import type { ReactNode } from 'react';
import { useApi } from '../../api/ApiContext';
import { toastError } from '../../notifications/toast';
import { KEY_NUMBER_SAVE_FAILURE, keyNumbersApi, keyNumbersKey, keyOf, type KeyNumber, type KeyNumberRef } from './keyNumbersApi';

/**
 * The report's key numbers, shared by the strip above the sections and each section's menu
 * item (spec: key numbers are toggled by add and delete), so a number added from a menu shows
 * in the strip at once.
 */
export interface KeyNumbersState {
  /** null while loading (or when they could not be read). */
  items: KeyNumber[] | null;
  failed: boolean;
  /** Whether this reader may add and remove them (`can_edit`). */
  canEdit: boolean;
  /** The refs whose change is under way (their buttons wait). */
  pending: readonly string[];
  has(ref: KeyNumberRef): boolean;
  /** Adds or removes; a failure is toasted and changes nothing. */
  add(ref: KeyNumberRef): Promise<void>;
  remove(ref: KeyNumberRef): Promise<void>;
}

const KeyNumbersContext = createContext<KeyNumbersState | null>(null);

interface KeyNumbersProviderProps {
  secret: string;
  canEdit: boolean;
  /** The public demo: read only (the server lists a demo report's key numbers to anyone). */
  demo?: boolean;
  children: ReactNode;
}

export function KeyNumbersProvider({ secret, canEdit, demo = false, children }: KeyNumbersProviderProps) {
  const client = useApi();
  const calls = useMemo(() => keyNumbersApi(client, secret), [client, secret]);
  const queryClient = useQueryClient();
  const key = useMemo(() => keyNumbersKey(secret), [secret]);
  const query = useQuery({ queryKey: key, queryFn: ({ signal }) => calls.list(signal) });
  const items = query.data ?? null;
  const failed = query.isError && !query.isFetching && !query.data;
  const [pending, setPending] = useState<string[]>([]);
  const setItems = useCallback((change: (current: KeyNumber[] | undefined) => KeyNumber[] | undefined) => queryClient.setQueryData<KeyNumber[]>(key, change), [queryClient, key]);

  const change = useCallback(async (ref: KeyNumberRef, run: () => Promise<void>) => {
    const key = keyOf(ref);
    setPending((current) => [...current, key]);
    try {
      await run();
    } catch {
      toastError(KEY_NUMBER_SAVE_FAILURE);
    } finally {
      setPending((current) => current.filter((candidate) => candidate !== key));
    }
  }, []);

  const add = useCallback(
    (ref: KeyNumberRef) =>
      change(ref, async () => {
        const list = await calls.add(ref);
        setItems(() => list);
      }),
    [calls, change, setItems],
  );
  const remove = useCallback(
    (ref: KeyNumberRef) =>
      change(ref, async () => {
        await calls.remove(ref);
        setItems((current) => current?.filter((item) => keyOf(item) !== keyOf(ref)) ?? current);
      }),
    [calls, change, setItems],
  );
  const has = useCallback((ref: KeyNumberRef) => items?.some((item) => keyOf(item) === keyOf(ref)) ?? false, [items]);

  const value = useMemo(() => ({ items, failed, canEdit: canEdit && !demo, pending, has, add, remove }), [items, failed, canEdit, demo, pending, has, add, remove]);
  return <KeyNumbersContext value={value}>{children}</KeyNumbersContext>;
}

/** The report's key numbers; null outside a report page. */
export function useKeyNumbers(): KeyNumbersState | null {
  return useContext(KeyNumbersContext);
}
