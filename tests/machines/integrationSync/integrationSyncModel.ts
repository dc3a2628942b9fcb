import type { ActorLogic, AnyMachineSnapshot, EventObject } from 'xstate';
import { TestModel } from 'xstate/graph';
import type { TestParam } from 'xstate/graph';
import { answerEvent } from '../../../machines/integrationSync/answers';
import { saveFailure } from '../../../machines/integrationSync/integrationSyncActors';
import type { IntegrationSyncInvokeId } from '../../../machines/integrationSync/integrationSyncActors';
import { integrationSyncMachine } from '../../../machines/integrationSync/integrationSyncMachine';
import type { IntegrationSyncSnapshot } from '../../../machines/integrationSync/integrationSyncMachine';
import type { IntegrationSyncEvent } from '../../../machines/integrationSync/types';
import type { IntegrationAnswer } from '../../../models/integrations';
import { CANNOT_CONNECT_MESSAGES, CHARGEBEE_API_KEY_EMPTY, SAVE_CONFIGURATION_FAILURE } from '../../../models/integrations';
import type { AnyTestModel, MachineModelEntry } from '../support/modelPaths';

/**
 * The integration sync machine's test model: the events a card, its dialog, the calls and the
 * two live channels (IntegrationsChannel's answers, IntegrationStatusEventsChannel's events)
 * can cause, with fixed payloads so the graph stays finite. One model covers both ways in: the
 * answers of a dialog integration (Chargebee), of an OAuth one (Stripe's shape), and of an OAuth
 * one with a dialog once authorized (HubSpot's shape: the dialog, not the redirect).
 */

export const MODEL_NAME = 'chargebee' as const;
export const MODEL_CONFIGURATION = { chargebee_site: 'acme', chargebee_api_key: 'test_chargebee_key' };
export const MODEL_SYNC_ERROR = 'Chargebee answered 401: the API key was revoked';

function answer(overrides: Partial<IntegrationAnswer>): IntegrationAnswer {
  return {
    name: MODEL_NAME,
    enabled: true,
    configurable: true,
    configured: false,
    authorized: false,
    initially_synced: false,
    initial_progress: 0,
    connect_url: null,
    connect: 'dialog',
    sync_status: 'idle',
    last_synced_at: null,
    last_error: null,
    config: {},
    ...overrides,
  };
}

/** The server's answers about the integration the model knows. */
export const answers = {
  notConfigured: answer({}),
  oauthNotConfigured: answer({ configurable: false, connect: 'oauth', connect_url: '/users/auth/stripe' }),
  /** An OAuth integration with a dialog (HubSpot's shape): connected by OAuth, its dialog not saved yet. */
  oauthAuthorized: answer({ configurable: true, connect: 'oauth', connect_url: '/users/auth/hubspot', authorized: true, config: { hub_id: '62515' } }),
  queued: answer({ configured: true, sync_status: 'queued', config: { chargebee_site: 'acme' } }),
  syncing: answer({ configured: true, sync_status: 'syncing', initial_progress: 40, config: { chargebee_site: 'acme' } }),
  synced: answer({ configured: true, initially_synced: true, initial_progress: 100, last_synced_at: '2026-11-26T10:00:00.000Z', config: { chargebee_site: 'acme' } }),
  failed: answer({ configured: true, sync_status: 'failed', initial_progress: 40, last_error: MODEL_SYNC_ERROR, config: { chargebee_site: 'acme' } }),
} as const satisfies Record<string, IntegrationAnswer>;

/** The refusals of a save. */
export const saveFailures = {
  invalid: saveFailure('invalid', { chargebee_api_key: CHARGEBEE_API_KEY_EMPTY }),
  cannotConnect: saveFailure('cannotConnect', {}, [CANNOT_CONNECT_MESSAGES.cannot_connect_to_chargebee]),
  unavailable: saveFailure('unavailable', {}, [SAVE_CONFIGURATION_FAILURE]),
} as const;

type Outputs = { saveConfiguration: IntegrationAnswer; retrySync: IntegrationAnswer; disconnect: undefined };
type DoneEvent<Id extends IntegrationSyncInvokeId> = { type: `xstate.done.actor.${Id}`; output: Outputs[Id] };
type ErrorEvent<Id extends IntegrationSyncInvokeId> = { type: `xstate.error.actor.${Id}`; error: unknown };

export type IntegrationSyncModelEvent =
  | IntegrationSyncEvent
  | { [Id in IntegrationSyncInvokeId]: DoneEvent<Id> | ErrorEvent<Id> }[IntegrationSyncInvokeId];
export type IntegrationSyncModelEventType = IntegrationSyncModelEvent['type'];

export const modelEvents: readonly IntegrationSyncModelEvent[] = [
  // The queued answer is the calls' (below): on the channel it says what `syncing` says.
  ...[answers.notConfigured, answers.oauthNotConfigured, answers.oauthAuthorized, answers.syncing, answers.synced, answers.failed].map(answerEvent),
  { type: 'integration.initiallySynced' },
  { type: 'integration.syncFailed', error: MODEL_SYNC_ERROR },
  { type: 'integration.configure' },
  { type: 'integration.cancel' },
  { type: 'integration.save', configuration: MODEL_CONFIGURATION },
  { type: 'integration.connect' },
  { type: 'integration.retry' },
  { type: 'integration.disconnect' },

  { type: 'xstate.done.actor.saveConfiguration', output: answers.queued },
  { type: 'xstate.done.actor.saveConfiguration', output: answers.synced },
  { type: 'xstate.error.actor.saveConfiguration', error: saveFailures.invalid },
  { type: 'xstate.error.actor.saveConfiguration', error: saveFailures.cannotConnect },
  { type: 'xstate.error.actor.saveConfiguration', error: new TypeError('Failed to fetch') },
  { type: 'xstate.done.actor.retrySync', output: answers.queued },
  { type: 'xstate.done.actor.retrySync', output: { ...answers.synced, sync_status: 'queued' } },
  { type: 'xstate.error.actor.retrySync', error: new Error('409') },
  { type: 'xstate.done.actor.disconnect', output: undefined },
  { type: 'xstate.error.actor.disconnect', error: new Error('503') },
];

export type IntegrationSyncExecutor = (event: IntegrationSyncModelEvent) => Promise<void>;
/** One executor per event type the model takes: a new event without one fails to compile. */
export type IntegrationSyncExecutors = Record<IntegrationSyncModelEventType, IntegrationSyncExecutor>;

export function pathTestParams(
  executors: IntegrationSyncExecutors,
  assertState: (expected: IntegrationSyncSnapshot) => Promise<void> | void,
): TestParam<AnyMachineSnapshot, EventObject> {
  const events: NonNullable<TestParam<AnyMachineSnapshot, EventObject>['events']> = {};
  for (const type of Object.keys(executors) as IntegrationSyncModelEventType[]) {
    events[type] = (step) => executors[type](step.event as IntegrationSyncModelEvent);
  }
  return { events, states: { '*': (snapshot) => assertState(snapshot as IntegrationSyncSnapshot) } };
}

export function isCardEvent(event: IntegrationSyncModelEvent): event is IntegrationSyncEvent {
  return event.type.startsWith('integration.');
}

/** The machine as the model sees it, for the model's integration. */
const modelLogic = integrationSyncMachine as unknown as ActorLogic<IntegrationSyncSnapshot, IntegrationSyncModelEvent, { name: typeof MODEL_NAME }>;

/**
 * Leaves of the graph: states reached again by another route, explored elsewhere. Every
 * settled state (configuration needed, syncing, connected, failed) is explored from the first
 * answer after loading; entered any other way (a closed dialog, a call's answer, a channel
 * message) it is a leaf, except a connected card still owing the sync-complete toast (the
 * first sync's answer came before its event). An answer that only updates a busy state (the
 * dialog open, a call in flight) is a leaf too, and so is a second sync event heard while a
 * call is in flight. Without them every way round the chart would
 * walk the whole chart again.
 */
const leaves = new WeakSet<object>();

const isSettled = (snapshot: IntegrationSyncSnapshot) =>
  snapshot.matches('configurationNeeded') || snapshot.matches('syncing') || snapshot.matches('connected') || snapshot.matches({ failed: 'idle' });

function isLeaf(snapshot: IntegrationSyncSnapshot, event: IntegrationSyncModelEvent | undefined, previous: IntegrationSyncSnapshot | undefined): string | null {
  if (!event || !previous || previous.matches('loading')) return null;
  if (isSettled(snapshot)) return snapshot.matches('connected') && snapshot.context.awaitingFirstSync ? null : 'settled';
  // A call in flight hears how its sync ended; a second such event only replaces the first.
  if ((event.type === 'integration.initiallySynced' || event.type === 'integration.syncFailed') && previous.context.heardWhileCalling !== null) return 'heard again';
  return event.type.startsWith('integration.answer.') ? 'answered' : null;
}

function serializeState(snapshot: IntegrationSyncSnapshot, event: IntegrationSyncModelEvent | undefined, previous?: IntegrationSyncSnapshot): string {
  const leaf = isLeaf(snapshot, event, previous);
  if (leaf) leaves.add(snapshot);
  return JSON.stringify({ value: snapshot.value, context: snapshot.context, ...(leaf ? { leaf } : {}) });
}

/** Events the machine acts on in a state (what `can` says). */
function isModelled(snapshot: IntegrationSyncSnapshot, event: IntegrationSyncModelEvent): boolean {
  return snapshot.can(event as IntegrationSyncEvent);
}

export function integrationSyncTestModel(
  events: readonly IntegrationSyncModelEvent[] = modelEvents,
): TestModel<IntegrationSyncSnapshot, IntegrationSyncModelEvent, { name: typeof MODEL_NAME }> {
  return new TestModel(modelLogic, {
    events,
    input: { name: MODEL_NAME },
    filterEvents: isModelled,
    serializeState,
    serializeEvent: (event) => JSON.stringify(event, (_key, value: unknown) => (value instanceof Error ? { error: value.message } : value)),
    stopWhen: (snapshot) => leaves.has(snapshot),
  } as ConstructorParameters<typeof TestModel<IntegrationSyncSnapshot, IntegrationSyncModelEvent, { name: typeof MODEL_NAME }>>[1]);
}

export const anyIntegrationSyncTestModel = (): AnyTestModel => integrationSyncTestModel() as unknown as AnyTestModel;

/** The registry's entry (tests/machines/registry.ts): QA's path list and the coverage guard. */
export const integrationSyncModelEntry: MachineModelEntry = { name: 'integrationSync', machine: integrationSyncMachine, model: anyIntegrationSyncTestModel };
