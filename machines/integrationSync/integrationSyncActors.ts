import { fromPromise } from 'xstate';
import { SAVE_CONFIGURATION_FAILURE } from '../../models/integrations';
import type { IntegrationName } from '../../models/integrations';
import type { IntegrationSaveFailure } from './types';
import type { IntegrationAnswer } from '../../models/integrations';

/**
 * The calls an integration card makes. src/ implements them over the API client; tests with
 * stubs. Each rejects when the server refuses or cannot be reached; the save rejects with an
 * `IntegrationSaveFailure`.
 */
export interface IntegrationSyncServices {
  /** POST /integrations/{name} with the dialog's fields: the integration, configured, its first sync queued. */
  saveConfiguration(name: IntegrationName, configuration: Record<string, unknown>, signal: AbortSignal): Promise<IntegrationAnswer>;
  /** POST /integrations/{name}/sync: the integration with its sync queued. */
  retrySync(name: IntegrationName, signal: AbortSignal): Promise<IntegrationAnswer>;
  /** DELETE /integrations/{name}: no longer configured (the synced data stays). */
  disconnect(name: IntegrationName, signal: AbortSignal): Promise<void>;
}

/** The ids of the chart's invocations (done and error events derive from them). */
export type IntegrationSyncInvokeId = keyof IntegrationSyncServices;

export function saveFailure(kind: IntegrationSaveFailure['kind'], fields: Record<string, string> = {}, messages: string[] = []): IntegrationSaveFailure {
  return { kind, fields, messages };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

export function isSaveFailure(value: unknown): value is IntegrationSaveFailure {
  return isRecord(value) && typeof value.kind === 'string' && isRecord(value.fields) && Array.isArray(value.messages);
}

/** Anything the save threw that is not a refusal it understood is 'We could not save configuration'. */
export function toSaveFailure(error: unknown): IntegrationSaveFailure {
  return isSaveFailure(error) ? error : saveFailure('unavailable', {}, [SAVE_CONFIGURATION_FAILURE]);
}

/** A call the machine gave up (its state was left, or the actor was stopped) never reports back. */
function unlessAborted<T>(signal: AbortSignal, call: Promise<T>): Promise<T> {
  return call.catch((error: unknown) => (signal.aborted ? new Promise<T>(() => {}) : Promise.reject(error)));
}

/** The machine's actors over a set of services (the real API in src/, stubs in tests). */
export function integrationSyncActors(services: IntegrationSyncServices) {
  return {
    saveConfiguration: fromPromise<IntegrationAnswer, { name: IntegrationName; configuration: Record<string, unknown> }>(({ input, signal }) =>
      unlessAborted(signal, services.saveConfiguration(input.name, input.configuration, signal)),
    ),
    retrySync: fromPromise<IntegrationAnswer, { name: IntegrationName }>(({ input, signal }) => unlessAborted(signal, services.retrySync(input.name, signal))),
    disconnect: fromPromise<void, { name: IntegrationName }>(({ input, signal }) => unlessAborted(signal, services.disconnect(input.name, signal))),
  } satisfies Record<IntegrationSyncInvokeId, unknown>;
}

const notProvided = (name: IntegrationSyncInvokeId) => () =>
  Promise.reject(
    new Error(`The integration sync machine's "${name}" call is not provided: use integrationSyncMachine.provide({ actors: integrationSyncActors(services) })`),
  );

/** Placeholders that fail loudly until src/ (or a test) provides the real calls. */
export const servicesNotProvided: IntegrationSyncServices = {
  saveConfiguration: notProvided('saveConfiguration'),
  retrySync: notProvided('retrySync'),
  disconnect: notProvided('disconnect'),
};
