import { fromPromise } from 'xstate';
import { CUSTOM_CONFIG_FAILURE } from '../../models/customSections';
import type { CustomSectionConfig } from '../../models/customSections';
import { PREVIEW_FAILURE, REPORT_LOAD_FAILURE } from './messages';
import type { LoadedReport, LoadFailure, PreviewFailure, SaveFailure, SectionCatalogue, SectionPreview, ServerError } from './types';

/**
 * The calls the section editor makes. src/ implements them over the API client; tests with
 * stubs. Each rejects when the server refuses or cannot be reached: `preview` with a
 * `PreviewFailure` when the server said why, `create` and `update` with a `SaveFailure`.
 */
export interface SectionEditorServices {
  /** GET /user_filtered_config: the values and fields a custom section can use. */
  fetchCatalogue(signal: AbortSignal): Promise<SectionCatalogue>;
  /** GET /business_reports/by_secret: the report (its id, and the section being edited). */
  fetchReport(secret: string, signal: AbortSignal): Promise<LoadedReport>;
  /** POST /business_report/{reportId}/sections/preview with `{config, resolution}`. */
  preview(reportId: string, config: CustomSectionConfig, resolution: string, signal: AbortSignal): Promise<SectionPreview>;
  /** POST /business_report/{reportId}/sections with `{definition_id: 'user_filtered', config, title}`: the new section's id. */
  create(reportId: string, config: CustomSectionConfig, title: string, signal: AbortSignal): Promise<{ id: string }>;
  /** PUT /business_report/sections/{id} with `{definition_id: 'user_filtered', config}`. */
  update(sectionId: string, config: CustomSectionConfig, signal: AbortSignal): Promise<{ id: string }>;
}

/** The ids of the chart's invocations (done and error events derive from them). */
export type SectionEditorInvokeId = 'load' | 'preview' | 'save';

/** What loading gives the editor. */
export interface LoadedEditor {
  catalogue: SectionCatalogue;
  report: LoadedReport;
}

export interface PreviewInput {
  reportId: string;
  config: CustomSectionConfig;
  resolution: string;
}

export interface SaveInput {
  reportId: string;
  /** null: a new section. */
  sectionId: string | null;
  config: CustomSectionConfig;
  title: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

const isServerError = (value: unknown): value is ServerError =>
  isRecord(value) && (value.pointer === null || typeof value.pointer === 'string') && typeof value.message === 'string';

export function isLoadFailure(value: unknown): value is LoadFailure {
  return isRecord(value) && (value.kind === 'catalogue' || value.kind === 'report');
}

/** The message of a failed load: the catalogue's ('Could not get the values and filters a section can use') or the report's. */
export function loadFailureMessage(error: unknown): string {
  return isLoadFailure(error) && error.kind === 'report' ? REPORT_LOAD_FAILURE : CUSTOM_CONFIG_FAILURE;
}

export function isSaveFailure(value: unknown): value is SaveFailure {
  if (!isRecord(value)) return false;
  if (value.kind === 'failed') return true;
  return value.kind === 'invalid' && Array.isArray(value.errors) && value.errors.every(isServerError);
}

/** Anything a save threw that is not a refusal it understood is a failure ('We could not save this section, please try again'). */
export function toSaveFailure(error: unknown): SaveFailure {
  return isSaveFailure(error) ? error : { kind: 'failed' };
}

/** The messages a failed preview shows: the server's, else 'We could not calculate the preview'. */
export function previewFailureMessages(error: unknown): string[] {
  const errors = isRecord(error) && Array.isArray(error.errors) ? (error as unknown as PreviewFailure).errors.filter(isServerError) : [];
  return errors.length > 0 ? [...new Set(errors.map((item) => item.message))] : [PREVIEW_FAILURE];
}

/** A call the machine gave up (its state was left, or the actor was stopped) never reports back. */
function unlessAborted<T>(signal: AbortSignal, call: Promise<T>): Promise<T> {
  return call.catch((error: unknown) => (signal.aborted ? new Promise<T>(() => {}) : Promise.reject(error)));
}

/** A call that fails as `kind` whatever it rejected with. */
function failingAs<T>(kind: LoadFailure['kind'], call: Promise<T>): Promise<T> {
  return call.catch(() => Promise.reject({ kind } satisfies LoadFailure));
}

/** The machine's actors over a set of services (the real API in src/, stubs in tests). */
export function sectionEditorActors(services: SectionEditorServices) {
  return {
    /** The catalogue and the report, read side by side; fails with a `LoadFailure` (the other read given up). */
    load: fromPromise<LoadedEditor, { secret: string }>(({ input, signal }) => {
      const both = new AbortController();
      const giveUp = () => both.abort();
      signal.addEventListener('abort', giveUp);
      const reads = Promise.all([failingAs('catalogue', services.fetchCatalogue(both.signal)), failingAs('report', services.fetchReport(input.secret, both.signal))]);
      return unlessAborted(
        signal,
        reads.then(([catalogue, report]) => ({ catalogue, report })).finally(() => {
          giveUp();
          signal.removeEventListener('abort', giveUp);
        }),
      );
    }),
    preview: fromPromise<SectionPreview, PreviewInput>(({ input, signal }) => unlessAborted(signal, services.preview(input.reportId, input.config, input.resolution, signal))),
    save: fromPromise<{ id: string }, SaveInput>(({ input, signal }) =>
      unlessAborted(signal, input.sectionId === null ? services.create(input.reportId, input.config, input.title, signal) : services.update(input.sectionId, input.config, signal)),
    ),
  } satisfies Record<SectionEditorInvokeId, unknown>;
}

const notProvided = (name: keyof SectionEditorServices) => () =>
  Promise.reject(new Error(`The section editor's "${name}" call is not provided: use sectionEditorMachine.provide({ actors: sectionEditorActors(services) })`));

/** Placeholders that fail loudly until src/ (or a test) provides the real calls. */
export const servicesNotProvided: SectionEditorServices = {
  fetchCatalogue: notProvided('fetchCatalogue'),
  fetchReport: notProvided('fetchReport'),
  preview: notProvided('preview'),
  create: notProvided('create'),
  update: notProvided('update'),
};
