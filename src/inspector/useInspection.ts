import { useEffect, useState } from 'react';
import type { InspectionEvent } from 'xstate';
import { inspectorRegistry } from './registry';

/**
 * Registers the machine a view runs with the state inspector:
 * `useActorRef(machine, { inspect: useInspection('csvImport') })`. The actor's trace stays in
 * the inspector after the view is gone (marked not live).
 */
export function useInspection(name: string, options: { importIdOf?: (context: unknown) => string | null | undefined } = {}): (event: InspectionEvent) => void {
  const [tracker] = useState(() => inspectorRegistry.track(name, options));
  useEffect(() => () => tracker.stop(), [tracker]);
  return tracker.inspect;
}
