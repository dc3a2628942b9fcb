import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { REFRESH_FAILURE_MESSAGE } from '../../../machines/recalculation/messages';
import { recalculationActors, servicesNotProvided } from '../../../machines/recalculation/recalculationActors';
import type { RecalculationServices } from '../../../machines/recalculation/recalculationActors';
import { recalculationMachine } from '../../../machines/recalculation/recalculationMachine';
import type { RecalculationMachine, RecalculationSnapshot } from '../../../machines/recalculation/recalculationMachine';
import type { RecalculationInput, RecalculationNotice } from '../../../machines/recalculation/types';
import { coverageGaps, describePath, generatePaths } from '../support/modelPaths';
import type { AnyTestModel, AnyTestPath } from '../support/modelPaths';
import {
  anyRecalculationTestModel,
  FIRST_SECTION,
  isPageEvent,
  MODEL_REPORT_ID,
  MODEL_SECTION_IDS,
  modelEvents,
  modelInput,
  pathTestParams,
  recalculationModelEntry,
  recalculationTestModel,
  refreshRefusal,
  reportUpdates,
  SECOND_SECTION,
} from './recalculationModel';
import type { RecalculationExecutors, RecalculationModelEvent } from './recalculationModel';

interface PendingRefresh {
  reportId: string;
  signal: AbortSignal;
  settled: boolean;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Lets the promise callbacks of a settled call and the machine's reaction run. */
const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** The machine with a refresh call that stays pending until the test settles it, and the toasts recorded. */
function createHarness(input: RecalculationInput = modelInput, machine: RecalculationMachine = recalculationMachine) {
  const refreshes: PendingRefresh[] = [];
  const notices: RecalculationNotice[] = [];

  const services: RecalculationServices = {
    refresh: (reportId, signal) =>
      new Promise<void>((resolve, reject) => {
        refreshes.push({ reportId, signal, settled: false, resolve, reject });
      }),
  };

  const provided = machine.provide({
    actors: recalculationActors(services),
    actions: { notify: (_, notice) => notices.push(notice) },
  });
  const actor = createActor(provided, { input }).start();

  /** Settles the pending refresh call. */
  async function settleRefresh(outcome: { done: true } | { error: unknown }) {
    const pending = refreshes.findLast((call) => !call.settled);
    if (!pending) throw new Error('No refresh call is pending');
    pending.settled = true;
    if ('done' in outcome) pending.resolve();
    else pending.reject(outcome.error);
    await flush();
  }

  return { actor, refreshes, notices, settleRefresh, snapshot: (): RecalculationSnapshot => actor.getSnapshot() };
}

type Harness = ReturnType<typeof createHarness>;

function send(harness: Harness) {
  return async (event: RecalculationModelEvent) => {
    if (!isPageEvent(event)) throw new Error(`${event.type} is not sent by the report page`);
    harness.actor.send(event);
    await flush();
  };
}

/** How each model event is made to happen against the machine. */
function machineExecutors(harness: Harness): RecalculationExecutors {
  return {
    'recalculation.refresh': send(harness),
    'recalculation.reportUpdated': send(harness),
    'recalculation.sectionUpdated': send(harness),
    'recalculation.settingsChanged': send(harness),
    'recalculation.dataChanged': send(harness),
    'xstate.done.actor.refresh': () => harness.settleRefresh({ done: true }),
    'xstate.error.actor.refresh': (event) => harness.settleRefresh({ error: 'error' in event ? event.error : undefined }),
  } satisfies RecalculationExecutors;
}

const FAILURE: RecalculationNotice = { kind: 'error', message: REFRESH_FAILURE_MESSAGE };
const isSettled = (snapshot: RecalculationSnapshot) => snapshot.matches('fresh') || snapshot.matches('stale') || snapshot.matches('failed');

/** The toasts a step between two expected states must show: the failure toast of a refused refresh. */
function noticesBetween(before: RecalculationSnapshot, after: RecalculationSnapshot): RecalculationNotice[] {
  return before.matches('refreshing') && isSettled(after) ? [FAILURE] : [];
}

/** Every distinct path of the model (shortest and simple, payloads included). */
function distinctPaths(model: AnyTestModel): AnyTestPath[] {
  const seen = new Set<string>();
  return [...model.getShortestPaths(), ...model.getSimplePaths()].filter((path) => {
    const key = JSON.stringify(path.steps.map((step) => step.event));
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function label(event: RecalculationModelEvent): string {
  switch (event.type) {
    case 'recalculation.reportUpdated':
      return `recalculation.reportUpdated(${event.recalculationStatus}, ${event.freshnessStatus})`;
    case 'recalculation.sectionUpdated':
      return `recalculation.sectionUpdated(${event.sectionId} ${event.recalculationStatus})`;
    case 'xstate.done.actor.refresh':
      return 'refresh accepted';
    case 'xstate.error.actor.refresh':
      return 'refresh failed';
    default:
      return event.type;
  }
}

function pathName(path: AnyTestPath): string {
  const events = path.steps.map((step) => step.event as RecalculationModelEvent).filter((event) => !event.type.startsWith('xstate.init'));
  return `${events.map(label).join(' → ') || '(start)'} ⇒ ${JSON.stringify(path.state.value)}`;
}

const paths = generatePaths(anyRecalculationTestModel());
const walked = distinctPaths(anyRecalculationTestModel());

describe('recalculation machine: generated paths', () => {
  it('reaches every state and takes every transition of the chart', () => {
    expect(coverageGaps(recalculationMachine, paths)).toEqual({ states: [], transitions: [] });
  });

  it('is the registry entry QA lists', () => {
    expect(recalculationModelEntry.name).toBe('recalculation');
    expect(recalculationModelEntry.machine).toBe(recalculationMachine);
    expect(coverageGaps(recalculationModelEntry.machine, generatePaths(recalculationModelEntry.model()))).toEqual({ states: [], transitions: [] });
  });

  it('notices a transition that no path takes', () => {
    const withoutDataChange = recalculationTestModel(modelEvents.filter((event) => event.type !== 'recalculation.dataChanged'));
    const gaps = coverageGaps(recalculationMachine, generatePaths(withoutDataChange as unknown as AnyTestModel));
    expect(gaps.transitions.sort()).toEqual(
      ['recalculation.failed --recalculation.dataChanged[0]--> (self)', 'recalculation.fresh --recalculation.dataChanged[0]--> recalculation.stale'].sort(),
    );

    const withoutRefusal = recalculationTestModel(modelEvents.filter((event) => event.type !== 'xstate.error.actor.refresh'));
    expect(coverageGaps(recalculationMachine, generatePaths(withoutRefusal as unknown as AnyTestModel)).transitions.sort()).toEqual(
      [
        'recalculation.refreshing --xstate.error.actor.refresh[0]--> recalculation.failed',
        'recalculation.refreshing --xstate.error.actor.refresh[1]--> recalculation.stale',
        'recalculation.refreshing --xstate.error.actor.refresh[2]--> recalculation.fresh',
      ].sort(),
    );
  });

  it('takes each way back from a refused refresh: to the state of the report as last told', () => {
    const ways = new Set<string>();
    for (const path of paths) {
      path.steps.forEach((step, index) => {
        const before = path.steps[index - 1]?.state as RecalculationSnapshot | undefined;
        const after = step.state as RecalculationSnapshot;
        if (step.event.type === 'xstate.error.actor.refresh' && before) ways.add(`${before.context.recalculationStatus}/${before.context.freshnessStatus} → ${JSON.stringify(after.value)}`);
      });
    }
    expect([...ways].sort()).toEqual(['failed/fresh → "failed"', 'recalculated/fresh → "fresh"', 'recalculated/stale → "stale"']);
  });

  it('stays a test plan QA can read (a bounded number of paths)', () => {
    expect(paths.length).toBeGreaterThan(20);
    expect(paths.length).toBeLessThan(80);
    expect(paths.map(describePath)).toContain('recalculation.settingsChanged → recalculation.sectionUpdated → recalculation.reportUpdated ⇒ fresh');
  });

  it.each(walked.map((path): [string, AnyTestPath] => [pathName(path), path]))('%s', async (_, path) => {
    const harness = createHarness();
    let previous: RecalculationSnapshot | null = null;
    let noticesSeen = 0;
    let refreshesSeen = 0;
    await path.test(
      pathTestParams(machineExecutors(harness), (expected) => {
        const actual = harness.snapshot();
        expect(actual.value).toEqual(expected.value);
        expect(actual.context).toEqual(expected.context);
        if (previous) {
          expect(harness.notices.slice(noticesSeen), 'toasts').toEqual(noticesBetween(previous, expected));
          // A refresh is POSTed once, on the way into refreshing, for the report of the input.
          const posted = harness.refreshes.slice(refreshesSeen).map((call) => call.reportId);
          expect(posted, 'refresh calls').toEqual(expected.matches('refreshing') && !previous.matches('refreshing') ? [MODEL_REPORT_ID] : []);
        }
        // A refresh given up (the server said recalculating, settings changed) is aborted.
        const inFlight = harness.refreshes.filter((call) => !call.settled && !call.signal.aborted);
        expect(inFlight, 'refresh calls in flight').toHaveLength(expected.matches('refreshing') ? 1 : 0);
        previous = expected;
        noticesSeen = harness.notices.length;
        refreshesSeen = harness.refreshes.length;
      }),
    );
    harness.actor.stop();
  });

  it('fails a path whose executor does not reach the expected state', async () => {
    const [path] = recalculationTestModel()
      .getShortestPaths()
      .filter((p) => p.state.matches('fresh') && p.state.context.lastError !== null);
    if (!path) throw new Error('no path to a refused refresh');
    const harness = createHarness();
    const executors = machineExecutors(harness);
    // A broken server that accepts every refresh.
    executors['xstate.error.actor.refresh'] = () => harness.settleRefresh({ done: true });
    await expect(path.test(pathTestParams(executors, (expected) => expect(harness.snapshot().value).toEqual(expected.value)))).rejects.toThrow();
  });
});

describe('recalculation machine: the report as loaded', () => {
  it.each([
    ['recalculated', 'fresh', 'fresh', []],
    ['recalculated', 'stale', 'stale', []],
    ['recalculating', 'fresh', 'recalculating', [...MODEL_SECTION_IDS]],
    ['recalculating', 'stale', 'recalculating', [...MODEL_SECTION_IDS]],
    ['failed', 'fresh', 'failed', []],
    ['failed', 'stale', 'failed', []],
  ] as const)('a %s, %s report starts %s', (recalculationStatus, freshnessStatus, state, pending) => {
    const { snapshot } = createHarness({ ...modelInput, recalculationStatus, freshnessStatus });
    expect(snapshot().value).toBe(state);
    expect(snapshot().context).toMatchObject({ recalculationStatus, freshnessStatus, pendingSections: pending, lastError: null });
  });
});

describe('recalculation machine: effects', () => {
  it('POSTs the refresh of its report, then shows every section pending until its update arrives', async () => {
    const harness = createHarness({ ...modelInput, freshnessStatus: 'stale' });
    harness.actor.send({ type: 'recalculation.refresh' });
    expect(harness.snapshot().value).toBe('refreshing');
    expect(harness.refreshes.map((call) => call.reportId)).toEqual([MODEL_REPORT_ID]);

    await harness.settleRefresh({ done: true });
    expect(harness.snapshot().value).toBe('recalculating');
    expect(harness.snapshot().context.pendingSections).toEqual([...MODEL_SECTION_IDS]);

    harness.actor.send({ type: 'recalculation.sectionUpdated', sectionId: SECOND_SECTION, recalculationStatus: 'recalculated' });
    expect(harness.snapshot().context.pendingSections).toEqual([FIRST_SECTION]);
    // A section whose recalculation failed shows its (old) content too: its update arrived.
    harness.actor.send({ type: 'recalculation.sectionUpdated', sectionId: FIRST_SECTION, recalculationStatus: 'failed' });
    expect(harness.snapshot().context.pendingSections).toEqual([]);
    expect(harness.snapshot().value).toBe('recalculating');

    harness.actor.send(reportUpdates.fresh);
    expect(harness.snapshot().value).toBe('fresh');
    expect(harness.notices).toEqual([]);
  });

  it('stops every spinner when the report says it is recalculated, even before its sections do', () => {
    const harness = createHarness({ ...modelInput, recalculationStatus: 'recalculating' });
    harness.actor.send(reportUpdates.stale);
    expect(harness.snapshot().value).toBe('stale');
    expect(harness.snapshot().context.pendingSections).toEqual([]);
  });

  it('goes back to the report as it was when the refresh is refused, with the failure toast and lastError', async () => {
    const harness = createHarness({ ...modelInput, freshnessStatus: 'stale' });
    harness.actor.send({ type: 'recalculation.refresh' });
    await harness.settleRefresh({ error: refreshRefusal });
    expect(harness.snapshot().value).toBe('stale');
    expect(harness.snapshot().context.lastError).toBe('Something went wrong and we could not refresh the report');
    expect(harness.notices).toEqual([FAILURE]);

    // The next attempt clears it.
    harness.actor.send({ type: 'recalculation.refresh' });
    expect(harness.snapshot().context.lastError).toBeNull();
    await harness.settleRefresh({ error: new TypeError('Failed to fetch') });
    expect(harness.notices).toEqual([FAILURE, FAILURE]);
  });

  it('goes back to failed when the refresh of a failed report is refused', async () => {
    const harness = createHarness({ ...modelInput, recalculationStatus: 'failed' });
    harness.actor.send({ type: 'recalculation.refresh' });
    await harness.settleRefresh({ error: refreshRefusal });
    expect(harness.snapshot().value).toBe('failed');
  });

  it('goes back to what the last update said when a refresh is refused after it', async () => {
    const harness = createHarness();
    harness.actor.send({ type: 'recalculation.refresh' });
    harness.actor.send(reportUpdates.stale);
    expect(harness.snapshot().value).toBe('refreshing');
    await harness.settleRefresh({ error: refreshRefusal });
    expect(harness.snapshot().value).toBe('stale');
  });

  it('moves on at once when the server says it recalculates before the refresh answers; the answer no longer matters', async () => {
    const harness = createHarness();
    harness.actor.send({ type: 'recalculation.refresh' });
    const call = harness.refreshes[0];
    harness.actor.send(reportUpdates.recalculating);
    expect(harness.snapshot().value).toBe('recalculating');
    expect(call?.signal.aborted).toBe(true);

    await harness.settleRefresh({ error: new DOMException('aborted', 'AbortError') });
    expect(harness.snapshot().value).toBe('recalculating');
    expect(harness.notices).toEqual([]);
  });

  it('does not refresh for a viewer who cannot edit', () => {
    const harness = createHarness({ ...modelInput, canEdit: false, freshnessStatus: 'stale' });
    expect(harness.snapshot().can({ type: 'recalculation.refresh' })).toBe(false);
    harness.actor.send({ type: 'recalculation.refresh' });
    expect(harness.snapshot().value).toBe('stale');
    expect(harness.refreshes).toEqual([]);
  });

  it('ignores Refresh while refreshing or recalculating', async () => {
    const harness = createHarness();
    harness.actor.send({ type: 'recalculation.refresh' });
    harness.actor.send({ type: 'recalculation.refresh' });
    expect(harness.refreshes).toHaveLength(1);
    await harness.settleRefresh({ done: true });
    expect(harness.snapshot().can({ type: 'recalculation.refresh' })).toBe(false);
    harness.actor.send({ type: 'recalculation.refresh' });
    expect(harness.refreshes).toHaveLength(1);
    expect(harness.snapshot().value).toBe('recalculating');
  });

  it('recalculates after saved settings, and starts every spinner again when saved during a recalculation', () => {
    const harness = createHarness();
    harness.actor.send({ type: 'recalculation.settingsChanged' });
    expect(harness.snapshot().value).toBe('recalculating');
    harness.actor.send({ type: 'recalculation.sectionUpdated', sectionId: FIRST_SECTION, recalculationStatus: 'recalculated' });
    expect(harness.snapshot().context.pendingSections).toEqual([SECOND_SECTION]);
    harness.actor.send({ type: 'recalculation.settingsChanged' });
    expect(harness.snapshot().context.pendingSections).toEqual([...MODEL_SECTION_IDS]);
  });

  it('turns a fresh report stale when its data changes; a failed one keeps failed, its freshness stale', () => {
    const fresh = createHarness();
    fresh.actor.send({ type: 'recalculation.dataChanged' });
    expect(fresh.snapshot().value).toBe('stale');
    expect(fresh.snapshot().context.freshnessStatus).toBe('stale');

    const failed = createHarness({ ...modelInput, recalculationStatus: 'failed' });
    failed.actor.send({ type: 'recalculation.dataChanged' });
    expect(failed.snapshot().value).toBe('failed');
    expect(failed.snapshot().context.freshnessStatus).toBe('stale');

    const recalculating = createHarness({ ...modelInput, recalculationStatus: 'recalculating' });
    recalculating.actor.send({ type: 'recalculation.dataChanged' });
    expect(recalculating.snapshot().value).toBe('recalculating');
    expect(recalculating.snapshot().context.freshnessStatus).toBe('fresh');
  });

  it('shows the spinner of a section the server recalculates on its own, until its update arrives', () => {
    const harness = createHarness();
    harness.actor.send({ type: 'recalculation.sectionUpdated', sectionId: SECOND_SECTION, recalculationStatus: 'recalculating' });
    expect(harness.snapshot().value).toBe('fresh');
    expect(harness.snapshot().context.pendingSections).toEqual([SECOND_SECTION]);
    harness.actor.send({ type: 'recalculation.sectionUpdated', sectionId: SECOND_SECTION, recalculationStatus: 'recalculated' });
    expect(harness.snapshot().context.pendingSections).toEqual([]);
  });

  it('gives up a refresh in flight when the actor stops (the page is gone)', () => {
    const harness = createHarness();
    harness.actor.send({ type: 'recalculation.refresh' });
    harness.actor.stop();
    expect(harness.refreshes[0]?.signal.aborted).toBe(true);
  });

  it('fails the refresh loudly until src/ provides the call', async () => {
    await expect(servicesNotProvided.refresh(MODEL_REPORT_ID, new AbortController().signal)).rejects.toThrow(/not provided/);
    const notices: RecalculationNotice[] = [];
    const actor = createActor(recalculationMachine.provide({ actions: { notify: (_, notice) => notices.push(notice) } }), { input: modelInput }).start();
    actor.send({ type: 'recalculation.refresh' });
    await flush();
    expect(actor.getSnapshot().value).toBe('fresh');
    expect(notices).toEqual([FAILURE]);
  });
});
