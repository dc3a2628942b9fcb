import { assign, raise, setup } from 'xstate';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import { REFRESH_FAILURE_MESSAGE } from './messages';
import { recalculationActors, servicesNotProvided } from './recalculationActors';
import type { FreshnessStatus, RecalculationContext, RecalculationEvent, RecalculationInput, RecalculationNotice, RecalculationStatus } from './types';

export function initialRecalculationContext(input: RecalculationInput): RecalculationContext {
  return {
    reportId: input.reportId,
    canEdit: input.canEdit,
    sectionIds: [...input.sectionIds],
    recalculationStatus: input.recalculationStatus,
    freshnessStatus: input.freshnessStatus,
    pendingSections: [],
    lastError: null,
  };
}

/** The report's statuses an update (or the input) tells. */
interface ReportStatus {
  recalculationStatus: RecalculationStatus;
  freshnessStatus: FreshnessStatus;
}

const REFRESH_FAILURE_TOAST: RecalculationNotice = { kind: 'error', message: REFRESH_FAILURE_MESSAGE };

/** The statuses a `recalculation.reportUpdated` carries (the params of its guards and actions). */
const reportStatusOf = ({ event }: { event: Extract<RecalculationEvent, { type: 'recalculation.reportUpdated' }> }): ReportStatus => ({
  recalculationStatus: event.recalculationStatus,
  freshnessStatus: event.freshnessStatus,
});

/**
 * The report page's recalculation (first spec document, section 4 'Recalculation'; second
 * document, section 4): the callouts of the action bar, the controls a recalculation disables
 * and the spinner on each section.
 *
 * - `fresh`, `stale`, `failed`: no recalculation runs; the report was last recalculated (fresh
 *   or stale data) or its last recalculation failed. `recalculation.refresh` (editors only) → `refreshing`.
 *   `recalculation.dataChanged` makes a fresh report `stale` (a failed one keeps its state, its freshness
 *   turns stale).
 * - `refreshing`: POST /business_reports/{id}/refresh (the invoked `refresh`). Accepted →
 *   `recalculating`. Refused → back to the state of the report as last told (fresh, stale or
 *   failed), with the refresh failure toast (`notify`) and `lastError`. A pushed update that
 *   says the report is recalculating moves on at once (the refresh's answer no longer
 *   matters); any other update is only recorded.
 * - `recalculating`: the server recalculates. Entering marks every section pending; each
 *   `recalculation.sectionUpdated` that is no longer recalculating takes its section off. An update that
 *   says the report is recalculated or failed ends it (every spinner stops); one that says it
 *   is still recalculating changes nothing. `recalculation.refresh` is ignored here and while refreshing.
 *
 * In any state, `recalculation.reportUpdated` moves to the state the report's statuses name
 * (recalculating, failed, or fresh/stale by freshness), `recalculation.settingsChanged` (a saved range or
 * currency: the server recalculates) → `recalculating` (afresh, when already there), and
 * `recalculation.sectionUpdated` tracks that section. The input is applied as the first `recalculation.reportUpdated`,
 * so the machine starts in the state the loaded report names by the same rules.
 *
 * The toast is an effect provided by src/ (`notify`); the call is an actor provided the same
 * way (`recalculationActors(services)`).
 */
export const recalculationMachine = setup({
  types: {
    context: {} as RecalculationContext,
    events: {} as RecalculationEvent,
    input: {} as RecalculationInput,
  },
  actors: recalculationActors(servicesNotProvided),
  actions: {
    /** Applies the loaded report (the input) as its first update. */
    applyLoadedReport: raise(({ context }) => ({
      type: 'recalculation.reportUpdated' as const,
      recalculationStatus: context.recalculationStatus,
      freshnessStatus: context.freshnessStatus,
    })),
    recordReport: assign((_, params: ReportStatus) => ({
      recalculationStatus: params.recalculationStatus,
      freshnessStatus: params.freshnessStatus,
    })),
    markStale: assign({ freshnessStatus: 'stale' as const }),
    startRefresh: assign({ lastError: null }),
    startRecalculation: assign(({ context }) => ({
      recalculationStatus: 'recalculating' as const,
      pendingSections: [...context.sectionIds],
      lastError: null,
    })),
    endRecalculation: assign({ pendingSections: [] }),
    trackSection: assign({
      pendingSections: ({ context }, params: { sectionId: string; recalculationStatus: RecalculationStatus }) => {
        const others = context.pendingSections.filter((id) => id !== params.sectionId);
        return params.recalculationStatus === 'recalculating' ? [...others, params.sectionId] : others;
      },
    }),
    assignRefreshFailure: assign({ lastError: REFRESH_FAILURE_MESSAGE }),
    /** Shows a toast (provided: the app's toast helpers). */
    notify: (_, _params: RecalculationNotice) => {},
  },
  guards: {
    canEdit: ({ context }) => context.canEdit,
    isRecalculating: (_, params: ReportStatus) => params.recalculationStatus === 'recalculating',
    isFailed: (_, params: ReportStatus) => params.recalculationStatus === 'failed',
    isStale: (_, params: ReportStatus) => params.freshnessStatus === 'stale',
    /** The report as last told, before a refresh that failed. */
    wasFailed: ({ context }) => context.recalculationStatus === 'failed',
    wasStale: ({ context }) => context.freshnessStatus === 'stale',
  },
}).createMachine({
  id: 'recalculation',
  context: ({ input }) => initialRecalculationContext(input),
  entry: 'applyLoadedReport',
  initial: 'fresh',
  on: {
    'recalculation.reportUpdated': [
      {
        guard: { type: 'isRecalculating', params: reportStatusOf },
        target: '.recalculating',
        actions: { type: 'recordReport', params: reportStatusOf },
      },
      {
        guard: { type: 'isFailed', params: reportStatusOf },
        target: '.failed',
        actions: { type: 'recordReport', params: reportStatusOf },
      },
      {
        guard: { type: 'isStale', params: reportStatusOf },
        target: '.stale',
        actions: { type: 'recordReport', params: reportStatusOf },
      },
      { target: '.fresh', actions: { type: 'recordReport', params: reportStatusOf } },
    ],
    'recalculation.settingsChanged': { target: '.recalculating' },
    'recalculation.sectionUpdated': {
      actions: {
        type: 'trackSection',
        params: ({ event }) => ({ sectionId: event.sectionId, recalculationStatus: event.recalculationStatus }),
      },
    },
  },
  states: {
    fresh: {
      on: {
        'recalculation.refresh': { guard: 'canEdit', target: 'refreshing' },
        'recalculation.dataChanged': { target: 'stale', actions: 'markStale' },
      },
    },

    stale: {
      on: {
        'recalculation.refresh': { guard: 'canEdit', target: 'refreshing' },
      },
    },

    failed: {
      on: {
        'recalculation.refresh': { guard: 'canEdit', target: 'refreshing' },
        'recalculation.dataChanged': { actions: 'markStale' },
      },
    },

    refreshing: {
      entry: 'startRefresh',
      invoke: {
        id: 'refresh',
        src: 'refresh',
        input: ({ context }) => ({ reportId: context.reportId }),
        onDone: { target: 'recalculating' },
        onError: [
          { guard: 'wasFailed', target: 'failed', actions: ['assignRefreshFailure', { type: 'notify', params: REFRESH_FAILURE_TOAST }] },
          { guard: 'wasStale', target: 'stale', actions: ['assignRefreshFailure', { type: 'notify', params: REFRESH_FAILURE_TOAST }] },
          { target: 'fresh', actions: ['assignRefreshFailure', { type: 'notify', params: REFRESH_FAILURE_TOAST }] },
        ],
      },
      on: {
        'recalculation.reportUpdated': [
          {
            guard: { type: 'isRecalculating', params: reportStatusOf },
            target: 'recalculating',
            actions: { type: 'recordReport', params: reportStatusOf },
          },
          { actions: { type: 'recordReport', params: reportStatusOf } },
        ],
      },
    },

    recalculating: {
      entry: 'startRecalculation',
      exit: 'endRecalculation',
      on: {
        'recalculation.reportUpdated': {
          guard: { type: 'isRecalculating', params: reportStatusOf },
          actions: { type: 'recordReport', params: reportStatusOf },
        },
      },
    },
  },
});

export type RecalculationMachine = typeof recalculationMachine;
export type RecalculationSnapshot = SnapshotFrom<RecalculationMachine>;
/** The report page's running recalculation. */
export type RecalculationActorRef = ActorRefFrom<RecalculationMachine>;
