import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import type { ColumnDefinitionInput } from '../../../models/customerColumns';
import { columnRecalculationActors } from '../../../machines/columnRecalculation/columnRecalculationActors';
import type { ColumnRecalculationServices } from '../../../machines/columnRecalculation/columnRecalculationActors';
import { columnRecalculationMachine } from '../../../machines/columnRecalculation/columnRecalculationMachine';
import type { ColumnRecalculationSnapshot } from '../../../machines/columnRecalculation/columnRecalculationMachine';
import { COLUMN_SAVE_FAILURE_MESSAGE } from '../../../machines/columnRecalculation/messages';
import { COLUMN_POLL_DELAYS_MS, columnPollDelayMs } from '../../../machines/columnRecalculation/pollSchedule';
import { canEditColumn, isCalculating, isConfirmingDelete, isDeleting, isSaving, saveFailureMessages } from '../../../machines/columnRecalculation/selectors';
import type { ColumnDefinition, ColumnNotice } from '../../../machines/columnRecalculation/types';
import { coverageGaps, describePath, generatePaths } from '../support/modelPaths';
import type { AnyTestModel, AnyTestPath } from '../support/modelPaths';
import {
  anyColumnRecalculationTestModel,
  columnRecalculationModelEntry,
  columnRecalculationTestModel,
  MODEL_COLUMN_ID,
  modelDefinition,
  modelEvents,
  modelFailures,
  modelInput,
  pathTestParams,
  saved,
} from './columnRecalculationModel';
import type { ColumnExecutors, ColumnModelEvent } from './columnRecalculationModel';

interface Pending<T> {
  kind: 'save' | 'poll' | 'remove';
  args: unknown[];
  signal: AbortSignal;
  settled: boolean;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** The machine with calls that stay pending until the test settles them, a simulated clock and the notices recorded. */
function createHarness(definition: ColumnDefinition | null = null) {
  const calls: Pending<unknown>[] = [];
  const notices: ColumnNotice[] = [];
  const clock = new SimulatedClock();
  const pending = <T,>(kind: Pending<T>['kind'], args: unknown[], signal: AbortSignal) =>
    new Promise<T>((resolve, reject) => calls.push({ kind, args, signal, settled: false, resolve: resolve as (value: unknown) => void, reject }));
  const services: ColumnRecalculationServices = {
    save: (id, input, signal) => pending('save', [id, input], signal),
    fetchDefinitions: (signal) => pending('poll', [], signal),
    remove: (id, signal) => pending('remove', [id], signal),
  };
  const machine = columnRecalculationMachine.provide({ actors: columnRecalculationActors(services), actions: { notify: (_, notice) => notices.push(notice) } });
  const actor = createActor(machine, { clock, input: { definition } }).start();
  async function settle(kind: Pending<unknown>['kind'], outcome: { output: unknown } | { error: unknown }) {
    const call = calls.findLast((entry) => entry.kind === kind && !entry.settled);
    if (!call) throw new Error(`No ${kind} call is pending`);
    call.settled = true;
    if ('output' in outcome) call.resolve(outcome.output);
    else call.reject(outcome.error);
    await flush();
  }
  return { actor, clock, calls, notices, settle, snapshot: (): ColumnRecalculationSnapshot => actor.getSnapshot() };
}
type Harness = ReturnType<typeof createHarness>;

function machineExecutors(harness: Harness): ColumnExecutors {
  const send = async (event: ColumnModelEvent) => {
    harness.actor.send(event as Parameters<typeof harness.actor.send>[0]);
    await flush();
  };
  return {
    'column.save': send,
    'column.dismiss': send,
    'column.deleteAsked': send,
    'column.deleteConfirmed': send,
    'column.deleteCancelled': send,
    'columnsChannel.update': send,
    'xstate.done.actor.save': (event) => harness.settle('save', { output: (event as { output: unknown }).output }),
    'xstate.error.actor.save': (event) => harness.settle('save', { error: (event as { error: unknown }).error }),
    'xstate.done.actor.poll': (event) => harness.settle('poll', { output: (event as { output: unknown }).output }),
    'xstate.error.actor.poll': (event) => harness.settle('poll', { error: (event as { error: unknown }).error }),
    'xstate.done.actor.remove': (event) => harness.settle('remove', { output: (event as { output: unknown }).output }),
    'xstate.error.actor.remove': (event) => harness.settle('remove', { error: (event as { error: unknown }).error }),
    'xstate.after.pollDelay.columnRecalculation.calculating.waiting': async () => {
      const delay = columnPollDelayMs(harness.snapshot().context.polls);
      harness.clock.increment(delay - 1);
      await flush();
      // Not a millisecond early.
      expect(harness.snapshot().matches({ calculating: 'waiting' })).toBe(true);
      harness.clock.increment(1);
      await flush();
    },
  };
}

/** The notices a step between two expected states gives. */
function noticesBetween(before: ColumnRecalculationSnapshot, after: ColumnRecalculationSnapshot): ColumnNotice[] {
  if (before.matches('saving') && after.matches('calculating')) return [{ kind: 'saved', definition: saved }];
  if (before.matches('calculating') && after.matches('finished')) return [{ kind: 'finished', definitionId: MODEL_COLUMN_ID }];
  if ((before.matches('calculating') || before.matches('deleting')) && after.matches('deleted')) return [{ kind: 'deleted', definitionId: MODEL_COLUMN_ID }];
  if (before.matches('deleting') && after.matches('finished')) return [{ kind: 'deleteFailed' }];
  return [];
}

function label(event: ColumnModelEvent): string {
  switch (event.type) {
    case 'columnsChannel.update':
      return `channel(${event.update.id === MODEL_COLUMN_ID ? 'this' : 'another'} column ${event.update.recalculation_status})`;
    case 'xstate.done.actor.save':
      return 'saved';
    case 'xstate.error.actor.save':
      return event.error === modelFailures.invalid ? 'save refused (422)' : 'save failed';
    case 'xstate.done.actor.poll': {
      const own = event.output.find((definition) => definition.id === MODEL_COLUMN_ID);
      return `poll(${own ? own.recalculation_status : 'gone'})`;
    }
    case 'xstate.error.actor.poll':
      return 'poll failed';
    case 'xstate.done.actor.remove':
      return 'deleted';
    case 'xstate.error.actor.remove':
      return 'delete failed';
    case 'xstate.after.pollDelay.columnRecalculation.calculating.waiting':
      return 'poll delay';
    default:
      return event.type;
  }
}

function pathName(path: AnyTestPath): string {
  const events = path.steps.map((step) => step.event as ColumnModelEvent).filter((event) => !event.type.startsWith('xstate.init'));
  return `${events.map(label).join(' → ') || '(start)'} ⇒ ${JSON.stringify(path.state.value)}`;
}

function distinctPaths(model: AnyTestModel): AnyTestPath[] {
  const seen = new Set<string>();
  return [...model.getShortestPaths(), ...model.getSimplePaths()].filter((path) => {
    const key = JSON.stringify(path.steps.map((step) => step.event));
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const paths = generatePaths(anyColumnRecalculationTestModel());
const walked = distinctPaths(anyColumnRecalculationTestModel());

describe('columnRecalculation machine: generated paths', () => {
  it('reaches every state and takes every transition of the chart', () => {
    expect(coverageGaps(columnRecalculationMachine, paths)).toEqual({ states: [], transitions: [] });
    expect(columnRecalculationModelEntry.machine).toBe(columnRecalculationMachine);
  });

  it('notices a transition that no path takes', () => {
    const withoutGone = columnRecalculationTestModel(modelEvents.filter((event) => !(event.type === 'xstate.done.actor.poll' && event.output.length === 0)));
    expect(coverageGaps(columnRecalculationMachine, generatePaths(withoutGone as unknown as AnyTestModel)).transitions).toEqual([
      'columnRecalculation.calculating.polling --xstate.done.actor.poll[1]--> columnRecalculation.deleted',
    ]);
  });

  it('stays a test plan QA can read', () => {
    expect(paths.length).toBeGreaterThan(8);
    expect(paths.length).toBeLessThan(400);
    expect(paths.map(describePath)).toContain('column.save → xstate.done.actor.save → columnsChannel.update → column.deleteAsked → column.deleteConfirmed → xstate.done.actor.remove ⇒ deleted');
  });

  it.each(walked.map((path): [string, AnyTestPath] => [pathName(path), path]))('%s', async (_, path) => {
    const harness = createHarness();
    let previous: ColumnRecalculationSnapshot | null = null;
    let noticesSeen = 0;
    let callsSeen = 0;
    await path.test(
      pathTestParams(machineExecutors(harness), (expected) => {
        const actual = harness.snapshot();
        expect(actual.value).toEqual(expected.value);
        expect(actual.context).toEqual(expected.context);
        if (previous) {
          expect(harness.notices.slice(noticesSeen), 'notices').toEqual(noticesBetween(previous, expected));
          // Each call goes out once, on the way into its state, with what the user asked for.
          const made = harness.calls.slice(callsSeen).map((call) => [call.kind, ...call.args]);
          const entered = (state: 'saving' | 'deleting') => expected.matches(state) && !previous?.matches(state);
          const wanted = [
            ...(entered('saving') ? [['save', previous.context.definition?.id ?? null, modelInput]] : []),
            ...(expected.matches({ calculating: 'polling' }) && !previous.matches({ calculating: 'polling' }) ? [['poll']] : []),
            ...(entered('deleting') ? [['remove', MODEL_COLUMN_ID]] : []),
          ];
          expect(made, 'calls').toEqual(wanted);
        }
        expect(isCalculating(actual)).toBe(expected.matches('calculating'));
        expect(canEditColumn(actual)).toBe(expected.matches('finished'));
        expect(isSaving(actual)).toBe(expected.matches('saving'));
        expect(isConfirmingDelete(actual)).toBe(expected.matches('confirmingDelete'));
        expect(isDeleting(actual)).toBe(expected.matches('deleting'));
        expect(saveFailureMessages(actual).length > 0).toBe(expected.matches('saveFailed'));
        previous = expected;
        noticesSeen = harness.notices.length;
        callsSeen = harness.calls.length;
      }),
    );
    harness.actor.stop();
  });
});

describe('columnRecalculation machine: details', () => {
  it('starts a saved column where its recalculation is', () => {
    expect(createHarness(modelDefinition('in_progress')).snapshot().value).toEqual({ calculating: 'waiting' });
    expect(createHarness(modelDefinition('finished')).snapshot().value).toBe('finished');
    expect(createHarness(null).snapshot().value).toBe('draft');
  });

  it('edits a saved column with PUT (its id) and lists the server’s messages of a refusal', async () => {
    const harness = createHarness(modelDefinition('finished'));
    const edited: ColumnDefinitionInput = { ...modelInput, name: 'Renamed' };
    harness.actor.send({ type: 'column.save', input: edited });
    expect(harness.calls[0]?.args).toEqual([MODEL_COLUMN_ID, edited]);
    await harness.settle('save', { error: modelFailures.invalid });
    expect(saveFailureMessages(harness.snapshot())).toEqual(['Column name is required', 'Unknown variable: arr']);
    harness.actor.send({ type: 'column.dismiss' });
    expect(harness.snapshot().value).toBe('finished');
  });

  it('says the generic message with a support contact for any other failure', async () => {
    const harness = createHarness();
    harness.actor.send({ type: 'column.save', input: modelInput });
    await harness.settle('save', { error: modelFailures.unavailable });
    expect(saveFailureMessages(harness.snapshot())).toEqual([COLUMN_SAVE_FAILURE_MESSAGE]);
    expect(COLUMN_SAVE_FAILURE_MESSAGE).toContain('contact us');
  });

  it('polls on the backoff schedule while no message comes, the last wait repeating', async () => {
    const harness = createHarness(modelDefinition('in_progress'));
    const waits: number[] = [];
    for (let poll = 0; poll < COLUMN_POLL_DELAYS_MS.length + 2; poll += 1) {
      const before = harness.clock.now();
      while (!harness.snapshot().matches({ calculating: 'polling' })) {
        harness.clock.increment(1_000);
        await flush();
      }
      waits.push(harness.clock.now() - before);
      await harness.settle('poll', { output: [modelDefinition('in_progress')] });
    }
    expect(waits).toEqual([...COLUMN_POLL_DELAYS_MS, COLUMN_POLL_DELAYS_MS.at(-1), COLUMN_POLL_DELAYS_MS.at(-1)]);
  });

  it('stops polling once the channel says the column finished (the poll in flight is given up)', async () => {
    const harness = createHarness(modelDefinition('in_progress'));
    harness.clock.increment(columnPollDelayMs(0));
    await flush();
    const poll = harness.calls.find((call) => call.kind === 'poll');
    harness.actor.send({ type: 'columnsChannel.update', update: { id: MODEL_COLUMN_ID, recalculation_status: 'finished' } });
    expect(poll?.signal.aborted).toBe(true);
    expect(harness.snapshot().context.definition?.recalculation_status).toBe('finished');
    harness.clock.increment(10 * 60_000);
    await flush();
    expect(harness.calls.filter((call) => call.kind === 'poll')).toHaveLength(1);
  });
});
