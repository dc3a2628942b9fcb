import { createContext, useCallback, useContext, useMemo, useState } from 'react';
import type { ReactNode } from 'react';
import { useSearch } from 'wouter';
import { inspectorRegistry } from './registry';
import type { InspectorRegistry } from './registry';

/** `?inspect=1` (or `true`) on the URL the app is loaded with opens the inspector. */
export const INSPECT_QUERY_PARAMETER = 'inspect';

export function wantsInspector(search: string): boolean {
  const value = new URLSearchParams(search).get(INSPECT_QUERY_PARAMETER);
  return value === '1' || value === 'true';
}

export interface InspectorControls {
  opened: boolean;
  open: () => void;
  close: () => void;
  /** The registry the panel shows. */
  registry: InspectorRegistry;
}

const InspectorContext = createContext<InspectorControls | null>(null);

interface InspectorProviderProps {
  /** Open from the start; by default when the URL has `?inspect=1`. */
  initiallyOpen?: boolean;
  registry?: InspectorRegistry;
  children: ReactNode;
}

/** Whether the state inspector panel is open; mounted once by the app shell. Must sit inside the Router. */
export function InspectorProvider({ initiallyOpen, registry = inspectorRegistry, children }: InspectorProviderProps) {
  const search = useSearch();
  const [opened, setOpened] = useState(() => initiallyOpen ?? wantsInspector(search));
  const open = useCallback(() => setOpened(true), []);
  const close = useCallback(() => setOpened(false), []);
  const controls = useMemo(() => ({ opened, open, close, registry }), [opened, open, close, registry]);
  return <InspectorContext value={controls}>{children}</InspectorContext>;
}

/** The inspector's controls, or null outside an InspectorProvider (a component rendered alone). */
export function useInspector(): InspectorControls | null {
  return useContext(InspectorContext);
}
