import { assign, enqueueActions, sendTo, setup } from 'xstate';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import { TOAST_AUTO_CLOSE_MS } from '../../models/constants';
import { FILTER_BLOCKED } from '../../models/reportFilter';
import type { ReportViewFilter } from '../../models/reportFilter';
import { recalculationMachine } from '../recalculation/recalculationMachine';
import type { RecalculationSnapshot } from '../recalculation/recalculationMachine';
import { isRecalculating } from '../recalculation/selectors';
import type { RecalculationEvent, RecalculationInput } from '../recalculation/types';
import { reportFilterMachine } from '../reportFilter/reportFilterMachine';
import type { ReportFilterEvent, ReportFilterInput } from '../reportFilter/types';
import { reportPageActors, servicesNotProvided } from './reportPageActors';
import type {
  PageReport,
  PageSettings,
  PageUpdate,
  ReportEdit,
  ReportPageContext,
  ReportPageEvent,
  ReportPageInput,
  ReportPageNotice,
  ReportStatusUpdate,
  SectionUpdate,
  SettingsChange,
} from './types';

export function initialReportPageContext(input: ReportPageInput): ReportPageContext {
  return {
    report: input.report,
    demo: input.demo ?? false,
    shared: input.shared ?? false,
    recalculating: input.report.recalculation_status === 'recalculating',
    editing: [],
    settingsQueue: [],
  };
}

/** The recalculation child's input: the report as loaded (a shared report is never refreshed from the page). */
export function recalculationInputOf(context: ReportPageContext): RecalculationInput {
  const { report } = context;
  return {
    reportId: report.id,
    canEdit: report.can_edit && !context.shared,
    recalculationStatus: report.recalculation_status,
    freshnessStatus: report.freshness_status,
    sectionIds: report.sections.map((section) => section.id),
  };
}

export function reportFilterInputOf(context: ReportPageContext): ReportFilterInput {
  return { secret: context.report.secret, currency: context.report.currency };
}

/** Clears the picker's filter: a recalculation the user started, Add chart, an edit, quarters display turned off. */
const CLEAR_FILTER = { type: 'tellFilter', params: { type: 'filter.clear' } } as const;

const FILTER_BLOCKED_TOAST: ReportPageNotice = { kind: 'filterWarning', message: FILTER_BLOCKED };

/** Settings whose change the server recalculates the report for. */
const RECALCULATING_SETTINGS = ['currency', 'subtract_finite_discount_from_mrr', 'subtract_forever_discount_from_mrr'] as const;

type LiveUpdateEvent = Extract<ReportPageEvent, { type: 'live.update' }>;
const updateOf = ({ event }: { event: LiveUpdateEvent }): PageUpdate => event.update;
const isStatusUpdate = (update: PageUpdate): update is ReportStatusUpdate => update.object === 'business_report';
const savedChange = ({ context }: { context: ReportPageContext }): SettingsChange | undefined => context.settingsQueue[0];

/**
 * The report page (second spec document, sections 2 and 4): what the page shows and which
 * rules hold while it is open. It runs two children, invoked for its whole life:
 * `recalculation` (machines/recalculation, as is: the page sends it its events) and
 * `reportFilter` (machines/reportFilter: the filter's hold-and-replay).
 *
 * Always (targetless, in any state):
 * - `live.update` of the report (`business_report`) tells the recalculation its statuses and
 *   patches the report's; one that no longer recalculates reads the report again (`reload`).
 *   A section's update tells the recalculation (the section's spinner) and goes to the filter
 *   (`filter.update`), which passes it back at once (`filter.released`) while unfiltered and
 *   holds it while a filter is applied or on, replaying it when the filter is cleared.
 *   `filter.released` replaces its section in the report; an update of a section the report
 *   does not have, or a partial one (a status only), changes no section.
 * - `report.reloaded` replaces the report and tells the recalculation its statuses;
 *   `report.changed` replaces it (a local section edit); `report.edited` patches title,
 *   summary or tags (in the demo also kept in this browser: `storeDemoEdit`).
 * - `report.refresh`, `report.periodSaved`, `report.recalculationStarted` and
 *   `report.viewSaved` tell the recalculation (refresh, or settings changed).
 * - The recalculation's snapshots are mirrored (`recalculating`). A recalculation the user
 *   starts on this page (refresh, a range, currency or discount setting, a saved view) clears
 *   the filter; one the server runs on its own (another tab's refresh, the daily refresh) does
 *   not: its updates are held while filtered and replayed when the filter is cleared, so the
 *   filtered numbers on screen never change under the user.
 * - `chart.add` clears the filter; `filter.clear` too.
 *
 * Regions:
 * - `picker`: `closed` → `filter.request` (Filter button, Shift+F) → `open`, unless the report
 *   is shared, recalculates or a section is edited. `open` → `picker.close` → `closed`;
 *   `filter.apply` → `closed`, the item sent to the filter (unless a recalculation or an edit
 *   started meanwhile).
 * - `warning`: a blocked `filter.request` or `filter.apply` shows the filter warning
 *   (FILTER_BLOCKED, `notify`) and stays `shown` for the toast's duration (models/constants.ts),
 *   so pressing again does not pile toasts up.
 * - `edit`: `viewing` → `edit.started` → `editing` (the filter is cleared: edits are of the
 *   original sections) until every started edit ended.
 * - `settings`: `idle` → `settings.change` → `saving` (the invoked `saveSettings`, one change
 *   at a time in order). Saved: the report's settings (and currency) are replaced; a currency
 *   or discount change tells the recalculation (settings changed), display quarters turned off
 *   clears the filter. Refused: the change's failure toast (`notify`).
 *
 * Effects provided by src/: `notify` (toasts), `reload` (read the report again and send
 * `report.reloaded`), `storeDemoEdit`; the call `saveSettings` (`reportPageActors(services)`),
 * and the children's own (`recalculation`, `reportFilter`: their machines provided).
 */
export const reportPageMachine = setup({
  types: {
    context: {} as ReportPageContext,
    events: {} as ReportPageEvent,
    input: {} as ReportPageInput,
  },
  actors: {
    recalculation: recalculationMachine,
    reportFilter: reportFilterMachine,
    ...reportPageActors(servicesNotProvided),
  },
  actions: {
    /** Shows a toast (provided: the app's toast helpers). */
    notify: (_, _params: ReportPageNotice) => {},
    /** Reads the report again (provided: the view reads it and sends `report.reloaded`). */
    reload: () => {},
    /** Keeps a demo report's edit in this browser (provided: localStorage). */
    storeDemoEdit: (_, _params: { reportId: string; change: ReportEdit }) => {},

    tellRecalculation: sendTo('recalculation', (_, params: RecalculationEvent) => params),
    tellFilter: sendTo('reportFilter', (_, params: ReportFilterEvent) => params),

    recordRecalculation: assign({ recalculating: (_, params: { snapshot: RecalculationSnapshot }) => isRecalculating(params.snapshot) }),
    patchStatuses: assign({
      report: ({ context }, params: ReportStatusUpdate) => ({
        ...context.report,
        recalculation_status: params.recalculation_status,
        freshness_status: params.freshness_status,
        refreshed_at: params.refreshed_at,
      }),
    }),
    patchSection: assign({
      report: ({ context }, params: { update: SectionUpdate }) => ({
        ...context.report,
        sections: context.report.sections.map((section) => (section.id === params.update.section.id ? params.update.section : section)),
      }),
    }),
    replaceReport: assign({ report: (_, params: { report: PageReport }) => params.report }),
    patchReport: assign({ report: ({ context }, params: { change: ReportEdit | { period: unknown } | { filter: ReportViewFilter | null } }) => ({ ...context.report, ...params.change }) }),
    startEdit: assign({ editing: ({ context }, params: { sectionId: string }) => [...context.editing, params.sectionId] }),
    endEdit: assign({
      editing: ({ context }, params: { sectionId: string }) => {
        const index = context.editing.indexOf(params.sectionId);
        return index < 0 ? context.editing : context.editing.filter((_, i) => i !== index);
      },
    }),
    queueSettings: assign({ settingsQueue: ({ context }, params: SettingsChange) => [...context.settingsQueue, params] }),
    applySettings: assign({
      report: ({ context }, params: { settings: PageSettings }) => {
        const currency = context.settingsQueue[0]?.change.currency;
        return { ...context.report, settings: params.settings, ...(currency ? { currency } : {}) };
      },
    }),
    dequeueSettings: assign({ settingsQueue: ({ context }) => context.settingsQueue.slice(1) }),
  },
  guards: {
    isStatusUpdate: (_, params: PageUpdate) => isStatusUpdate(params),
    /** The report's update says it no longer recalculates: read it again (sections sent partially, key numbers). */
    isFinishedUpdate: (_, params: PageUpdate) => isStatusUpdate(params) && params.recalculation_status !== 'recalculating',
    /**
     * A whole section the report has, not older than the one shown: a held update replayed after
     * the report was read again (a reconnection, a finished recalculation) never puts older
     * numbers back.
     */
    isKnownSection: ({ context }, params: { update: SectionUpdate }) => {
      if (params.update.partial === true) return false;
      const { section } = params.update;
      const shown = context.report.sections.find((candidate) => candidate.id === section.id);
      return shown !== undefined && !(shown.computed_at && section.computed_at && section.computed_at < shown.computed_at);
    },
    isDemo: ({ context }) => context.demo,
    /** The filter picker may open: not shared, no recalculation, no edit. */
    mayFilter: ({ context }) => !context.shared && !context.recalculating && context.editing.length === 0,
    /** Filtering is refused with the warning: a recalculation runs or a section is edited (shared reports have no filter at all). */
    filterBlocked: ({ context }) => !context.shared && (context.recalculating || context.editing.length > 0),
    /** The edit ending is the last one under way. */
    endsLastEdit: ({ context }, params: { sectionId: string }) => context.editing.length === 1 && context.editing[0] === params.sectionId,
    hasQueuedSettings: ({ context }) => context.settingsQueue.length > 0,
    /** The saved change makes the server recalculate (currency, discounts). */
    savedRecalculates: ({ context }) => {
      const change = context.settingsQueue[0]?.change ?? {};
      return RECALCULATING_SETTINGS.some((setting) => setting in change);
    },
    /** The saved change turned quarters display off. */
    savedQuartersOff: ({ context }) => context.settingsQueue[0]?.change.display_quarters === false,
  },
  delays: {
    /** How long the filter warning shows (the spec's toast duration, models/constants.ts). */
    filterWarning: TOAST_AUTO_CLOSE_MS.filterWarning,
  },
}).createMachine({
  id: 'reportPage',
  context: ({ input }) => initialReportPageContext(input),
  type: 'parallel',
  invoke: [
    {
      id: 'recalculation',
      src: 'recalculation',
      input: ({ context }) => recalculationInputOf(context),
      onSnapshot: { actions: { type: 'recordRecalculation', params: ({ event }) => ({ snapshot: event.snapshot }) } },
    },
    { id: 'reportFilter', src: 'reportFilter', input: ({ context }) => reportFilterInputOf(context) },
  ],
  on: {
    'live.update': [
      {
        guard: { type: 'isFinishedUpdate', params: updateOf },
        actions: [
          { type: 'tellRecalculation', params: ({ event }) => recalculationUpdateOf(event.update as ReportStatusUpdate) },
          { type: 'patchStatuses', params: ({ event }) => event.update as ReportStatusUpdate },
          'reload',
        ],
      },
      {
        guard: { type: 'isStatusUpdate', params: updateOf },
        actions: [
          { type: 'tellRecalculation', params: ({ event }) => recalculationUpdateOf(event.update as ReportStatusUpdate) },
          { type: 'patchStatuses', params: ({ event }) => event.update as ReportStatusUpdate },
        ],
      },
      {
        actions: [
          {
            type: 'tellRecalculation',
            params: ({ event }) => {
              const { section } = event.update as SectionUpdate;
              return { type: 'recalculation.sectionUpdated', sectionId: section.id, recalculationStatus: section.recalculation_status };
            },
          },
          { type: 'tellFilter', params: ({ event }) => ({ type: 'filter.update', update: event.update as SectionUpdate }) },
        ],
      },
    ],
    'filter.released': {
      guard: { type: 'isKnownSection', params: ({ event }) => ({ update: event.update }) },
      actions: { type: 'patchSection', params: ({ event }) => ({ update: event.update }) },
    },
    'report.reloaded': {
      actions: [
        { type: 'replaceReport', params: ({ event }) => ({ report: event.report }) },
        {
          type: 'tellRecalculation',
          params: ({ event }) => ({ type: 'recalculation.reportUpdated', recalculationStatus: event.report.recalculation_status, freshnessStatus: event.report.freshness_status }),
        },
      ],
    },
    'report.changed': { actions: { type: 'replaceReport', params: ({ event }) => ({ report: event.report }) } },
    'report.edited': {
      actions: enqueueActions(({ context, event, enqueue, check }) => {
        enqueue({ type: 'patchReport', params: { change: event.change } });
        if (check('isDemo')) enqueue({ type: 'storeDemoEdit', params: { reportId: context.report.id, change: event.change } });
      }),
    },
    'report.refresh': { actions: [{ type: 'tellRecalculation', params: { type: 'recalculation.refresh' } }, CLEAR_FILTER] },
    'report.periodSaved': {
      actions: [{ type: 'patchReport', params: ({ event }) => ({ change: { period: event.period } }) }, { type: 'tellRecalculation', params: { type: 'recalculation.settingsChanged' } }, CLEAR_FILTER],
    },
    'report.recalculationStarted': { actions: [{ type: 'tellRecalculation', params: { type: 'recalculation.settingsChanged' } }, CLEAR_FILTER] },
    'report.viewSaved': {
      actions: [
        { type: 'patchReport', params: ({ event }) => ({ change: { filter: event.filter } }) },
        { type: 'tellRecalculation', params: { type: 'recalculation.settingsChanged' } },
        CLEAR_FILTER,
      ],
    },
    'chart.add': { actions: { type: 'tellFilter', params: { type: 'filter.clear' } } },
    'filter.clear': { actions: { type: 'tellFilter', params: { type: 'filter.clear' } } },
    'settings.change': { actions: { type: 'queueSettings', params: ({ event }) => ({ change: event.change, failure: event.failure }) } },
  },
  states: {
    picker: {
      initial: 'closed',
      states: {
        closed: {
          on: {
            'filter.request': { guard: 'mayFilter', target: 'open' },
          },
        },
        open: {
          on: {
            'picker.close': { target: 'closed' },
            'filter.apply': [
              { guard: 'filterBlocked', target: 'closed' },
              {
                target: 'closed',
                actions: { type: 'tellFilter', params: ({ context, event }) => ({ type: 'filter.apply', item: event.item, currency: context.report.currency }) },
              },
            ],
          },
        },
      },
    },

    warning: {
      initial: 'hidden',
      states: {
        hidden: {
          on: {
            'filter.request': { guard: 'filterBlocked', target: 'shown', actions: { type: 'notify', params: FILTER_BLOCKED_TOAST } },
            'filter.apply': { guard: 'filterBlocked', target: 'shown', actions: { type: 'notify', params: FILTER_BLOCKED_TOAST } },
          },
        },
        shown: {
          after: {
            filterWarning: { target: 'hidden' },
          },
        },
      },
    },

    edit: {
      initial: 'viewing',
      states: {
        viewing: {
          on: {
            'edit.started': {
              target: 'editing',
              actions: [{ type: 'startEdit', params: ({ event }) => ({ sectionId: event.sectionId }) }, { type: 'tellFilter', params: { type: 'filter.clear' } }],
            },
          },
        },
        editing: {
          on: {
            'edit.started': { actions: { type: 'startEdit', params: ({ event }) => ({ sectionId: event.sectionId }) } },
            'edit.ended': [
              { guard: { type: 'endsLastEdit', params: ({ event }) => ({ sectionId: event.sectionId }) }, target: 'viewing', actions: { type: 'endEdit', params: ({ event }) => ({ sectionId: event.sectionId }) } },
              { actions: { type: 'endEdit', params: ({ event }) => ({ sectionId: event.sectionId }) } },
            ],
          },
        },
      },
    },

    settings: {
      initial: 'idle',
      states: {
        idle: {
          always: { guard: 'hasQueuedSettings', target: 'saving' },
        },
        saving: {
          invoke: {
            id: 'saveSettings',
            src: 'saveSettings',
            input: ({ context }) => ({ reportId: context.report.id, change: context.settingsQueue[0]?.change ?? {}, failure: context.settingsQueue[0]?.failure ?? '' }),
            onDone: [
              {
                guard: 'savedRecalculates',
                target: 'idle',
                actions: [
                  { type: 'applySettings', params: ({ event }) => ({ settings: event.output }) },
                  'dequeueSettings',
                  { type: 'tellRecalculation', params: { type: 'recalculation.settingsChanged' } },
                  CLEAR_FILTER,
                ],
              },
              {
                guard: 'savedQuartersOff',
                target: 'idle',
                actions: [{ type: 'applySettings', params: ({ event }) => ({ settings: event.output }) }, 'dequeueSettings', { type: 'tellFilter', params: { type: 'filter.clear' } }],
              },
              { target: 'idle', actions: [{ type: 'applySettings', params: ({ event }) => ({ settings: event.output }) }, 'dequeueSettings'] },
            ],
            onError: {
              target: 'idle',
              actions: [{ type: 'notify', params: (args) => ({ kind: 'error' as const, message: savedChange(args)?.failure ?? '' }) }, 'dequeueSettings'],
            },
          },
        },
      },
    },
  },
});

/** The recalculation's event for the report's update. */
function recalculationUpdateOf(update: ReportStatusUpdate): RecalculationEvent {
  return { type: 'recalculation.reportUpdated', recalculationStatus: update.recalculation_status, freshnessStatus: update.freshness_status };
}

export type ReportPageMachine = typeof reportPageMachine;
export type ReportPageSnapshot = SnapshotFrom<ReportPageMachine>;
/** The report page's running workflow. */
export type ReportPageActorRef = ActorRefFrom<ReportPageMachine>;
