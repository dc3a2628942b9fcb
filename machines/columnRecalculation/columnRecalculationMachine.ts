import { assign, setup } from 'xstate';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import type { ColumnDefinitionInput } from '../../models/customerColumns';
import { columnRecalculationActors, servicesNotProvided, toColumnSaveFailure } from './columnRecalculationActors';
import { columnPollDelayMs, nextPollCount } from './pollSchedule';
import type { ColumnDefinition, ColumnNotice, ColumnRecalculationContext, ColumnRecalculationEvent, ColumnRecalculationInput, ColumnStatusUpdate } from './types';

type ChannelEvent = Extract<ColumnRecalculationEvent, { type: 'columnsChannel.update' }>;
const updateOf = ({ event }: { event: ChannelEvent }): ColumnStatusUpdate => event.update;

/**
 * One calculated column of the customers table, from the 'Create column' drawer to its
 * values (spec: "Column recalculation: in_progress (shown as 'Calculating:' with a spinner, no
 * edit or delete) then finished (edit and delete allowed). After saving a column the drawer
 * closes."):
 *
 * - `draft`: a new column, the drawer's form, nothing sent. `column.save` → `saving`. A saved
 *   column (the input's definition) passes straight on by its `recalculation_status`, to
 *   `calculating` or `finished`.
 * - `saving`: POST (new) or PUT (saved) /customer_related_metric_definitions (the invoked
 *   `save`). Saved → `calculating`, telling the page (`saved`: the drawer closes, the user's
 *   columns are read again). Refused → `saveFailed`.
 * - `saveFailed`: the drawer lists the server's 400/422 messages, or a generic message with a
 *   support contact; the form keeps what was typed. `column.save` tries again;
 *   `column.dismiss` (the drawer closed) goes back to `finished`, or `draft` for a new column.
 * - `calculating`: the server's job computes every customer's value. It ends with the
 *   CustomerColumnsChannel message that this column finished, or, should that message be
 *   missed, with a fallback poll of GET /customer_related_metric_definitions (`waiting` the
 *   backoff of pollSchedule.ts, then `polling`; a failed poll waits again). The column gone
 *   from the list (deleted elsewhere) → `deleted`. No edit or delete meanwhile.
 * - `finished`: the values are in (the page reads the table again). `column.save` edits it
 *   (→ `saving`); `column.deleteAsked` → `confirmingDelete`; a channel message that its
 *   recalculation started (an edit in another tab) → `calculating`.
 * - `confirmingDelete`: `column.deleteConfirmed` → `deleting`; `column.deleteCancelled` → `finished`.
 * - `deleting`: DELETE .../{id} (the invoked `remove`). Done → `deleted` (final); refused →
 *   `finished`, with the delete failure toast.
 *
 * The page's reactions are the provided `notify` effect; the calls are actors provided the
 * same way (`columnRecalculationActors(services)`).
 */
export const columnRecalculationMachine = setup({
  types: {
    context: {} as ColumnRecalculationContext,
    events: {} as ColumnRecalculationEvent,
    input: {} as ColumnRecalculationInput,
  },
  actors: columnRecalculationActors(servicesNotProvided),
  actions: {
    assignRequest: assign({ request: (_, params: { input: ColumnDefinitionInput }) => params.input, failure: null }),
    assignSaved: assign({ definition: (_, params: { definition: ColumnDefinition }) => params.definition, request: null, failure: null }),
    assignFailure: assign({ failure: (_, params: { error: unknown }) => toColumnSaveFailure(params.error) }),
    clearFailure: assign({ failure: null, request: null }),
    resetPolls: assign({ polls: 0 }),
    countPoll: assign({ polls: ({ context }) => nextPollCount(context.polls) }),
    assignStatus: assign({
      definition: ({ context }, params: { status: ColumnDefinition['recalculation_status'] }) => (context.definition ? { ...context.definition, recalculation_status: params.status } : null),
    }),
    assignPolled: assign({
      definition: ({ context }, params: { definitions: ColumnDefinition[] }) => params.definitions.find((definition) => definition.id === context.definition?.id) ?? context.definition,
    }),
    /** Tells the page (provided: close the drawer, read the columns and the table again, toast). */
    notify: (_, _params: ColumnNotice) => {},
  },
  guards: {
    isInProgress: ({ context }) => context.definition?.recalculation_status === 'in_progress',
    hasDefinition: ({ context }) => context.definition !== null,
    isOwnFinished: ({ context }, params: ColumnStatusUpdate) => params.id === context.definition?.id && params.recalculation_status === 'finished',
    isOwnStarted: ({ context }, params: ColumnStatusUpdate) => params.id === context.definition?.id && params.recalculation_status === 'in_progress',
    polledFinished: ({ context }, params: { definitions: ColumnDefinition[] }) =>
      params.definitions.some((definition) => definition.id === context.definition?.id && definition.recalculation_status === 'finished'),
    polledGone: ({ context }, params: { definitions: ColumnDefinition[] }) => !params.definitions.some((definition) => definition.id === context.definition?.id),
  },
  delays: {
    /** The wait before the next fallback poll (pollSchedule.ts). */
    pollDelay: ({ context }) => columnPollDelayMs(context.polls),
  },
}).createMachine({
  id: 'columnRecalculation',
  context: ({ input }) => ({ definition: input.definition, polls: 0, failure: null, request: null }),
  initial: 'draft',
  states: {
    draft: {
      always: [
        { guard: 'isInProgress', target: 'calculating' },
        { guard: 'hasDefinition', target: 'finished' },
      ],
      on: {
        'column.save': { target: 'saving', actions: { type: 'assignRequest', params: ({ event }) => ({ input: event.input }) } },
      },
    },

    saving: {
      invoke: {
        id: 'save',
        src: 'save',
        input: ({ context }) => ({ id: context.definition?.id ?? null, input: context.request as ColumnDefinitionInput }),
        onDone: {
          target: 'calculating',
          actions: [
            { type: 'assignSaved', params: ({ event }) => ({ definition: event.output }) },
            { type: 'notify', params: ({ event }) => ({ kind: 'saved' as const, definition: event.output }) },
          ],
        },
        onError: { target: 'saveFailed', actions: { type: 'assignFailure', params: ({ event }) => ({ error: event.error }) } },
      },
    },

    saveFailed: {
      on: {
        'column.save': { target: 'saving', actions: { type: 'assignRequest', params: ({ event }) => ({ input: event.input }) } },
        'column.dismiss': [
          { guard: 'hasDefinition', target: 'finished', actions: 'clearFailure' },
          { target: 'draft', actions: 'clearFailure' },
        ],
      },
    },

    calculating: {
      entry: 'resetPolls',
      initial: 'waiting',
      on: {
        'columnsChannel.update': {
          guard: { type: 'isOwnFinished', params: updateOf },
          target: 'finished',
          actions: [{ type: 'assignStatus', params: { status: 'finished' } }, { type: 'notify', params: ({ context }) => ({ kind: 'finished' as const, definitionId: context.definition?.id ?? '' }) }],
        },
      },
      states: {
        waiting: {
          after: { pollDelay: 'polling' },
        },
        polling: {
          invoke: {
            id: 'poll',
            src: 'poll',
            onDone: [
              {
                guard: { type: 'polledFinished', params: ({ event }) => ({ definitions: event.output }) },
                target: '#columnRecalculation.finished',
                actions: [
                  { type: 'assignPolled', params: ({ event }) => ({ definitions: event.output }) },
                  { type: 'notify', params: ({ context }) => ({ kind: 'finished' as const, definitionId: context.definition?.id ?? '' }) },
                ],
              },
              {
                guard: { type: 'polledGone', params: ({ event }) => ({ definitions: event.output }) },
                target: '#columnRecalculation.deleted',
                actions: { type: 'notify', params: ({ context }) => ({ kind: 'deleted' as const, definitionId: context.definition?.id ?? '' }) },
              },
              { target: 'waiting', actions: 'countPoll' },
            ],
            onError: { target: 'waiting', actions: 'countPoll' },
          },
        },
      },
    },

    finished: {
      on: {
        'column.save': { target: 'saving', actions: { type: 'assignRequest', params: ({ event }) => ({ input: event.input }) } },
        'column.deleteAsked': { target: 'confirmingDelete' },
        'columnsChannel.update': {
          guard: { type: 'isOwnStarted', params: updateOf },
          target: 'calculating',
          actions: { type: 'assignStatus', params: { status: 'in_progress' } },
        },
      },
    },

    confirmingDelete: {
      on: {
        'column.deleteConfirmed': { target: 'deleting' },
        'column.deleteCancelled': { target: 'finished' },
      },
    },

    deleting: {
      invoke: {
        id: 'remove',
        src: 'remove',
        input: ({ context }) => ({ id: context.definition?.id ?? '' }),
        onDone: { target: 'deleted', actions: { type: 'notify', params: ({ context }) => ({ kind: 'deleted' as const, definitionId: context.definition?.id ?? '' }) } },
        onError: { target: 'finished', actions: { type: 'notify', params: { kind: 'deleteFailed' } } },
      },
    },

    deleted: { type: 'final' },
  },
});

export type ColumnRecalculationMachine = typeof columnRecalculationMachine;
export type ColumnRecalculationSnapshot = SnapshotFrom<ColumnRecalculationMachine>;
export type ColumnRecalculationActorRef = ActorRefFrom<ColumnRecalculationMachine>;
