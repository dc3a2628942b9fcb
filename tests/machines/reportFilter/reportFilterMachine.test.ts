import { describe, expect, it } from 'vitest';
import { createActor, setup, sendTo } from 'xstate';
import type { AnyActorRef } from 'xstate';
import { FILTER_APPLY_FAILURE } from '../../../models/reportFilter';
import type { FilterItem } from '../../../models/reportFilter';
import { reportFilterActors, servicesNotProvided } from '../../../machines/reportFilter/reportFilterActors';
import type { ReportFilterServices } from '../../../machines/reportFilter/reportFilterActors';
import { reportFilterMachine } from '../../../machines/reportFilter/reportFilterMachine';
import type { ReportFilterSnapshot } from '../../../machines/reportFilter/reportFilterMachine';
import { activeItem, filteredSections, heldCount, isApplying, isFiltered, lastError } from '../../../machines/reportFilter/selectors';
import type { FilterReleasedEvent, FilterSection, FilterUpdate, ReportFilterEvent, ReportFilterNotice } from '../../../machines/reportFilter/types';
import { coverageGaps, describePath, generatePaths } from '../support/modelPaths';
import type { AnyTestPath } from '../support/modelPaths';
import {
  anyReportFilterTestModel,
  applyRefusal,
  FILTERED_SECTIONS,
  isPageEvent,
  MODEL_CURRENCY,
  MODEL_SECRET,
  modelEvents,
  modelInput,
  modelItems,
  pathTestParams,
  reportFilterModelEntry,
  reportFilterTestModel,
} from './reportFilterModel';
import type { ReportFilterExecutors, ReportFilterModelEvent } from './reportFilterModel';

interface PendingFetch {
  secret: string;
  item: FilterItem;
  currency: string | null;
  signal: AbortSignal;
  settled: boolean;
  resolve: (sections: FilterSection[]) => void;
  reject: (error: unknown) => void;
}

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** A section update of the tests (its own value says which one it is). */
const update = (sectionId: string, value: number) => ({ section: { id: sectionId, value } });

/**
 * The filter machine invoked by a parent that forwards the test's events to it and records what
 * it releases (`filter.released`, a sendParent), with the filtered call pending until the test
 * settles it and the toasts recorded.
 */
function createHarness() {
  const fetches: PendingFetch[] = [];
  const notices: ReportFilterNotice[] = [];
  const released: FilterUpdate[] = [];
  const services: ReportFilterServices = {
    fetchFiltered: (secret, item, currency, signal) =>
      new Promise<FilterSection[]>((resolve, reject) => {
        fetches.push({ secret, item, currency, signal, settled: false, resolve, reject });
      }),
  };
  const filter = reportFilterMachine.provide({
    actors: reportFilterActors(services),
    actions: { notify: (_, notice) => notices.push(notice) },
  });
  const parent = setup({
    types: { events: {} as ReportFilterEvent | FilterReleasedEvent },
    actors: { filter },
  }).createMachine({
    invoke: { id: 'filter', src: 'filter', input: modelInput },
    on: {
      'filter.released': { actions: ({ event }) => released.push(event.update) },
      'filter.apply': { actions: sendTo('filter', ({ event }) => event) },
      'filter.clear': { actions: sendTo('filter', ({ event }) => event) },
      'filter.update': { actions: sendTo('filter', ({ event }) => event) },
    },
  });
  const actor = createActor(parent).start();
  const child = () => (actor.getSnapshot().children as Record<string, AnyActorRef>).filter!;

  async function settleFetch(outcome: { done: FilterSection[] } | { error: unknown }) {
    const pending = fetches.findLast((call) => !call.settled && !call.signal.aborted);
    if (!pending) throw new Error('No filtered call is pending');
    pending.settled = true;
    if ('done' in outcome) pending.resolve(outcome.done);
    else pending.reject(outcome.error);
    await flush();
  }

  return {
    send: (event: ReportFilterEvent) => actor.send(event),
    fetches,
    notices,
    released,
    settleFetch,
    snapshot: (): ReportFilterSnapshot => child().getSnapshot() as ReportFilterSnapshot,
    stop: () => actor.stop(),
  };
}

type Harness = ReturnType<typeof createHarness>;

function machineExecutors(harness: Harness): ReportFilterExecutors {
  const send = async (event: ReportFilterModelEvent) => {
    if (!isPageEvent(event)) throw new Error(`${event.type} is not sent by the page`);
    harness.send(event);
    await flush();
  };
  return {
    'filter.apply': send,
    'filter.clear': send,
    'filter.update': send,
    'xstate.done.actor.fetchFiltered': (event) => harness.settleFetch({ done: 'output' in event ? event.output : [] }),
    'xstate.error.actor.fetchFiltered': (event) => harness.settleFetch({ error: 'error' in event ? event.error : undefined }),
  };
}

const FAILURE: ReportFilterNotice = { kind: 'error', message: FILTER_APPLY_FAILURE };

/** What a step releases to the parent: an update passed through while unfiltered, or everything held when it becomes unfiltered. */
function releasedBetween(before: ReportFilterSnapshot, after: ReportFilterSnapshot, event: ReportFilterModelEvent): FilterUpdate[] {
  if (before.matches('unfiltered')) return event.type === 'filter.update' ? [event.update] : [];
  return after.matches('unfiltered') ? before.context.held : [];
}

const paths = generatePaths(anyReportFilterTestModel());

describe('report filter machine: generated paths', () => {
  it('reaches every state and takes every transition of the chart', () => {
    expect(coverageGaps(reportFilterMachine, paths)).toEqual({ states: [], transitions: [] });
  });

  it('is the registry entry QA lists', () => {
    expect(reportFilterModelEntry.name).toBe('reportFilter');
    expect(reportFilterModelEntry.machine).toBe(reportFilterMachine);
  });

  it('notices a transition that no path takes', () => {
    const withoutFailure = reportFilterTestModel(modelEvents.filter((event) => event.type !== 'xstate.error.actor.fetchFiltered'));
    expect(coverageGaps(reportFilterMachine, generatePaths(withoutFailure as never)).transitions.sort()).toEqual(
      ['reportFilter.applying --xstate.error.actor.fetchFiltered[0]--> reportFilter.filtered', 'reportFilter.applying --xstate.error.actor.fetchFiltered[1]--> reportFilter.unfiltered'].sort(),
    );
  });

  it('stays a test plan QA can read (a bounded number of paths)', () => {
    expect(paths.length).toBeGreaterThan(10);
    expect(paths.length).toBeLessThan(60);
    expect(paths.map(describePath)).toContain('filter.apply → xstate.done.actor.fetchFiltered → filter.update → filter.clear ⇒ unfiltered');
  });

  it.each(paths.map((path): [string, AnyTestPath] => [describePath(path), path]))('%s', async (_, path) => {
    const harness = createHarness();
    let previous: ReportFilterSnapshot | null = null;
    let seen = { notices: 0, released: 0, fetches: 0 };
    let stepIndex = 0;
    await path.test(
      pathTestParams(machineExecutors(harness), (expected) => {
        const actual = harness.snapshot();
        expect(actual.value).toEqual(expected.value);
        expect(actual.context).toEqual(expected.context);
        if (previous) {
          const event = path.steps[stepIndex]?.event as ReportFilterModelEvent;
          expect(harness.released.slice(seen.released), 'released to the page').toEqual(releasedBetween(previous, expected, event));
          const failed = previous.matches('applying') && event.type === 'xstate.error.actor.fetchFiltered';
          expect(harness.notices.slice(seen.notices), 'toasts').toEqual(failed ? [FAILURE] : []);
          // Each apply fetches once, the item the model expects, in the report's currency.
          const fetched = harness.fetches.slice(seen.fetches).map((call) => ({ secret: call.secret, item: call.item, currency: call.currency }));
          expect(fetched, 'filtered calls').toEqual(event.type === 'filter.apply' ? [{ secret: MODEL_SECRET, item: expected.context.item, currency: MODEL_CURRENCY }] : []);
        }
        const inFlight = harness.fetches.filter((call) => !call.settled && !call.signal.aborted);
        expect(inFlight, 'filtered calls in flight').toHaveLength(expected.matches('applying') ? 1 : 0);
        previous = expected;
        seen = { notices: harness.notices.length, released: harness.released.length, fetches: harness.fetches.length };
        stepIndex += 1;
      }),
    );
    harness.stop();
  });
});

describe('report filter machine: hold and replay', () => {
  it('passes updates straight on while unfiltered', async () => {
    const harness = createHarness();
    harness.send({ type: 'filter.update', update: update('a', 1) });
    harness.send({ type: 'filter.update', update: update('b', 1) });
    expect(harness.released).toEqual([update('a', 1), update('b', 1)]);
    expect(heldCount(harness.snapshot())).toBe(0);
  });

  it('holds three updates while filtered and replays them in arrival order when cleared, then holds nothing', async () => {
    const harness = createHarness();
    harness.send({ type: 'filter.apply', item: modelItems.pro });
    await harness.settleFetch({ done: FILTERED_SECTIONS });
    harness.send({ type: 'filter.update', update: update('a', 1) });
    harness.send({ type: 'filter.update', update: update('b', 1) });
    harness.send({ type: 'filter.update', update: update('a', 2) });
    expect(harness.released).toEqual([]);
    expect(heldCount(harness.snapshot())).toBe(3);

    harness.send({ type: 'filter.clear' });
    expect(harness.released).toEqual([update('a', 1), update('b', 1), update('a', 2)]);
    expect(harness.snapshot().value).toBe('unfiltered');
    expect(heldCount(harness.snapshot())).toBe(0);

    // Cleared again: nothing replayed twice.
    harness.send({ type: 'filter.clear' });
    expect(harness.released).toHaveLength(3);
  });

  it('holds updates that arrive while the filter is being applied too, and across another item applied over it', async () => {
    const harness = createHarness();
    harness.send({ type: 'filter.apply', item: modelItems.pro });
    harness.send({ type: 'filter.update', update: update('a', 1) });
    await harness.settleFetch({ done: FILTERED_SECTIONS });
    harness.send({ type: 'filter.update', update: update('b', 1) });
    harness.send({ type: 'filter.apply', item: modelItems.notAnna });
    harness.send({ type: 'filter.update', update: update('c', 1) });
    await harness.settleFetch({ done: [{ id: 'sec_other' }] });
    expect(harness.released).toEqual([]);
    expect(filteredSections(harness.snapshot())).toEqual([{ id: 'sec_other' }]);

    harness.send({ type: 'filter.clear' });
    expect(harness.released).toEqual([update('a', 1), update('b', 1), update('c', 1)]);
  });

  it('replays what it held when a first apply fails (back to unfiltered), with the toast', async () => {
    const harness = createHarness();
    harness.send({ type: 'filter.apply', item: modelItems.pro });
    harness.send({ type: 'filter.update', update: update('a', 1) });
    await harness.settleFetch({ error: applyRefusal });
    expect(harness.snapshot().value).toBe('unfiltered');
    expect(harness.released).toEqual([update('a', 1)]);
    expect(harness.notices).toEqual([FAILURE]);
    expect(lastError(harness.snapshot())).toBe(FILTER_APPLY_FAILURE);
  });

  it('goes back to the filter that was on when applying another one fails, still holding', async () => {
    const harness = createHarness();
    harness.send({ type: 'filter.apply', item: modelItems.pro });
    await harness.settleFetch({ done: FILTERED_SECTIONS });
    harness.send({ type: 'filter.update', update: update('a', 1) });
    harness.send({ type: 'filter.apply', item: modelItems.notAnna });
    expect(isApplying(harness.snapshot())).toBe(true);
    // The filtered sections of the filter on stay shown while the other one is fetched.
    expect(filteredSections(harness.snapshot())).toEqual(FILTERED_SECTIONS);
    await harness.settleFetch({ error: applyRefusal });
    expect(isFiltered(harness.snapshot())).toBe(true);
    expect(activeItem(harness.snapshot())).toEqual(modelItems.pro);
    expect(filteredSections(harness.snapshot())).toEqual(FILTERED_SECTIONS);
    expect(harness.released).toEqual([]);
    expect(harness.notices).toEqual([FAILURE]);
  });

  it('gives up the call in flight when another item is picked or the filter is cleared', async () => {
    const harness = createHarness();
    harness.send({ type: 'filter.apply', item: modelItems.pro });
    harness.send({ type: 'filter.apply', item: modelItems.notAnna });
    expect(harness.fetches.map((call) => call.signal.aborted)).toEqual([true, false]);
    expect(harness.fetches[1]?.item).toEqual(modelItems.notAnna);
    harness.send({ type: 'filter.clear' });
    expect(harness.fetches[1]?.signal.aborted).toBe(true);
    expect(harness.snapshot().value).toBe('unfiltered');
    expect(filteredSections(harness.snapshot())).toBeNull();
  });

  it('fetches in the currency an apply names', async () => {
    const harness = createHarness();
    harness.send({ type: 'filter.apply', item: modelItems.pro, currency: 'EUR' });
    expect(harness.fetches[0]?.currency).toBe('EUR');
  });

  it('fails the call loudly until src/ provides it', async () => {
    await expect(servicesNotProvided.fetchFiltered(MODEL_SECRET, modelItems.pro, null, new AbortController().signal)).rejects.toThrow(/not provided/);
  });
});
