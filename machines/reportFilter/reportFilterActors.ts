import { fromPromise } from 'xstate';
import type { FilterItem } from '../../models/reportFilter';
import type { FilterSection } from './types';

/**
 * The call the report filter makes. src/ implements it over the API client; tests with stubs.
 */
export interface ReportFilterServices {
  /**
   * GET /business_reports/by_secret_filtered with the item's query (`filterQuery(item)`): the
   * report's sections as the filter leaves them. Rejects when the server refuses it or cannot
   * be reached (any rejection is the apply failure).
   */
  fetchFiltered(secret: string, item: FilterItem, currency: string | null, signal: AbortSignal): Promise<FilterSection[]>;
}

/** The ids of the chart's invocations (done and error events derive from them). */
export type ReportFilterInvokeId = keyof ReportFilterServices;

export interface FetchFilteredInput {
  secret: string;
  item: FilterItem;
  currency: string | null;
}

/** A call the machine gave up (another filter picked, the filter cleared, the page gone) never reports back. */
function unlessAborted<T>(signal: AbortSignal, call: Promise<T>): Promise<T> {
  return call.catch((error: unknown) => (signal.aborted ? new Promise<T>(() => {}) : Promise.reject(error)));
}

/** The machine's actors over a set of services (the real API in src/, stubs in tests). */
export function reportFilterActors(services: ReportFilterServices) {
  return {
    /** Fetches the filtered sections; fails with whatever the call rejected with. */
    fetchFiltered: fromPromise<FilterSection[], FetchFilteredInput>(({ input, signal }) =>
      unlessAborted(signal, services.fetchFiltered(input.secret, input.item, input.currency, signal)),
    ),
  } satisfies Record<ReportFilterInvokeId, unknown>;
}

/** Placeholders that fail loudly until src/ (or a test) provides the real call. */
export const servicesNotProvided: ReportFilterServices = {
  fetchFiltered: () =>
    Promise.reject(
      new Error('The report filter\'s "fetchFiltered" call is not provided: use reportFilterMachine.provide({ actors: reportFilterActors(services) })'),
    ),
};
