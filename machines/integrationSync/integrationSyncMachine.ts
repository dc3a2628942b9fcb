import { assign, setup } from 'xstate';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import { integrationSyncActors, servicesNotProvided, toSaveFailure } from './integrationSyncActors';
import { disconnectFailedMessage, retryFailedMessage, SYNC_FAILED_FALLBACK } from './messages';
import type { IntegrationAnswerEvent, IntegrationSyncContext, IntegrationSyncEvent, IntegrationSyncInput, IntegrationSyncNotice } from './types';
import type { IntegrationAnswer } from '../../models/integrations';

export function initialIntegrationSyncContext(input: IntegrationSyncInput): IntegrationSyncContext {
  return { name: input.name, integration: null, percent: 0, error: null, saveFailure: null, awaitingFirstSync: false, heardWhileCalling: null };
}

type Answer = { integration: IntegrationAnswer | null };
const fromAnswer = ({ event }: { event: IntegrationAnswerEvent }): Answer => ({ integration: event.integration });
const fromOutput = ({ event }: { event: { output: IntegrationAnswer } }): Answer => ({ integration: event.output });
const fromContext = ({ context }: { context: IntegrationSyncContext }): Answer => ({ integration: context.integration });

/** Takes the server's answer into the context. */
const ASSIGN = { type: 'assignIntegration', params: fromAnswer } as const;

/** A busy state (the dialog open, a call in flight) keeps the server's answers without moving. */
const KEEP_ANSWERS = {
  'integration.answer.notConfigured': { actions: ASSIGN },
  'integration.answer.syncing': { actions: ASSIGN },
  'integration.answer.synced': { actions: ASSIGN },
  'integration.answer.failed': { actions: ASSIGN },
} as const;

/**
 * While a save or a retry is in flight, the sync it queues can already end (a small account, a
 * quick provider): IntegrationStatusEventsChannel's event is kept, and applied when the call
 * answers, since the call's answer is older than the event.
 */
const HEAR_WHILE_CALLING = {
  'integration.initiallySynced': { actions: 'hearSynced' },
  'integration.syncFailed': { actions: { type: 'hearFailed', params: ({ event }: { event: { error: string } }) => ({ error: event.error }) } },
} as const;

/** A call that queued a sync answered: the card goes where the sync is by now. */
const CALL_ANSWERED = [
  {
    guard: 'failedWhileCalling',
    target: '#integrationSync.failed',
    actions: [
      { type: 'assignIntegration', params: fromOutput },
      { type: 'markFailed', params: ({ context }: { context: IntegrationSyncContext }) => ({ error: context.heardWhileCalling?.kind === 'failed' ? context.heardWhileCalling.error : '' }) },
      'forgetHeard',
    ],
  },
  {
    guard: 'syncedWhileCalling',
    target: '#integrationSync.connected',
    actions: [
      { type: 'assignIntegration', params: fromOutput },
      'markSynced',
      { type: 'notify', params: ({ context }: { context: IntegrationSyncContext }) => ({ kind: 'syncComplete' as const, name: context.name }) },
      'forgetHeard',
    ],
  },
  { guard: { type: 'isFirstSync', params: fromOutput }, target: '#integrationSync.syncing', actions: [{ type: 'assignIntegration', params: fromOutput }, 'forgetHeard'] },
  { target: '#integrationSync.connected', actions: [{ type: 'assignIntegration', params: fromOutput }, 'forgetHeard'] },
] as const;

const clampPercent = (value: number) => Math.min(100, Math.max(0, Number.isFinite(value) ? value : 0));

/**
 * One integration card of Settings → Data sources (second spec document: "Integration card:
 * configuration needed, then connected once initially synced; sync in progress is shown with a
 * percent. A sync-complete event shows a toast.").
 *
 * - `loading` (initial): no answer about the integration yet. The first answer
 *   (GET /integrations, or IntegrationsChannel) settles the card in one of the states below.
 * - `configurationNeeded`: nothing configured. `integration.configure` opens the dialog of a
 *   configurable integration (→ `configuring`): a dialog one, or an OAuth one with a dialog
 *   (HubSpot, Intercom) once `authorized`; `integration.connect` sends the browser to the
 *   connect URL of an OAuth integration not authorized yet (→ `connecting.redirecting`, which
 *   the page leaves).
 * - `configuring`: the configuration dialog is open (also to change a saved configuration).
 *   `integration.save` → `connecting.saving`; `integration.cancel` → the state the server's
 *   last answer says. Answers arriving meanwhile are kept, the dialog stays.
 * - `connecting.saving`: POST /integrations/{name}. Accepted → `syncing` (the first sync is
 *   queued) or `connected` (saved again after the first sync); refused → `configuring` with
 *   the refusal (a field's message, the provider's cannot-connect message, or 'We could not
 *   save configuration'). A sync that ended before the call answered (`initially_synced` or
 *   `sync_failed` heard meanwhile, `heardWhileCalling`) wins over the call's older answer:
 *   → `connected` with the sync-complete toast, or → `failed`. The same holds for a retry.
 * - `syncing`: the first sync runs; `percent` follows each answer. IntegrationStatusEventsChannel's
 *   `initially_synced` → `connected` with the sync-complete toast; `sync_failed` → `failed`.
 * - `connected`: initially synced; later incremental syncs run behind it. A failed one → `failed`.
 *   An answer of a first sync still running is older than what the card knows: ignored.
 * - `failed`: the last sync failed (`error` says why). `integration.retry` → `failed.retrying`
 *   (POST /integrations/{name}/sync) → `syncing` or `connected`; refused → back with a toast.
 * - `disconnecting`: DELETE /integrations/{name} (from syncing, connected or failed, or from
 *   configurationNeeded when OAuth tokens are held) → `configurationNeeded`; refused → back,
 *   with a toast.
 *
 * Whatever the state, an answer that says otherwise (another tab connected, the server
 * finished) moves the card there: every settled state takes the answers (`integration.answer.*`, named by `answerEvent`). The toasts
 * and the redirect are effects provided by src/ (`notify`, `redirect`); the calls are actors
 * provided the same way (`integrationSyncActors(services)`).
 */
export const integrationSyncMachine = setup({
  types: {
    context: {} as IntegrationSyncContext,
    events: {} as IntegrationSyncEvent,
    input: {} as IntegrationSyncInput,
  },
  actors: integrationSyncActors(servicesNotProvided),
  actions: {
    assignIntegration: assign((_, params: Answer) => {
      const integration = params.integration;
      if (!integration) return {};
      return {
        integration,
        percent: clampPercent(integration.initially_synced ? 100 : integration.initial_progress),
        error: integration.sync_status === 'failed' ? (integration.last_error ?? SYNC_FAILED_FALLBACK) : null,
      };
    }),
    startFirstSync: assign({ awaitingFirstSync: true }),
    markSynced: assign(({ context }) => ({
      awaitingFirstSync: false,
      percent: 100,
      integration: context.integration ? { ...context.integration, initially_synced: true, initial_progress: 100 } : null,
    })),
    markFailed: assign(({ context }, params: { error: string }) => ({
      error: params.error || SYNC_FAILED_FALLBACK,
      integration: context.integration ? { ...context.integration, sync_status: 'failed' as const, last_error: params.error || SYNC_FAILED_FALLBACK } : null,
    })),
    markDisconnected: assign(({ context }) => ({
      percent: 0,
      error: null,
      awaitingFirstSync: false,
      integration: context.integration
        ? { ...context.integration, configured: false, authorized: false, initially_synced: false, initial_progress: 0, sync_status: 'idle' as const, last_error: null }
        : null,
    })),
    clearSaveFailure: assign({ saveFailure: null }),
    forgetHeard: assign({ heardWhileCalling: null }),
    hearSynced: assign({ heardWhileCalling: { kind: 'synced' as const } }),
    hearFailed: assign({ heardWhileCalling: (_, params: { error: string }) => ({ kind: 'failed' as const, error: params.error }) }),
    assignSaveFailure: assign({ saveFailure: (_, params: { error: unknown }) => toSaveFailure(params.error) }),
    /** Shows a toast (provided: the app's toast helpers). */
    notify: (_, _params: IntegrationSyncNotice) => {},
    /** Sends the browser to the integration's connect URL (provided: adds the token and the way back). */
    redirect: (_, _params: { url: string }) => {},
  },
  guards: {
    isFailed: (_, params: Answer) => params.integration?.configured === true && params.integration.sync_status === 'failed',
    isFirstSync: (_, params: Answer) => params.integration?.configured === true && !params.integration.initially_synced,
    isSynced: (_, params: Answer) => params.integration?.configured === true && params.integration.initially_synced,
    /** The card opens a configuration dialog: a dialog integration, or an OAuth one with a dialog once its OAuth connect is done. */
    isConfigurable: ({ context }) =>
      context.integration?.enabled === true &&
      (context.integration.connect === 'dialog' || (context.integration.connect === 'oauth' && context.integration.configurable && context.integration.authorized)),
    /** The card sends the browser to the provider (OAuth, not authorized yet). */
    isRedirecting: ({ context }) =>
      context.integration?.enabled === true && context.integration.connect === 'oauth' && !!context.integration.connect_url && !context.integration.authorized,
    /** OAuth tokens are held (an OAuth integration with a dialog not saved yet can still be disconnected). */
    isAuthorized: ({ context }) => context.integration?.authorized === true,
    isUnconfigured: ({ context }) => context.integration?.configured !== true,
    awaitingFirstSync: ({ context }) => context.awaitingFirstSync,
    syncedWhileCalling: ({ context }) => context.heardWhileCalling?.kind === 'synced',
    failedWhileCalling: ({ context }) => context.heardWhileCalling?.kind === 'failed',
  },
}).createMachine({
  id: 'integrationSync',
  context: ({ input }) => initialIntegrationSyncContext(input),
  initial: 'loading',
  states: {
    loading: {
      on: {
        'integration.answer.notConfigured': { target: 'configurationNeeded', actions: ASSIGN },
        'integration.answer.syncing': { target: 'syncing', actions: ASSIGN },
        'integration.answer.synced': { target: 'connected', actions: ASSIGN },
        'integration.answer.failed': { target: 'failed', actions: ASSIGN },
      },
    },

    configurationNeeded: {
      on: {
        'integration.answer.notConfigured': { actions: ASSIGN },
        'integration.answer.syncing': { target: 'syncing', actions: ASSIGN },
        'integration.answer.synced': { target: 'connected', actions: ASSIGN },
        'integration.answer.failed': { target: 'failed', actions: ASSIGN },
        'integration.configure': { guard: 'isConfigurable', target: 'configuring', actions: 'clearSaveFailure' },
        'integration.connect': { guard: 'isRedirecting', target: 'connecting.redirecting' },
        'integration.disconnect': { guard: 'isAuthorized', target: 'disconnecting' },
      },
    },

    configuring: {
      on: {
        ...KEEP_ANSWERS,
        'integration.save': { target: 'connecting.saving', actions: 'clearSaveFailure' },
        'integration.cancel': [
          { guard: { type: 'isFailed', params: fromContext }, target: 'failed' },
          { guard: { type: 'isFirstSync', params: fromContext }, target: 'syncing' },
          { guard: { type: 'isSynced', params: fromContext }, target: 'connected' },
          { target: 'configurationNeeded' },
        ],
      },
    },

    connecting: {
      initial: 'saving',
      on: {
        ...KEEP_ANSWERS,
      },
      states: {
        saving: {
          entry: 'forgetHeard',
          on: HEAR_WHILE_CALLING,
          invoke: {
            id: 'saveConfiguration',
            src: 'saveConfiguration',
            input: ({ context, event }) => ({ name: context.name, configuration: event.type === 'integration.save' ? event.configuration : {} }),
            onDone: CALL_ANSWERED,
            onError: { target: '#integrationSync.configuring', actions: [{ type: 'assignSaveFailure', params: ({ event }) => ({ error: event.error }) }, 'forgetHeard'] },
          },
        },
        redirecting: {
          entry: { type: 'redirect', params: ({ context }) => ({ url: context.integration?.connect_url ?? '' }) },
        },
      },
    },

    syncing: {
      entry: 'startFirstSync',
      on: {
        'integration.answer.notConfigured': { target: 'configurationNeeded', actions: ASSIGN },
        'integration.answer.syncing': { actions: ASSIGN },
        'integration.answer.synced': { target: 'connected', actions: ASSIGN },
        'integration.answer.failed': { target: 'failed', actions: ASSIGN },
        'integration.initiallySynced': {
          target: 'connected',
          actions: ['markSynced', { type: 'notify', params: ({ context }) => ({ kind: 'syncComplete' as const, name: context.name }) }],
        },
        'integration.syncFailed': { target: 'failed', actions: { type: 'markFailed', params: ({ event }) => ({ error: event.error }) } },
        'integration.configure': { guard: 'isConfigurable', target: 'configuring', actions: 'clearSaveFailure' },
        'integration.disconnect': { target: 'disconnecting' },
      },
    },

    connected: {
      on: {
        'integration.answer.notConfigured': { target: 'configurationNeeded', actions: ASSIGN },
        // A first sync that has not ended, once this card saw it end, is an answer read before the
        // end and delivered after it (the answers and the status events travel apart): ignored.
        // A new first sync begins only after a disconnect, whose answer moves the card first.
        'integration.answer.synced': { actions: ASSIGN },
        'integration.answer.failed': { target: 'failed', actions: ASSIGN },
        'integration.initiallySynced': {
          guard: 'awaitingFirstSync',
          actions: ['markSynced', { type: 'notify', params: ({ context }) => ({ kind: 'syncComplete' as const, name: context.name }) }],
        },
        'integration.syncFailed': { target: 'failed', actions: { type: 'markFailed', params: ({ event }) => ({ error: event.error }) } },
        'integration.configure': { guard: 'isConfigurable', target: 'configuring', actions: 'clearSaveFailure' },
        'integration.disconnect': { target: 'disconnecting' },
      },
    },

    failed: {
      initial: 'idle',
      states: {
        idle: {
          on: {
            'integration.answer.notConfigured': { target: '#integrationSync.configurationNeeded', actions: ASSIGN },
            'integration.answer.syncing': { target: '#integrationSync.syncing', actions: ASSIGN },
            'integration.answer.synced': { target: '#integrationSync.connected', actions: ASSIGN },
            'integration.answer.failed': { actions: ASSIGN },
            'integration.retry': { target: 'retrying' },
            'integration.configure': { guard: 'isConfigurable', target: '#integrationSync.configuring', actions: 'clearSaveFailure' },
            'integration.disconnect': { target: '#integrationSync.disconnecting' },
          },
        },
        retrying: {
          entry: 'forgetHeard',
          on: {
            ...KEEP_ANSWERS,
            ...HEAR_WHILE_CALLING,
          },
          invoke: {
            id: 'retrySync',
            src: 'retrySync',
            input: ({ context }) => ({ name: context.name }),
            onDone: CALL_ANSWERED,
            onError: { target: 'idle', actions: [{ type: 'notify', params: ({ context }) => ({ kind: 'failure' as const, message: retryFailedMessage(context.name) }) }, 'forgetHeard'] },
          },
        },
      },
    },

    disconnecting: {
      on: {
        ...KEEP_ANSWERS,
      },
      invoke: {
        id: 'disconnect',
        src: 'disconnect',
        input: ({ context }) => ({ name: context.name }),
        onDone: { target: 'configurationNeeded', actions: 'markDisconnected' },
        onError: [
          {
            guard: { type: 'isFailed', params: fromContext },
            target: 'failed',
            actions: { type: 'notify', params: ({ context }) => ({ kind: 'failure' as const, message: disconnectFailedMessage(context.name) }) },
          },
          {
            guard: 'isUnconfigured',
            target: 'configurationNeeded',
            actions: { type: 'notify', params: ({ context }) => ({ kind: 'failure' as const, message: disconnectFailedMessage(context.name) }) },
          },
          {
            guard: { type: 'isFirstSync', params: fromContext },
            target: 'syncing',
            actions: { type: 'notify', params: ({ context }) => ({ kind: 'failure' as const, message: disconnectFailedMessage(context.name) }) },
          },
          {
            target: 'connected',
            actions: { type: 'notify', params: ({ context }) => ({ kind: 'failure' as const, message: disconnectFailedMessage(context.name) }) },
          },
        ],
      },
    },
  },
});

export type IntegrationSyncMachine = typeof integrationSyncMachine;
export type IntegrationSyncSnapshot = SnapshotFrom<IntegrationSyncMachine>;
export type IntegrationSyncActorRef = ActorRefFrom<IntegrationSyncMachine>;
