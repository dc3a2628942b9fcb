import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { sectionExportActors } from '../../../machines/sectionExport/sectionExportActors';
import type { SectionExportServices } from '../../../machines/sectionExport/sectionExportActors';
import { sectionExportMachine } from '../../../machines/sectionExport/sectionExportMachine';
import type { SectionExportSnapshot } from '../../../machines/sectionExport/sectionExportMachine';
import { canStartExport, downloadUrl, exportFailed, isExporting } from '../../../machines/sectionExport/selectors';
import type { SectionExportNotice, SectionExportRequest, SectionExportUpdate } from '../../../machines/sectionExport/types';
import { coverageGaps, describePath, generatePaths } from '../support/modelPaths';
import type { AnyTestModel, AnyTestPath } from '../support/modelPaths';
import {
  anySectionExportTestModel,
  MODEL_EXPORT_ID,
  MODEL_FILE,
  MODEL_URL,
  modelEvents,
  modelRequest,
  pathTestParams,
  sectionExportModelEntry,
  sectionExportTestModel,
  startRefusal,
  updates,
} from './sectionExportModel';
import type { SectionExportExecutors, SectionExportModelEvent } from './sectionExportModel';

interface PendingStart {
  request: SectionExportRequest;
  signal: AbortSignal;
  settled: boolean;
  resolve: (update: SectionExportUpdate) => void;
  reject: (error: unknown) => void;
}

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** The machine with a start call that stays pending until the test settles it, a channel the test speaks on, and the toasts recorded. */
function createHarness() {
  const starts: PendingStart[] = [];
  const notices: SectionExportNotice[] = [];
  const watching: { exportId: string; update: (update: SectionExportUpdate) => void; stopped: boolean }[] = [];
  const services: SectionExportServices = {
    start: (request, signal) => new Promise((resolve, reject) => starts.push({ request, signal, settled: false, resolve, reject })),
    watch: (exportId, update) => {
      const entry = { exportId, update, stopped: false };
      watching.push(entry);
      return () => {
        entry.stopped = true;
      };
    },
  };
  const actor = createActor(sectionExportMachine.provide({ actors: sectionExportActors(services), actions: { notify: (_, notice) => notices.push(notice) } })).start();
  async function settleStart(outcome: { output: SectionExportUpdate } | { error: unknown }) {
    const pending = starts.findLast((call) => !call.settled);
    if (!pending) throw new Error('No start call is pending');
    pending.settled = true;
    if ('output' in outcome) pending.resolve(outcome.output);
    else pending.reject(outcome.error);
    await flush();
  }
  async function speak(update: SectionExportUpdate) {
    const live = watching.filter((entry) => !entry.stopped);
    if (live.length !== 1) throw new Error(`expected one live subscription, found ${live.length}`);
    live[0]?.update(update);
    await flush();
  }
  return { actor, starts, notices, watching, settleStart, speak, snapshot: (): SectionExportSnapshot => actor.getSnapshot() };
}
type Harness = ReturnType<typeof createHarness>;

function machineExecutors(harness: Harness): SectionExportExecutors {
  return {
    'sectionExport.start': async (event) => {
      harness.actor.send(event as Extract<SectionExportModelEvent, { type: 'sectionExport.start' }>);
      await flush();
    },
    'xstate.done.actor.start': (event) => harness.settleStart({ output: (event as { output: SectionExportUpdate }).output }),
    'xstate.error.actor.start': (event) => harness.settleStart({ error: (event as { error: unknown }).error }),
    'sectionExportChannel.update': (event) => harness.speak((event as { update: SectionExportUpdate }).update),
  };
}

/** The toast a step between two expected states shows. */
function noticesBetween(before: SectionExportSnapshot, after: SectionExportSnapshot): SectionExportNotice[] {
  if (before.matches('starting') && after.matches('inProgress')) return [{ kind: 'started' }];
  if (before.matches('inProgress') && after.matches('completed')) return [{ kind: 'completed', url: MODEL_URL, fileName: MODEL_FILE }];
  if ((before.matches('starting') || before.matches('inProgress')) && after.matches('failed')) return [{ kind: 'failed' }];
  return [];
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

function label(event: SectionExportModelEvent): string {
  switch (event.type) {
    case 'sectionExportChannel.update':
      return `channel(${event.update.id === MODEL_EXPORT_ID ? 'this' : 'another'} export ${event.update.status})`;
    case 'xstate.done.actor.start':
      return 'start accepted';
    case 'xstate.error.actor.start':
      return 'start refused';
    default:
      return event.type;
  }
}

function pathName(path: AnyTestPath): string {
  const events = path.steps.map((step) => step.event as SectionExportModelEvent).filter((event) => !event.type.startsWith('xstate.init'));
  return `${events.map(label).join(' → ') || '(start)'} ⇒ ${JSON.stringify(path.state.value)}`;
}

const paths = generatePaths(anySectionExportTestModel());
const walked = distinctPaths(anySectionExportTestModel());

describe('sectionExport machine: generated paths', () => {
  it('reaches every state and takes every transition of the chart', () => {
    expect(coverageGaps(sectionExportMachine, paths)).toEqual({ states: [], transitions: [] });
    expect(sectionExportModelEntry.name).toBe('sectionExport');
    expect(sectionExportModelEntry.machine).toBe(sectionExportMachine);
  });

  it('notices a transition that no path takes', () => {
    const withoutFailure = sectionExportTestModel(modelEvents.filter((event) => !(event.type === 'sectionExportChannel.update' && event.update === updates.failed)));
    expect(coverageGaps(sectionExportMachine, generatePaths(withoutFailure as unknown as AnyTestModel)).transitions).toEqual([
      'sectionExport.inProgress --sectionExportChannel.update[1]--> sectionExport.failed',
    ]);
  });

  it('stays a test plan QA can read', () => {
    expect(paths.length).toBeGreaterThan(5);
    expect(paths.length).toBeLessThan(60);
    expect(paths.map(describePath)).toContain('sectionExport.start → xstate.done.actor.start → sectionExportChannel.update ⇒ completed');
  });

  it.each(walked.map((path): [string, AnyTestPath] => [pathName(path), path]))('%s', async (_, path) => {
    const harness = createHarness();
    let previous: SectionExportSnapshot | null = null;
    let noticesSeen = 0;
    let startsSeen = 0;
    await path.test(
      pathTestParams(machineExecutors(harness), (expected) => {
        const actual = harness.snapshot();
        expect(actual.value).toEqual(expected.value);
        expect(actual.context).toEqual(expected.context);
        if (previous) {
          expect(harness.notices.slice(noticesSeen), 'toasts').toEqual(noticesBetween(previous, expected));
          // POST export_details once, on the way into starting, with the request asked for.
          const posted = harness.starts.slice(startsSeen).map((call) => call.request);
          expect(posted, 'start calls').toEqual(expected.matches('starting') && !previous.matches('starting') ? [modelRequest] : []);
        }
        // The channel is listened to exactly while the export runs, for that export.
        const live = harness.watching.filter((entry) => !entry.stopped).map((entry) => entry.exportId);
        expect(live, 'live subscriptions').toEqual(expected.matches('inProgress') ? [MODEL_EXPORT_ID] : []);
        expect(isExporting(actual)).toBe(expected.matches('starting') || expected.matches('inProgress'));
        expect(canStartExport(actual)).toBe(!isExporting(actual));
        expect(downloadUrl(actual)).toBe(expected.matches('completed') ? MODEL_URL : null);
        expect(exportFailed(actual)).toBe(expected.matches('failed'));
        previous = expected;
        noticesSeen = harness.notices.length;
        startsSeen = harness.starts.length;
      }),
    );
    harness.actor.stop();
  });
});

describe('sectionExport machine: details', () => {
  it('keeps the refusal of a start out of the context and shows the failure toast once', async () => {
    const harness = createHarness();
    harness.actor.send({ type: 'sectionExport.start', request: modelRequest });
    await harness.settleStart({ error: startRefusal });
    expect(harness.snapshot().value).toBe('failed');
    expect(harness.notices).toEqual([{ kind: 'failed' }]);
    expect(harness.snapshot().context).toEqual({ request: modelRequest, exportId: null, url: null, fileName: null });
  });

  it('starts afresh after a completed export, forgetting the last url', async () => {
    const harness = createHarness();
    harness.actor.send({ type: 'sectionExport.start', request: modelRequest });
    await harness.settleStart({ output: updates.started });
    await harness.speak(updates.done);
    const second: SectionExportRequest = { sectionId: 'sec_churn', query: { start_date: '2026-01-01', end_date: '2026-02-28', variant: 'sub' } };
    harness.actor.send({ type: 'sectionExport.start', request: second });
    expect(harness.snapshot().context).toEqual({ request: second, exportId: null, url: null, fileName: null });
    expect(harness.starts.at(-1)?.request).toEqual(second);
  });

  it('gives up a start call when stopped (aborted, never reported)', async () => {
    const harness = createHarness();
    harness.actor.send({ type: 'sectionExport.start', request: modelRequest });
    harness.actor.stop();
    expect(harness.starts[0]?.signal.aborted).toBe(true);
  });
});
