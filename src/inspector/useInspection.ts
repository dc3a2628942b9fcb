import { useEffect, useState } from 'react';
import type { InspectionEvent } from 'xstate';
import { inspectorRegistry } from './registry';
import type { InspectorRegistry, TrackOptions } from './registry';

export interface UseInspectionOptions extends TrackOptions {
  /** The registry to record in (tests); the page's one registry by default. */
  registry?: InspectorRegistry;
}

/**
 * Registers the machine a view runs with the state inspector:
 * `useActorRef(machine, { inspect: useInspection('csvImport', { importIdOf }) })`. The actor
 * appears with its first snapshot and its trace stays in the inspector after the view is gone
 * (marked not live). Under React's development double effects the actor stays one entry, live.
 */
export function useInspection(name: string, options: UseInspectionOptions = {}): (event: InspectionEvent) => void {
  const [tracker] = useState(() => (options.registry ?? inspectorRegistry).track(name, { importIdOf: options.importIdOf, integrationOf: options.integrationOf }));
  useEffect(() => {
    tracker.resume();
    return () => tracker.stop();
  }, [tracker]);
  return tracker.inspect;
}
