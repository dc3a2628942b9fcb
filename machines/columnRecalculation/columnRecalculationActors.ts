import { fromPromise } from 'xstate';
import type { ColumnDefinitionInput } from '../../models/customerColumns';
import type { ColumnDefinition, ColumnSaveFailure } from './types';

/**
 * The calls the column machine makes. src/ implements them over the API client; tests with
 * stubs.
 */
export interface ColumnRecalculationServices {
  /**
   * POST /customer_related_metric_definitions (id null) or PUT .../{id}: the saved column.
   * Rejects with a `ColumnSaveFailure` ('invalid' for 400/422 with the server's messages).
   */
  save(id: string | null, input: ColumnDefinitionInput, signal: AbortSignal): Promise<ColumnDefinition>;
  /** GET /customer_related_metric_definitions: every column of the account. Rejects when unreachable or refused. */
  fetchDefinitions(signal: AbortSignal): Promise<ColumnDefinition[]>;
  /** DELETE /customer_related_metric_definitions/{id}. Rejects when refused (409 while in progress) or unreachable. */
  remove(id: string, signal: AbortSignal): Promise<void>;
}

/** The ids of the chart's invocations (done and error events derive from them). */
export type ColumnRecalculationInvokeId = 'save' | 'poll' | 'remove';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** What a rejected save means to the drawer: anything but an 'invalid' failure is a generic one. */
export function toColumnSaveFailure(error: unknown): ColumnSaveFailure {
  if (isRecord(error) && error.kind === 'invalid' && Array.isArray(error.messages)) return { kind: 'invalid', messages: error.messages.filter((m): m is string => typeof m === 'string') };
  return { kind: 'failed' };
}

/** A call the machine gave up (its state was left, or the actor was stopped) never reports back. */
function unlessAborted<T>(signal: AbortSignal, call: Promise<T>): Promise<T> {
  return call.catch((error: unknown) => (signal.aborted ? new Promise<T>(() => {}) : Promise.reject(error)));
}

/** The machine's actors over a set of services (the real API in src/, stubs in tests). */
export function columnRecalculationActors(services: ColumnRecalculationServices) {
  return {
    /** Saves the column; fails with the server's 400/422 messages or a generic failure. */
    save: fromPromise<ColumnDefinition, { id: string | null; input: ColumnDefinitionInput }>(({ input, signal }) => unlessAborted(signal, services.save(input.id, input.input, signal))),
    /** One fallback poll; a failed one is simply tried again on the schedule. */
    poll: fromPromise<ColumnDefinition[]>(({ signal }) => unlessAborted(signal, services.fetchDefinitions(signal))),
    /** Deletes the column; a failure leaves it as it was (and toasts). */
    remove: fromPromise<void, { id: string }>(({ input, signal }) => unlessAborted(signal, services.remove(input.id, signal))),
  } satisfies Record<ColumnRecalculationInvokeId, unknown>;
}

const notProvided = (name: string) => () =>
  Promise.reject(new Error(`The column machine's "${name}" call is not provided: use columnRecalculationMachine.provide({ actors: columnRecalculationActors(services) })`));

/** Placeholders that fail loudly until src/ (or a test) provides the real calls. */
export const servicesNotProvided: ColumnRecalculationServices = {
  save: notProvided('save'),
  fetchDefinitions: notProvided('fetchDefinitions'),
  remove: notProvided('remove'),
};
