import { assign, enqueueActions, sendParent, setup } from 'xstate';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import { FILTER_APPLY_FAILURE } from '../../models/reportFilter';
import type { FilterItem } from '../../models/reportFilter';
import { reportFilterActors, servicesNotProvided } from './reportFilterActors';
import type { FilterReleasedEvent, FilterSection, FilterUpdate, ReportFilterContext, ReportFilterEvent, ReportFilterInput, ReportFilterNotice } from './types';

export function initialReportFilterContext(input: ReportFilterInput): ReportFilterContext {
  return { secret: input.secret, currency: input.currency ?? null, item: null, filteredSections: null, previous: null, held: [], lastError: null };
}

const APPLY_FAILURE_TOAST: ReportFilterNotice = { kind: 'error', message: FILTER_APPLY_FAILURE };

type ApplyEvent = Extract<ReportFilterEvent, { type: 'filter.apply' }>;
type UpdateEvent = Extract<ReportFilterEvent, { type: 'filter.update' }>;
const applyOf = ({ event }: { event: ApplyEvent }) => ({ item: event.item, currency: event.currency });
const updateOf = ({ event }: { event: UpdateEvent }) => ({ update: event.update });

/**
 * The report filter's hold-and-replay (second spec document, section 4: "Applying a filter
 * replaces the sections with filtered copies and keeps the originals. Report updates pushed
 * while filtered are held and applied when the filter is cleared").
 *
 * - `unfiltered` (initial): the page shows its own sections. `filter.update` (a live section
 *   update) is passed straight on to the parent (`filter.released`). `filter.apply` → `applying`.
 *   Entering it releases every held update to the parent in arrival order, then forgets them.
 * - `applying`: GET /business_reports/by_secret_filtered for the item (the invoked
 *   `fetchFiltered`). Answered → `filtered` with the filtered sections. Failed → the filter that
 *   was on before (`filtered`, when there was one) or `unfiltered` (releasing what was held),
 *   with the apply failure toast (`notify`) and `lastError`. `filter.apply` picks another item
 *   (the call in flight is given up); `filter.clear` → `unfiltered`. Updates are held.
 * - `filtered`: the page shows the filtered sections. `filter.apply` → `applying` (the current
 *   filter kept to go back to); `filter.clear` → `unfiltered`. Updates are held.
 *
 * `filter.clear` while unfiltered changes nothing. The machine never looks into an update but
 * for its section's id, so it serves any section and update types (types.ts). Releasing is a
 * `sendParent` (`release`, `replayHeld`): run it alone under a parent that takes `filter.released`; the toast is an effect provided by src/
 * (`notify`), the call an actor provided the same way (`reportFilterActors(services)`).
 */
export const reportFilterMachine = setup({
  types: {
    context: {} as ReportFilterContext,
    events: {} as ReportFilterEvent,
    input: {} as ReportFilterInput,
  },
  actors: reportFilterActors(servicesNotProvided),
  actions: {
    /** Sends one update to the parent, to apply now. */
    release: sendParent((_, params: { update: FilterUpdate }) => ({ type: 'filter.released', update: params.update }) satisfies FilterReleasedEvent),
    /** Releases every held update in arrival order, then forgets them. */
    replayHeld: enqueueActions(({ context, enqueue }) => {
      for (const update of context.held) enqueue.sendParent({ type: 'filter.released', update } satisfies FilterReleasedEvent);
      enqueue.assign({ held: [] });
    }),
    hold: assign({ held: ({ context }, params: { update: FilterUpdate }) => [...context.held, params.update] }),
    /** A new item from unfiltered: nothing to go back to. */
    startApply: assign((_, params: { item: FilterItem; currency?: string | undefined }) => ({
      item: params.item,
      previous: null,
      lastError: null,
      ...(params.currency ? { currency: params.currency } : {}),
    })),
    /** A new item over the filter that is on: kept to go back to when the apply fails. */
    startReplacing: assign(({ context }, params: { item: FilterItem; currency?: string | undefined }) => ({
      item: params.item,
      previous: context.item && context.filteredSections ? { item: context.item, sections: context.filteredSections } : null,
      lastError: null,
      ...(params.currency ? { currency: params.currency } : {}),
    })),
    /** Another item while one is being applied (the filter to go back to stays). */
    switchItem: assign((_, params: { item: FilterItem; currency?: string | undefined }) => ({
      item: params.item,
      ...(params.currency ? { currency: params.currency } : {}),
    })),
    assignFiltered: assign((_, params: { sections: FilterSection[] }) => ({ filteredSections: params.sections, previous: null })),
    restorePrevious: assign(({ context }) => ({
      item: context.previous?.item ?? null,
      filteredSections: context.previous?.sections ?? null,
      previous: null,
      lastError: FILTER_APPLY_FAILURE,
    })),
    assignFailure: assign({ item: null, filteredSections: null, previous: null, lastError: FILTER_APPLY_FAILURE }),
    reset: assign({ item: null, filteredSections: null, previous: null, lastError: null }),
    /** Shows a toast (provided: the app's toast helpers). */
    notify: (_, _params: ReportFilterNotice) => {},
  },
  guards: {
    /** A filter was on before this apply. */
    hadFilter: ({ context }) => context.previous !== null,
  },
}).createMachine({
  id: 'reportFilter',
  context: ({ input }) => initialReportFilterContext(input),
  initial: 'unfiltered',
  states: {
    unfiltered: {
      entry: 'replayHeld',
      on: {
        'filter.apply': { target: 'applying', actions: { type: 'startApply', params: applyOf } },
        'filter.update': { actions: { type: 'release', params: updateOf } },
      },
    },

    applying: {
      invoke: {
        id: 'fetchFiltered',
        src: 'fetchFiltered',
        input: ({ context }) => ({ secret: context.secret, item: context.item as FilterItem, currency: context.currency }),
        onDone: { target: 'filtered', actions: { type: 'assignFiltered', params: ({ event }) => ({ sections: event.output }) } },
        onError: [
          { guard: 'hadFilter', target: 'filtered', actions: ['restorePrevious', { type: 'notify', params: APPLY_FAILURE_TOAST }] },
          { target: 'unfiltered', actions: ['assignFailure', { type: 'notify', params: APPLY_FAILURE_TOAST }] },
        ],
      },
      on: {
        'filter.apply': { target: 'applying', reenter: true, actions: { type: 'switchItem', params: applyOf } },
        'filter.clear': { target: 'unfiltered', actions: 'reset' },
        'filter.update': { actions: { type: 'hold', params: updateOf } },
      },
    },

    filtered: {
      on: {
        'filter.apply': { target: 'applying', actions: { type: 'startReplacing', params: applyOf } },
        'filter.clear': { target: 'unfiltered', actions: 'reset' },
        'filter.update': { actions: { type: 'hold', params: updateOf } },
      },
    },
  },
});

export type ReportFilterMachine = typeof reportFilterMachine;
export type ReportFilterSnapshot = SnapshotFrom<ReportFilterMachine>;
/** The report page's filter (invoked by the reportPage machine). */
export type ReportFilterActorRef = ActorRefFrom<ReportFilterMachine>;
