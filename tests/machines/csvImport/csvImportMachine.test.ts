import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { csvImportActors, csvImportFailure } from '../../../machines/csvImport/csvImportActors';
import type { CsvImportInvokeId, CsvImportServices } from '../../../machines/csvImport/csvImportActors';
import { completionNotice, csvImportMachine, initialCsvImportContext } from '../../../machines/csvImport/csvImportMachine';
import type { CsvImportMachine, CsvImportSnapshot } from '../../../machines/csvImport/csvImportMachine';
import {
  CSV_IMPORT_FAILURE_TOAST,
  CSV_IMPORT_STARTED_NOTICE,
  csvImportCompletedNotice,
} from '../../../machines/csvImport/messages';
import { pollIntervalMs } from '../../../models/imports';
import type { CsvImportNotice, CsvImportStatus } from '../../../machines/csvImport/types';
import { CSV_IMPORT_MAX_POLLS } from '../../../models/constants';
import { coverageGaps, describePath, generatePaths } from '../support/modelPaths';
import type { AnyTestModel, AnyTestPath } from '../support/modelPaths';
import {
  anyCsvImportTestModel,
  csvImportModelEntry,
  csvImportTestModel,
  isDialogEvent,
  MODEL_IMPORT_ID,
  modelEvents,
  modelFailures,
  modelFiles,
  modelMachine,
  modelStatuses,
  pathTestParams,
  POLL_AFTER_EVENT,
} from './csvImportModel';
import type { CsvImportExecutors, CsvImportModelEvent } from './csvImportModel';

interface PendingCall {
  id: CsvImportInvokeId;
  input: unknown;
  signal: AbortSignal;
  settled: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Lets the promise callbacks of a settled call and the machine's reaction run. */
const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * The machine with stubbed calls that stay pending until the test settles them, a
 * SimulatedClock for the backoff, and the provided effects recorded: the stored import id
 * (null: forgotten) and the toasts.
 */
function createHarness(machine: CsvImportMachine = modelMachine) {
  const clock = new SimulatedClock();
  const calls: PendingCall[] = [];
  const storage: (string | null)[] = [];
  const notices: CsvImportNotice[] = [];

  function call<T>(id: CsvImportInvokeId, input: unknown, signal: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      calls.push({ id, input, signal, settled: false, resolve: (value) => resolve(value as T), reject });
    });
  }

  const services: CsvImportServices = {
    readStoredImport: () => call('readStoredImport', undefined, new AbortController().signal),
    uploadCsv: (file, signal) => call('uploadCsv', file, signal),
    fetchImportStatus: (importId, signal) => call('fetchImportStatus', importId, signal),
  };

  const provided = machine.provide({
    actors: csvImportActors(services),
    actions: {
      storeImportId: (_, { importId }) => storage.push(importId),
      forgetStoredImport: () => storage.push(null),
      notify: (_, notice) => notices.push(notice),
    },
  });
  const actor = createActor(provided, { clock }).start();

  /** Settles the newest pending call of an invocation. */
  async function settle(id: CsvImportInvokeId, outcome: { output: unknown } | { error: unknown }) {
    const pending = calls.findLast((c) => c.id === id && !c.settled);
    if (!pending) throw new Error(`No ${id} call is pending`);
    pending.settled = true;
    if ('output' in outcome) pending.resolve(outcome.output);
    else pending.reject(outcome.error);
    await flush();
  }

  const callsTo = (id: CsvImportInvokeId) => calls.filter((c) => c.id === id);

  return { actor, clock, calls, callsTo, storage, notices, settle, snapshot: (): CsvImportSnapshot => actor.getSnapshot() };
}

type Harness = ReturnType<typeof createHarness>;

function settleFrom(harness: Harness, id: CsvImportInvokeId) {
  return (event: CsvImportModelEvent) =>
    harness.settle(id, 'output' in event ? { output: event.output } : { error: 'error' in event ? event.error : undefined });
}

function send(harness: Harness) {
  return async (event: CsvImportModelEvent) => {
    if (!isDialogEvent(event)) throw new Error(`${event.type} is not sent by the dialog`);
    harness.actor.send(event);
    await flush();
  };
}

/** The backoff: nothing is polled a millisecond before the interval, the poll goes out at it. */
async function elapsePollInterval(harness: Harness) {
  const polls = harness.snapshot().context.polls;
  const interval = pollIntervalMs(polls + 1);
  const before = harness.callsTo('fetchImportStatus').length;
  harness.clock.increment(interval - 1);
  expect(harness.callsTo('fetchImportStatus'), `no poll before ${interval} ms`).toHaveLength(before);
  harness.clock.increment(1);
  expect(harness.callsTo('fetchImportStatus'), `poll ${polls + 1} after ${interval} ms`).toHaveLength(before + 1);
  expect(harness.callsTo('fetchImportStatus').at(-1)?.input).toBe(harness.snapshot().context.importId);
  await flush();
}

/** How each model event is made to happen against the machine. */
function machineExecutors(harness: Harness): CsvImportExecutors {
  return {
    'csvImport.fileSelected': send(harness),
    'csvImport.upload': send(harness),
    'csvImport.tryAgain': send(harness),
    'csvImport.dismiss': send(harness),
    'xstate.done.actor.readStoredImport': settleFrom(harness, 'readStoredImport'),
    'xstate.error.actor.readStoredImport': settleFrom(harness, 'readStoredImport'),
    'xstate.done.actor.uploadCsv': settleFrom(harness, 'uploadCsv'),
    'xstate.error.actor.uploadCsv': settleFrom(harness, 'uploadCsv'),
    'xstate.done.actor.fetchImportStatus': settleFrom(harness, 'fetchImportStatus'),
    'xstate.error.actor.fetchImportStatus': settleFrom(harness, 'fetchImportStatus'),
    [POLL_AFTER_EVENT]: () => elapsePollInterval(harness),
  } satisfies CsvImportExecutors;
}

const FAILURE: CsvImportNotice = { kind: 'failure', message: CSV_IMPORT_FAILURE_TOAST };
const STARTED: CsvImportNotice = { kind: 'importNotice', message: CSV_IMPORT_STARTED_NOTICE };
const FAILED_STATES = ['validationFailure', 'error', 'pollingLimitReached'] as const;
const isFailed = (snapshot: CsvImportSnapshot) => FAILED_STATES.some((state) => snapshot.matches(state));
const isOutcome = (snapshot: CsvImportSnapshot) => isFailed(snapshot) || snapshot.matches('completed');

/** The toasts a step between two expected states must show. */
function noticesBetween(before: CsvImportSnapshot, after: CsvImportSnapshot): CsvImportNotice[] {
  if (before.matches('uploading') && after.matches('inProgress')) return [STARTED];
  if (isFailed(after) && !isOutcome(before)) return [FAILURE];
  if (after.matches('completed') && !before.matches('completed') && after.context.result) return [completionNotice(after.context.result)];
  return [];
}

/** What a step must do to the stored import id: store the accepted one, forget it on the way back to the picker. */
function storageBetween(before: CsvImportSnapshot, after: CsvImportSnapshot): (string | null)[] {
  if (before.matches('uploading') && after.matches('inProgress')) return [after.context.importId];
  if (isOutcome(before) && after.matches('notStarted')) return [null];
  return [];
}

/** Every distinct path of the model (shortest and simple, payloads included), named with its payloads. */
function distinctPaths(model: AnyTestModel): AnyTestPath[] {
  const seen = new Set<string>();
  return [...model.getShortestPaths(), ...model.getSimplePaths()].filter((path) => {
    const key = JSON.stringify(path.steps.map((step) => step.event), (_k, v: unknown) => (v instanceof File ? v.name : v));
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function label(event: CsvImportModelEvent): string {
  switch (event.type) {
    case 'csvImport.fileSelected':
      return `fileSelected(${event.file?.name ?? 'none'})`;
    case 'xstate.done.actor.readStoredImport':
      return `stored(${event.output ?? 'none'})`;
    case 'xstate.done.actor.uploadCsv':
      return 'upload accepted';
    case 'xstate.done.actor.fetchImportStatus':
      return `poll(${event.output.status}${event.output.result.failure_count ? `, ${event.output.result.failure_count} failed rows` : ''})`;
    case POLL_AFTER_EVENT:
      return 'backoff';
    default:
      if ('error' in event) {
        const kind = (event.error as { kind?: string }).kind ?? 'storage unavailable';
        return `${event.type.replace('xstate.error.actor.', '')} failed (${kind})`;
      }
      return event.type.replace('csvImport.', '');
  }
}

function pathName(path: AnyTestPath): string {
  const events = path.steps.map((step) => step.event as CsvImportModelEvent).filter((event) => !event.type.startsWith('xstate.init'));
  return `${events.map(label).join(' → ') || '(start)'} ⇒ ${JSON.stringify(path.state.value)}`;
}

const paths = generatePaths(anyCsvImportTestModel());
const walked = distinctPaths(anyCsvImportTestModel());

describe('csvImport machine: generated paths', () => {
  it('reaches every state and takes every transition of the chart', () => {
    expect(coverageGaps(csvImportMachine, paths)).toEqual({ states: [], transitions: [] });
    expect(coverageGaps(csvImportModelEntry.machine, generatePaths(csvImportModelEntry.model()))).toEqual({ states: [], transitions: [] });
  });

  it('notices a transition that no path takes', () => {
    const withoutDismiss = csvImportTestModel(modelEvents.filter((event) => event.type !== 'csvImport.dismiss'));
    const gaps = coverageGaps(csvImportMachine, generatePaths(withoutDismiss as unknown as AnyTestModel));
    expect(gaps.transitions).toEqual(['csvImport.completed --csvImport.dismiss[0]--> csvImport.notStarted']);

    const withoutGivingUp = paths.filter((path) => !path.steps.some((step) => step.state.matches('pollingLimitReached')) && !path.state.matches('pollingLimitReached'));
    expect(coverageGaps(csvImportMachine, withoutGivingUp).states).toEqual(['csvImport.pollingLimitReached']);
  });

  it('stays a test plan QA can read (a bounded number of paths)', () => {
    expect(paths.length).toBeGreaterThan(30);
    expect(paths.length).toBeLessThan(120);
    expect(paths.map(describePath)).toContain(
      'xstate.done.actor.readStoredImport → csvImport.fileSelected → csvImport.upload → xstate.error.actor.uploadCsv → csvImport.tryAgain ⇒ notStarted',
    );
  });

  it.each(walked.map((path): [string, AnyTestPath] => [pathName(path), path]))('%s', async (_, path) => {
    const harness = createHarness();
    let previous: CsvImportSnapshot | null = null;
    let noticesSeen = 0;
    let storageSeen = 0;
    await path.test(
      pathTestParams(machineExecutors(harness), (expected) => {
        const actual = harness.snapshot();
        expect(actual.value).toEqual(expected.value);
        expect(actual.context).toEqual(expected.context);
        if (previous) {
          expect(harness.notices.slice(noticesSeen), 'toasts').toEqual(noticesBetween(previous, expected));
          expect(harness.storage.slice(storageSeen), 'stored import id').toEqual(storageBetween(previous, expected));
        }
        previous = expected;
        noticesSeen = harness.notices.length;
        storageSeen = harness.storage.length;
      }),
    );
    harness.actor.stop();
  });

  it('fails a path whose executor does not reach the expected state', async () => {
    const [path] = csvImportTestModel()
      .getShortestPaths()
      .filter((p) => p.state.matches('completed'));
    if (!path) throw new Error('no path to completed');
    const harness = createHarness();
    const executors = machineExecutors(harness);
    // A broken server that answers every poll as still running.
    executors['xstate.done.actor.fetchImportStatus'] = () => harness.settle('fetchImportStatus', { output: modelStatuses.running });
    await expect(
      path.test(pathTestParams(executors, (expected) => expect(harness.snapshot().value).toEqual(expected.value))),
    ).rejects.toThrow();
  });
});

/** A harness on the real machine (the real 1000-poll limit), past the storage check. */
async function startedHarness(storedImportId: string | null = null) {
  const harness = createHarness(csvImportMachine);
  await harness.settle('readStoredImport', { output: storedImportId });
  return harness;
}

async function uploadAccepted(harness: Harness) {
  harness.actor.send({ type: 'csvImport.fileSelected', file: modelFiles.csv });
  harness.actor.send({ type: 'csvImport.upload' });
  await harness.settle('uploadCsv', { output: { importId: MODEL_IMPORT_ID } });
}

describe('csvImport machine: effects', () => {
  it('uploads the chosen .csv file, stores the import id, toasts the import notice and polls 3 s later', async () => {
    const harness = await startedHarness();
    harness.actor.send({ type: 'csvImport.fileSelected', file: modelFiles.csv });
    harness.actor.send({ type: 'csvImport.upload' });
    expect(harness.callsTo('uploadCsv')).toHaveLength(1);
    expect(harness.callsTo('uploadCsv')[0]?.input).toBe(modelFiles.csv);

    await harness.settle('uploadCsv', { output: { importId: MODEL_IMPORT_ID } });
    expect(harness.snapshot().value).toEqual({ inProgress: 'waiting' });
    expect(harness.storage).toEqual([MODEL_IMPORT_ID]);
    expect(harness.notices).toEqual([STARTED]);
    expect(harness.snapshot().context.file).toBeNull();

    harness.clock.increment(2_999);
    expect(harness.callsTo('fetchImportStatus')).toHaveLength(0);
    harness.clock.increment(1);
    expect(harness.callsTo('fetchImportStatus').map((c) => c.input)).toEqual([MODEL_IMPORT_ID]);
  });

  it('does not upload a file that is not a .csv, nor without a file', async () => {
    const harness = await startedHarness();
    harness.actor.send({ type: 'csvImport.upload' });
    harness.actor.send({ type: 'csvImport.fileSelected', file: modelFiles.other });
    harness.actor.send({ type: 'csvImport.upload' });

    expect(harness.snapshot().value).toBe('notStarted');
    expect(harness.callsTo('uploadCsv')).toHaveLength(0);
    expect(harness.snapshot().can({ type: 'csvImport.upload' })).toBe(false);

    harness.actor.send({ type: 'csvImport.fileSelected', file: new File(['x'], 'PAYMENTS.CSV') });
    expect(harness.snapshot().can({ type: 'csvImport.upload' })).toBe(true);
  });

  it('resumes polling at once from the stored import id after a reload', async () => {
    const harness = await startedHarness('imp_from_before');

    expect(harness.snapshot().value).toEqual({ inProgress: 'fetching' });
    expect(harness.callsTo('fetchImportStatus').map((c) => c.input)).toEqual(['imp_from_before']);
    expect(harness.storage).toEqual([]);

    await harness.settle('fetchImportStatus', { output: { ...modelStatuses.running, progress: 75 } });
    expect(harness.snapshot().context).toMatchObject({ progress: 75, polls: 1, fileName: 'payments.csv' });
  });

  it('starts in the file picker when no import is stored, or the storage cannot be read', async () => {
    const none = await startedHarness(null);
    expect(none.snapshot().value).toBe('notStarted');

    const broken = createHarness(csvImportMachine);
    expect(broken.snapshot().value).toBe('checkingStored');
    await broken.settle('readStoredImport', { error: new DOMException('denied', 'SecurityError') });
    expect(broken.snapshot().value).toBe('notStarted');
  });

  it('shows a completed result with its counts and failed rows; dismissing it clears the stored id', async () => {
    const harness = await startedHarness(MODEL_IMPORT_ID);
    await harness.settle('fetchImportStatus', { output: modelStatuses.doneWithFailures });

    expect(harness.snapshot().value).toBe('completed');
    expect(harness.snapshot().context.result).toEqual(modelStatuses.doneWithFailures.result);
    expect(harness.notices).toEqual([FAILURE]);

    harness.actor.send({ type: 'csvImport.dismiss' });
    expect(harness.snapshot().value).toBe('notStarted');
    expect(harness.storage).toEqual([null]);
    expect(harness.snapshot().context.importId).toBeNull();
  });

  it('toasts the import notice for an import without failed rows', async () => {
    const harness = await startedHarness(MODEL_IMPORT_ID);
    await harness.settle('fetchImportStatus', { output: modelStatuses.done });
    expect(harness.notices).toEqual([{ kind: 'importNotice', message: csvImportCompletedNotice(12) }]);
    expect(csvImportCompletedNotice(1)).toBe('Your import is complete: 1 row imported');
  });

  it('lists the rows of a refused upload (400), toasts the failure toast, and goes back with Try again', async () => {
    const harness = await startedHarness();
    harness.actor.send({ type: 'csvImport.fileSelected', file: modelFiles.csv });
    harness.actor.send({ type: 'csvImport.upload' });
    await harness.settle('uploadCsv', { error: modelFailures.validation });

    expect(harness.snapshot().value).toBe('validationFailure');
    expect(harness.snapshot().context.validationFailures).toEqual(modelFailures.validation.validationFailures);
    expect(harness.snapshot().context.errorDetails).toEqual(['2 row(s) of the file cannot be imported']);
    expect(harness.notices).toEqual([FAILURE]);

    harness.actor.send({ type: 'csvImport.tryAgain' });
    expect(harness.snapshot().value).toBe('notStarted');
    expect(harness.snapshot().context).toEqual(initialCsvImportContext());
  });

  it('keeps the server’s reason of any other refusal, and treats anything thrown as an error', async () => {
    const harness = await startedHarness();
    harness.actor.send({ type: 'csvImport.fileSelected', file: modelFiles.csv });
    harness.actor.send({ type: 'csvImport.upload' });
    await harness.settle('uploadCsv', { error: new TypeError('Failed to fetch') });
    expect(harness.snapshot().value).toBe('error');
    expect(harness.snapshot().context.errorDetails).toEqual([]);

    harness.actor.send({ type: 'csvImport.tryAgain' });
    harness.actor.send({ type: 'csvImport.fileSelected', file: modelFiles.csv });
    harness.actor.send({ type: 'csvImport.upload' });
    await harness.settle('uploadCsv', { error: modelFailures.tooLarge });
    expect(harness.snapshot().context.errorDetails).toEqual(['The file is larger than 200 MB']);
  });

  it("shows a failed import's reason", async () => {
    const harness = await startedHarness(MODEL_IMPORT_ID);
    await harness.settle('fetchImportStatus', { output: modelStatuses.failed });
    expect(harness.snapshot().value).toBe('error');
    expect(harness.snapshot().context.errorDetails).toEqual(['The upload was interrupted']);
    expect(harness.notices).toEqual([FAILURE]);
  });

  it('retries a poll that got no answer on the schedule, and stops at a refused one (404); Try again forgets the id', async () => {
    const harness = await startedHarness();
    await uploadAccepted(harness);
    harness.clock.increment(3_000);
    await harness.settle('fetchImportStatus', { error: csvImportFailure('unavailable') });
    expect(harness.snapshot().value).toEqual({ inProgress: 'waiting' });
    expect(harness.notices).toEqual([STARTED]);

    harness.clock.increment(3_000);
    await harness.settle('fetchImportStatus', { error: modelFailures.notFound });
    expect(harness.snapshot().value).toBe('error');
    expect(harness.snapshot().context.errorDetails).toEqual(['Import not found']);

    harness.actor.send({ type: 'csvImport.tryAgain' });
    expect(harness.storage).toEqual([MODEL_IMPORT_ID, null]);
  });

  it('gives up a poll in flight when the actor stops (the dialog is gone)', async () => {
    const harness = await startedHarness(MODEL_IMPORT_ID);
    const poll = harness.callsTo('fetchImportStatus')[0];
    harness.actor.stop();
    expect(poll?.signal.aborted).toBe(true);
  });
});

describe('csvImport machine: the polling backoff', () => {
  it(`waits 3 s before each of the first 20 polls, 10 s up to 70, 20 s up to 170, then 60 s, and gives up after ${CSV_IMPORT_MAX_POLLS} polls`, async () => {
    const harness = await startedHarness();
    await uploadAccepted(harness);
    const waits: number[] = [];
    let lastAnswerAt = harness.clock.now();

    for (let poll = 1; poll <= CSV_IMPORT_MAX_POLLS; poll += 1) {
      const before = harness.callsTo('fetchImportStatus').length;
      // Step the clock a second at a time until the poll goes out.
      while (harness.callsTo('fetchImportStatus').length === before) {
        harness.clock.increment(1_000);
        if (harness.clock.now() - lastAnswerAt > 60_000) throw new Error(`poll ${poll} never went out`);
      }
      waits[poll] = harness.clock.now() - lastAnswerAt;
      const answer: CsvImportStatus = { ...modelStatuses.running, progress: Math.floor((poll * 100) / CSV_IMPORT_MAX_POLLS) };
      // Every tenth poll gets no answer: it counts, and the schedule goes on.
      await harness.settle('fetchImportStatus', poll % 10 === 0 ? { error: csvImportFailure('unavailable') } : { output: answer });
      lastAnswerAt = harness.clock.now();
    }

    expect({
      1: waits[1],
      20: waits[20],
      21: waits[21],
      70: waits[70],
      71: waits[71],
      170: waits[170],
      171: waits[171],
      1000: waits[1000],
    }).toEqual({ 1: 3_000, 20: 3_000, 21: 10_000, 70: 10_000, 71: 20_000, 170: 20_000, 171: 60_000, 1000: 60_000 });
    expect(waits.slice(1).every((wait, index) => wait === pollIntervalMs(index + 1))).toBe(true);

    expect(harness.snapshot().value).toBe('pollingLimitReached');
    expect(harness.snapshot().context.polls).toBe(CSV_IMPORT_MAX_POLLS);
    expect(harness.notices).toEqual([STARTED, FAILURE]);

    harness.clock.increment(24 * 60 * 60 * 1_000);
    expect(harness.callsTo('fetchImportStatus')).toHaveLength(CSV_IMPORT_MAX_POLLS);

    harness.actor.send({ type: 'csvImport.tryAgain' });
    expect(harness.snapshot().value).toBe('notStarted');
    expect(harness.storage).toEqual([MODEL_IMPORT_ID, null]);
  });

  it('gives up when the last allowed poll gets no answer too', async () => {
    const harness = await startedHarness(MODEL_IMPORT_ID);
    for (let poll = 1; poll <= CSV_IMPORT_MAX_POLLS; poll += 1) {
      if (poll > 1) harness.clock.increment(pollIntervalMs(poll));
      await harness.settle('fetchImportStatus', { error: csvImportFailure('unavailable') });
    }
    expect(harness.snapshot().value).toBe('pollingLimitReached');
    expect(harness.callsTo('fetchImportStatus')).toHaveLength(CSV_IMPORT_MAX_POLLS);
  });
});
