import { fromPromise } from 'xstate';

/**
 * The calls the recalculation machine makes. src/ implements them over the API client;
 * tests implement them with stubs.
 */
export interface RecalculationServices {
  /**
   * POST /business_reports/{id}/refresh: the server starts recalculating the report. Rejects
   * when the server refuses it or cannot be reached (any rejection is the refresh failure).
   */
  refresh(reportId: string, signal: AbortSignal): Promise<void>;
}

/** The ids of the chart's invocations (done and error events derive from them). */
export type RecalculationInvokeId = keyof RecalculationServices;

/**
 * A call the machine gave up (its state was left, or the actor was stopped) never reports
 * back: its rejection by the abort is swallowed.
 */
function unlessAborted<T>(signal: AbortSignal, call: Promise<T>): Promise<T> {
  return call.catch((error: unknown) => (signal.aborted ? new Promise<T>(() => {}) : Promise.reject(error)));
}

/** The machine's actors over a set of services (the real API in src/, stubs in tests). */
export function recalculationActors(services: RecalculationServices) {
  return {
    /** Asks the server to recalculate; fails with whatever the call rejected with. */
    refresh: fromPromise<void, { reportId: string }>(({ input, signal }) => unlessAborted(signal, services.refresh(input.reportId, signal))),
  } satisfies Record<RecalculationInvokeId, unknown>;
}

const notProvided = (name: RecalculationInvokeId) => () =>
  Promise.reject(
    new Error(
      `The recalculation machine's "${name}" call is not provided: use recalculationMachine.provide({ actors: recalculationActors(services) })`,
    ),
  );

/** Placeholders that fail loudly until src/ (or a test) provides the real calls. */
export const servicesNotProvided: RecalculationServices = {
  refresh: notProvided('refresh'),
};
