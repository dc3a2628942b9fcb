import { useEffect, useRef, useState } from 'react';
import { createActor } from 'xstate';
import { columnRecalculationActors } from '../../../machines/columnRecalculation/columnRecalculationActors';
import type { ColumnRecalculationServices } from '../../../machines/columnRecalculation/columnRecalculationActors';
import { columnRecalculationMachine } from '../../../machines/columnRecalculation/columnRecalculationMachine';
import type { ColumnRecalculationActorRef } from '../../../machines/columnRecalculation/columnRecalculationMachine';
import type { ColumnDefinition, ColumnNotice, ColumnStatusUpdate } from '../../../machines/columnRecalculation/types';
import { useApi } from '../../api/ApiContext';
import { inspectorRegistry } from '../../inspector/registry';
import type { InspectorRegistry } from '../../inspector/registry';
import { createColumnServices } from '../customerListApi';

/**
 * The machines of the page's calculated columns (machines/columnRecalculation), one per column:
 * a column's recalculation outlives the drawer that saved it, so the machines belong to the
 * page. A saved column's machine is made the first time a view asks for it (from its
 * definition); a new column's ('Create column') joins them once saved. Each is registered with
 * the state inspector as 'columnRecalculation'.
 */
export interface ColumnWorkflows {
  /** The machine of a saved column. */
  forDefinition(definition: ColumnDefinition): ColumnRecalculationActorRef;
  /** A new column's machine, in `draft`. */
  draft(): ColumnRecalculationActorRef;
  /** A CustomerColumnsChannel message, heard by every column's machine (each acts on its own). */
  update(update: ColumnStatusUpdate): void;
  /** Stops every machine (the page is gone). */
  stop(): void;
}

export function createColumnWorkflows(services: ColumnRecalculationServices, onNotice: (notice: ColumnNotice) => void, registry: InspectorRegistry = inspectorRegistry): ColumnWorkflows {
  const byId = new Map<string, ColumnRecalculationActorRef>();
  const all = new Set<{ actor: ColumnRecalculationActorRef; stopTracking: () => void }>();

  const create = (definition: ColumnDefinition | null): ColumnRecalculationActorRef => {
    const tracker = registry.track('columnRecalculation');
    const logic = columnRecalculationMachine.provide({
      actors: columnRecalculationActors(services),
      actions: {
        notify: (_, notice) => {
          if (notice.kind === 'saved') byId.set(notice.definition.id, actor);
          onNotice(notice);
        },
      },
    });
    const actor: ColumnRecalculationActorRef = createActor(logic, { input: { definition }, inspect: tracker.inspect });
    all.add({ actor, stopTracking: tracker.stop });
    actor.start();
    return actor;
  };

  return {
    forDefinition(definition) {
      const found = byId.get(definition.id);
      if (found) return found;
      const actor = create(definition);
      byId.set(definition.id, actor);
      return actor;
    },
    draft: () => create(null),
    update(update) {
      for (const actor of byId.values()) actor.send({ type: 'columnsChannel.update', update });
    },
    stop() {
      for (const entry of all) {
        entry.actor.stop();
        entry.stopTracking();
      }
      all.clear();
      byId.clear();
    },
  };
}

/**
 * The page's column machines over the app's API client. `onNotice` hears what they tell the
 * page (the latest function given is called). They are stopped when the page goes away (not by
 * React's development double effects, which remount it at once).
 */
export function useColumnWorkflows(onNotice: (notice: ColumnNotice) => void, services?: ColumnRecalculationServices): ColumnWorkflows {
  const client = useApi();
  const noticeRef = useRef(onNotice);
  useEffect(() => {
    noticeRef.current = onNotice;
  }, [onNotice]);
  const [workflows] = useState(() => createColumnWorkflows(services ?? createColumnServices(client), (notice) => noticeRef.current(notice)));
  const mounted = useRef(false);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
      queueMicrotask(() => {
        if (!mounted.current) workflows.stop();
      });
    };
  }, [workflows]);
  return workflows;
}
