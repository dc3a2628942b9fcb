import { fromCallback, fromPromise } from 'xstate';
import type { EventObject } from 'xstate';
import type { SectionExportEvent, SectionExportRequest, SectionExportUpdate } from './types';

/**
 * The calls the section export makes. src/ implements them over the API client and the app's
 * live channels; tests with stubs.
 */
export interface SectionExportServices {
  /** POST /business_report/sections/{id}/export_details: the started export. Rejects when refused or unreachable. */
  start(request: SectionExportRequest, signal: AbortSignal): Promise<SectionExportUpdate>;
  /**
   * Subscribes to SectionDetailsExportChannel for the export and reports each message until the
   * returned function is called. The server sends the export's status right after each
   * confirmation (also after a reconnection), so nothing missed while disconnected is lost.
   */
  watch(exportId: string, update: (update: SectionExportUpdate) => void): () => void;
}

/** The ids of the chart's calls (their done and error events derive from them). */
export type SectionExportInvokeId = 'start';

/** A call the machine gave up (its state was left, or the actor was stopped) never reports back. */
function unlessAborted<T>(signal: AbortSignal, call: Promise<T>): Promise<T> {
  return call.catch((error: unknown) => (signal.aborted ? new Promise<T>(() => {}) : Promise.reject(error)));
}

/** The machine's actors over a set of services (the real API in src/, stubs in tests). */
export function sectionExportActors(services: SectionExportServices) {
  return {
    start: fromPromise<SectionExportUpdate, SectionExportRequest>(({ input, signal }) => unlessAborted(signal, services.start(input, signal))),
    /** The live channel while the export runs: its messages become `sectionExportChannel.update` events. */
    watch: fromCallback<EventObject, { exportId: string }>(({ input, sendBack }) =>
      services.watch(input.exportId, (update) => sendBack({ type: 'sectionExportChannel.update', update } satisfies SectionExportEvent)),
    ),
  } satisfies Record<SectionExportInvokeId | 'watch', unknown>;
}

/** Placeholders that fail loudly until src/ (or a test) provides the real calls. */
export const servicesNotProvided: SectionExportServices = {
  start: () =>
    Promise.reject(new Error('The section export\'s "start" call is not provided: use sectionExportMachine.provide({ actors: sectionExportActors(services) })')),
  watch: () => () => {},
};
