import { fromPromise } from 'xstate';
import type { PageSettings, SettingsChange } from './types';

/**
 * The call the report page machine makes itself (the recalculation and the filter bring their
 * own, provided as their machines). src/ implements it over the API client; tests with stubs.
 */
export interface ReportPageServices {
  /**
   * PUT /business_reports/{id}/settings: the report's settings as saved. Rejects when the
   * server refuses the change or cannot be reached.
   */
  saveSettings(reportId: string, change: SettingsChange['change'], failure: string, signal: AbortSignal): Promise<PageSettings>;
}

/** The ids of the chart's own invocations (done and error events derive from them). */
export type ReportPageInvokeId = keyof ReportPageServices;

/** The machine's own actors over a set of services (the real API in src/, stubs in tests). */
export function reportPageActors(services: ReportPageServices) {
  return {
    /** Saves one settings change. */
    saveSettings: fromPromise<PageSettings, { reportId: string } & SettingsChange>(({ input, signal }) =>
      services.saveSettings(input.reportId, input.change, input.failure, signal),
    ),
  } satisfies Record<ReportPageInvokeId, unknown>;
}

/** Placeholders that fail loudly until src/ (or a test) provides the real call. */
export const servicesNotProvided: ReportPageServices = {
  saveSettings: () =>
    Promise.reject(new Error('The report page\'s "saveSettings" call is not provided: use reportPageMachine.provide({ actors: reportPageActors(services) })')),
};
