import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { IMPORT_FAILURE_MESSAGE, NO_FILE_MESSAGE, ONLY_CSV_MESSAGE } from '../../../machines/mappingWizard/messages';
import { LIVE_SAFETY_POLL_MS } from '../../../models/constants';
import { mappingWizardActors, mappingWizardFailure } from '../../../machines/mappingWizard/mappingWizardActors';
import type { MappingWizardInvokeId, LiveChannelHandlers, MappingWizardServices } from '../../../machines/mappingWizard/mappingWizardActors';
import {
  CUSTOMER_COLUMN_REQUIRED_MESSAGE,
  SEGMENTS_MAPPING_INCOMPLETE_MESSAGE,
  segmentsImportMachine,
} from '../../../machines/mappingWizard/segmentsImport';
import type { MappingWizardSnapshot } from '../../../machines/mappingWizard/mappingWizardMachine';
import type { MappingWizardInput, ImportStatus } from '../../../machines/mappingWizard/types';
import { CSV_IMPORT_MAX_POLLS } from '../../../models/constants';
import { coverageGaps, describePath, generatePaths } from '../support/modelPaths';
import type { AnyTestModel, AnyTestPath } from '../support/modelPaths';
import {
  anySegmentsImportTestModel,
  csvFile,
  finalizeRefusal,
  isViewEvent,
  liveUpdates,
  modelEvents,
  modelInput,
  modelPreview,
  modelStatuses,
  pathTestParams,
  pdfFile,
  POLL_DUE_EVENT,
  pollWaitMs,
  segmentsImportModelEntry,
  segmentsImportTestModel,
} from './segmentsImportModel';
import type { SegmentsImportExecutors, SegmentsImportModelEvent } from './segmentsImportModel';

interface PendingCall {
  id: MappingWizardInvokeId;
  input: unknown;
  signal: AbortSignal;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** A subscription of the machine to its import's live channel. */
interface Watch {
  importId: string;
  handlers: LiveChannelHandlers;
  stopped: boolean;
}

/** Lets the promise callbacks of a settled call and the machine's reaction run. */
const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** The machine on a simulated clock, with stubbed calls that stay pending until the test settles them. */
function createHarness(input: MappingWizardInput = modelInput) {
  const calls: PendingCall[] = [];
  const watches: Watch[] = [];
  const clock = new SimulatedClock();

  function call<T>(id: MappingWizardInvokeId, input: unknown, signal: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      calls.push({ id, input, signal, resolve: (value) => resolve(value as T), reject });
    });
  }

  const services: MappingWizardServices = {
    upload: (file, signal) => call('upload', file, signal),
    finalize: (request, signal) => call('finalize', request, signal),
    fetchStatus: (importId, signal) => call('fetchStatus', importId, signal),
    watch: (importId, handlers) => {
      const watch: Watch = { importId, handlers, stopped: false };
      watches.push(watch);
      return () => {
        watch.stopped = true;
      };
    },
  };

  const actor = createActor(segmentsImportMachine.provide({ actors: mappingWizardActors(services) }), { input, clock }).start();

  /** Settles the newest pending call of an invocation. */
  async function settle(id: MappingWizardInvokeId, outcome: { output: unknown } | { error: unknown }) {
    const pending = calls.findLast((c) => c.id === id);
    if (!pending) throw new Error(`No ${id} call is pending`);
    if ('output' in outcome) pending.resolve(outcome.output);
    else pending.reject(outcome.error);
    await flush();
  }

  const callsTo = (id: MappingWizardInvokeId) => calls.filter((c) => c.id === id);
  const activeWatches = () => watches.filter((watch) => !watch.stopped);

  /** The live channel reports to the one subscription the machine holds. */
  async function report(tell: (handlers: LiveChannelHandlers) => void) {
    const active = activeWatches();
    if (active.length !== 1) throw new Error(`${active.length} live subscriptions are active`);
    tell((active[0] as Watch).handlers);
    await flush();
  }

  return { actor, calls, callsTo, watches, activeWatches, report, clock, settle, snapshot: (): MappingWizardSnapshot => actor.getSnapshot() };
}

type Harness = ReturnType<typeof createHarness>;

function settleFrom(harness: Harness, id: MappingWizardInvokeId) {
  return (event: SegmentsImportModelEvent) =>
    harness.settle(id, 'output' in event ? { output: event.output } : { error: 'error' in event ? event.error : undefined });
}

function send(harness: Harness) {
  return async (event: SegmentsImportModelEvent) => {
    if (!isViewEvent(event)) throw new Error(`${event.type} is not sent by views`);
    harness.actor.send(event);
    await flush();
  };
}

/**
 * The next poll is due: nothing happens a millisecond before the schedule's interval, and the
 * status is asked for once it has passed.
 */
function pollDue(harness: Harness) {
  return async () => {
    const wait = pollWaitMs(harness.snapshot());
    const polls = harness.callsTo('fetchStatus').length;
    harness.clock.increment(wait - 1);
    await flush();
    expect(harness.snapshot().matches({ finalizing: 'waiting' }), `still waiting ${wait - 1} ms in`).toBe(true);
    expect(harness.callsTo('fetchStatus')).toHaveLength(polls);
    harness.clock.increment(1);
    await flush();
    expect(harness.callsTo('fetchStatus')).toHaveLength(polls + 1);
  };
}

/** How each model event is made to happen against the machine. */
function machineExecutors(harness: Harness): SegmentsImportExecutors {
  return {
    'mappingWizard.fileChosen': send(harness),
    'mappingWizard.upload': send(harness),
    'mappingWizard.cancelUpload': send(harness),
    'mappingWizard.mapColumn': send(harness),
    'mappingWizard.skipHeadersChanged': send(harness),
    'mappingWizard.finalize': send(harness),
    'mappingWizard.reset': send(harness),
    'xstate.done.actor.upload': settleFrom(harness, 'upload'),
    'xstate.error.actor.upload': settleFrom(harness, 'upload'),
    'xstate.done.actor.finalize': settleFrom(harness, 'finalize'),
    'xstate.error.actor.finalize': settleFrom(harness, 'finalize'),
    [POLL_DUE_EVENT]: pollDue(harness),
    'xstate.done.actor.fetchStatus': settleFrom(harness, 'fetchStatus'),
    'xstate.error.actor.fetchStatus': settleFrom(harness, 'fetchStatus'),
    'liveChannel.connected': () => harness.report((channel) => channel.connected()),
    'liveChannel.lost': () => harness.report((channel) => channel.lost()),
    'liveChannel.update': (event) =>
      harness.report((channel) => {
        if (event.type !== 'liveChannel.update') throw new Error('an update to report');
        channel.update(event.update);
      }),
  } satisfies SegmentsImportExecutors;
}

const paths = generatePaths(anySegmentsImportTestModel());

describe('mapping wizard, segments import: generated paths', () => {
  it('reaches every state and takes every transition of the chart', () => {
    expect(coverageGaps(segmentsImportMachine, paths)).toEqual({ states: [], transitions: [] });
  });

  it('is the registry entry QA lists', () => {
    expect(segmentsImportModelEntry.name).toBe('segmentsImport');
    expect(segmentsImportModelEntry.machine).toBe(segmentsImportMachine);
    expect(coverageGaps(segmentsImportModelEntry.machine, generatePaths(segmentsImportModelEntry.model()))).toEqual({
      states: [],
      transitions: [],
    });
  });

  it('notices a transition that no path takes', () => {
    const withoutCancel = segmentsImportTestModel(modelEvents.filter((event) => event.type !== 'mappingWizard.cancelUpload'));
    const gaps = coverageGaps(segmentsImportMachine, generatePaths(withoutCancel as unknown as AnyTestModel));
    expect(gaps.transitions).toEqual(['segmentsImport.uploading --mappingWizard.cancelUpload[0]--> segmentsImport.not_started']);

    const withoutRefusedRows = segmentsImportTestModel(
      modelEvents.filter((event) => !('output' in event && event.output === modelStatuses.withErrors)),
    );
    expect(coverageGaps(segmentsImportMachine, generatePaths(withoutRefusedRows as unknown as AnyTestModel))).toEqual({
      states: ['segmentsImport.finalized.withErrors'],
      transitions: ['segmentsImport.finalizing.polling --xstate.done.actor.fetchStatus[1]--> segmentsImport.finalized.withErrors'],
    });

    // Without a Value pick the mapping never completes: nothing is ever imported.
    const withoutValuePick = segmentsImportTestModel(
      modelEvents.filter((event) => !(event.type === 'mappingWizard.mapColumn' && event.column === 2)),
    );
    const unreached = coverageGaps(segmentsImportMachine, generatePaths(withoutValuePick as unknown as AnyTestModel)).states;
    expect(unreached).toEqual(expect.arrayContaining(['segmentsImport.finalizing', 'segmentsImport.finalized.succeeded']));
  });

  it("takes each way finalize is refused in preview (the chart check cannot tell them apart: they have no target)", () => {
    const refusals = new Set<string>();
    for (const path of paths) {
      for (const step of path.steps) {
        const snapshot = step.state as MappingWizardSnapshot;
        const failure = snapshot.context.failure;
        if (snapshot.matches('preview') && failure) refusals.add(`${step.event.type} ${failure.messages.join(' ')}`);
      }
    }
    expect([...refusals].sort()).toEqual(
      [
        `mappingWizard.finalize ${CUSTOMER_COLUMN_REQUIRED_MESSAGE}`,
        `mappingWizard.finalize ${SEGMENTS_MAPPING_INCOMPLETE_MESSAGE}`,
        `xstate.error.actor.finalize ${finalizeRefusal.messages.join(' ')}`,
      ].sort(),
    );
  });

  it('takes each guarded way into finalized.failed (the chart check cannot tell them apart: same event, same target)', () => {
    const ways = new Set<string>();
    for (const path of paths) {
      for (const step of path.steps) {
        const snapshot = step.state as MappingWizardSnapshot;
        if (snapshot.matches({ finalized: 'failed' })) ways.add(`${step.event.type} ${snapshot.context.failure?.kind}`);
      }
    }
    expect([...ways].sort()).toEqual([
      'xstate.done.actor.fetchStatus import',
      'xstate.done.actor.fetchStatus statusUnknown',
      'xstate.error.actor.fetchStatus statusUnknown',
    ]);
  });

  it('stays a test plan QA can read (a bounded number of paths)', () => {
    expect(paths.length).toBeGreaterThan(20);
    expect(paths.length).toBeLessThan(80);
  });

  it.each(paths.map((path): [string, AnyTestPath] => [describePath(path), path]))('%s', async (_, path) => {
    const harness = createHarness();
    await path.test(
      pathTestParams(machineExecutors(harness), (expected) => {
        const actual = harness.snapshot();
        expect(actual.value).toEqual(expected.value);
        expect(actual.context).toEqual(expected.context);
        // Subscribed to its import's channel exactly while finalizing.
        expect(harness.activeWatches().map((watch) => watch.importId)).toEqual(expected.matches('finalizing') ? [modelPreview.importId] : []);
      }),
    );
    harness.actor.stop();
  });

  it('fails a path whose executor does not reach the expected state', async () => {
    const [path] = segmentsImportTestModel()
      .getShortestPaths()
      .filter((p) => p.state.matches('preview') && p.state.context.failure === null);
    if (!path) throw new Error('no preview path');
    const harness = createHarness();
    const executors = machineExecutors(harness);
    // A broken server that refuses every upload.
    executors['xstate.done.actor.upload'] = () => harness.settle('upload', { error: mappingWizardFailure('upload', ['Nope']) });
    await expect(path.test(pathTestParams(executors, (expected) => expect(harness.snapshot().value).toEqual(expected.value)))).rejects.toThrow();
  });
});

/** A harness with the model's file uploaded and previewed. */
async function inPreview(input: MappingWizardInput = modelInput): Promise<Harness> {
  const harness = createHarness(input);
  harness.actor.send({ type: 'mappingWizard.fileChosen', file: csvFile });
  harness.actor.send({ type: 'mappingWizard.upload' });
  await harness.settle('upload', { output: modelPreview });
  return harness;
}

/** A harness whose mapping (Customer ID on column 1, Value on column 3) was accepted: polling starts. */
async function finalized(input: MappingWizardInput = modelInput): Promise<Harness> {
  const harness = await inPreview(input);
  harness.actor.send({ type: 'mappingWizard.mapColumn', column: 2, role: 'value' });
  harness.actor.send({ type: 'mappingWizard.finalize' });
  await harness.settle('finalize', { output: modelStatuses.queued });
  return harness;
}

async function poll(harness: Harness, outcome: { output: ImportStatus } | { error: unknown }) {
  await pollDue(harness)();
  await harness.settle('fetchStatus', outcome);
}

describe('mapping wizard, segments import: upload', () => {
  it('starts with nothing uploaded', () => {
    const { context } = createHarness().snapshot();
    expect(context).toMatchObject({ maxPolls: 3, file: null, importId: null, preview: null });
    expect(createHarness({}).snapshot().context.maxPolls).toBe(CSV_IMPORT_MAX_POLLS);
  });

  it('uploads the chosen .csv file and previews it, Customer ID on the first column and headers skipped', async () => {
    const harness = createHarness();
    harness.actor.send({ type: 'mappingWizard.fileChosen', file: csvFile });
    harness.actor.send({ type: 'mappingWizard.upload' });
    expect(harness.calls.at(-1)).toMatchObject({ id: 'upload', input: csvFile });
    await harness.settle('upload', { output: modelPreview });

    const { context } = harness.snapshot();
    expect(harness.snapshot().value).toBe('preview');
    expect(context.importId).toBe('simp_model');
    // Three columns: the value column is left for the user to pick.
    expect(context.mapping).toEqual({ customerId: 0, value: null });
    expect(context.skipHeaders).toBe(true);
  });

  it('maps a two-column file completely, and keeps a first row that is data', async () => {
    const harness = createHarness();
    harness.actor.send({ type: 'mappingWizard.fileChosen', file: csvFile });
    harness.actor.send({ type: 'mappingWizard.upload' });
    await harness.settle('upload', {
      output: { ...modelPreview, columns: 2, rows: [['cus_001', 'Enterprise'], ['cus_002', 'Pro']] },
    });

    expect(harness.snapshot().context.mapping).toEqual({ customerId: 0, value: 1 });
    expect(harness.snapshot().context.skipHeaders).toBe(false);
  });

  it('never uploads a file that is not a .csv, nor nothing', async () => {
    const harness = createHarness();
    harness.actor.send({ type: 'mappingWizard.upload' });
    expect(harness.snapshot().context.failure).toEqual({ kind: 'file', messages: [NO_FILE_MESSAGE] });

    harness.actor.send({ type: 'mappingWizard.fileChosen', file: pdfFile });
    expect(harness.snapshot().context.failure).toBeNull();
    harness.actor.send({ type: 'mappingWizard.upload' });

    expect(harness.snapshot().value).toBe('not_started');
    expect(harness.snapshot().context.failure).toEqual({ kind: 'file', messages: [ONLY_CSV_MESSAGE] });
    expect(harness.calls).toEqual([]);
  });

  it("keeps the file after a refused upload, with the server's reason, and uploads it again", async () => {
    const harness = createHarness();
    harness.actor.send({ type: 'mappingWizard.fileChosen', file: csvFile });
    harness.actor.send({ type: 'mappingWizard.upload' });
    await harness.settle('upload', { error: mappingWizardFailure('upload', ['Row 3 is longer than 64 KB']) });

    expect(harness.snapshot().value).toBe('not_started');
    expect(harness.snapshot().context).toMatchObject({ file: csvFile, failure: { kind: 'upload', messages: ['Row 3 is longer than 64 KB'] } });

    harness.actor.send({ type: 'mappingWizard.upload' });
    expect(harness.snapshot().context.failure).toBeNull();
    expect(harness.callsTo('upload')).toHaveLength(2);
  });

  it("shows the spec's upload message when the upload fails without a reason", async () => {
    const harness = createHarness();
    harness.actor.send({ type: 'mappingWizard.fileChosen', file: csvFile });
    harness.actor.send({ type: 'mappingWizard.upload' });
    await harness.settle('upload', { error: new TypeError('Failed to fetch') });

    expect(harness.snapshot().context.failure).toEqual({ kind: 'upload', messages: ['Something went wrong with uploading csv file'] });
  });

  it('aborts the upload when it is cancelled, and ignores its late answer', async () => {
    const harness = createHarness();
    harness.actor.send({ type: 'mappingWizard.fileChosen', file: csvFile });
    harness.actor.send({ type: 'mappingWizard.upload' });
    const upload = harness.calls[0];
    harness.actor.send({ type: 'mappingWizard.cancelUpload' });

    expect(upload?.signal.aborted).toBe(true);
    upload?.resolve(modelPreview);
    await flush();
    expect(harness.snapshot().value).toBe('not_started');
    expect(harness.snapshot().context).toMatchObject({ file: csvFile, importId: null, preview: null });
  });
});

describe('mapping wizard, segments import: mapping', () => {
  it('keeps one value column at a time, and a column never plays both roles', async () => {
    const harness = await inPreview();
    harness.actor.send({ type: 'mappingWizard.mapColumn', column: 1, role: 'value' });
    expect(harness.snapshot().context.mapping).toEqual({ customerId: 0, value: 1 });

    harness.actor.send({ type: 'mappingWizard.mapColumn', column: 2, role: 'value' });
    expect(harness.snapshot().context.mapping).toEqual({ customerId: 0, value: 2 });

    harness.actor.send({ type: 'mappingWizard.mapColumn', column: 2, role: 'customerId' });
    expect(harness.snapshot().context.mapping).toEqual({ customerId: 2, value: null });
  });

  it("refuses to finalize without a Customer ID column, with the spec's words, and sends nothing", async () => {
    const harness = await inPreview();
    harness.actor.send({ type: 'mappingWizard.mapColumn', column: 2, role: 'value' });
    harness.actor.send({ type: 'mappingWizard.mapColumn', column: 0, role: null });
    harness.actor.send({ type: 'mappingWizard.finalize' });

    expect(harness.snapshot().value).toBe('preview');
    expect(harness.snapshot().context.failure).toEqual({ kind: 'mapping', messages: ['One of the columns must be mapped to Customer ID'] });
    expect(harness.callsTo('finalize')).toEqual([]);
  });

  it("refuses to finalize without a value column, with the spec's words; a new pick clears them", async () => {
    const harness = await inPreview();
    harness.actor.send({ type: 'mappingWizard.finalize' });

    expect(harness.snapshot().value).toBe('preview');
    expect(harness.snapshot().context.failure).toEqual({ kind: 'mapping', messages: ['Looks like import mapping is incomplete - make sure you map your columns correctly'] });
    expect(harness.callsTo('finalize')).toEqual([]);

    harness.actor.send({ type: 'mappingWizard.mapColumn', column: 2, role: 'value' });
    expect(harness.snapshot().context.failure).toBeNull();
  });

  it('names the Customer ID column first when neither role is mapped', async () => {
    const harness = await inPreview();
    harness.actor.send({ type: 'mappingWizard.mapColumn', column: 0, role: null });
    harness.actor.send({ type: 'mappingWizard.finalize' });
    expect(harness.snapshot().context.failure?.messages).toEqual([CUSTOMER_COLUMN_REQUIRED_MESSAGE]);
  });

  it('sends the two columns and the skip-headers choice (the API adapter adds the attribute)', async () => {
    const harness = await inPreview();
    harness.actor.send({ type: 'mappingWizard.mapColumn', column: 1, role: 'customerId' });
    harness.actor.send({ type: 'mappingWizard.mapColumn', column: 2, role: 'value' });
    harness.actor.send({ type: 'mappingWizard.skipHeadersChanged', skipHeaders: false });
    harness.actor.send({ type: 'mappingWizard.finalize' });

    expect(harness.snapshot().value).toEqual({ finalizing: 'submitting' });
    expect(harness.callsTo('finalize').at(-1)?.input).toEqual({
      importId: 'simp_model',
      mapping: { customerId: 1, value: 2 },
      skipHeaders: false,
    });
  });

  it("keeps the mapping when the server refuses it, with the server's reason", async () => {
    const harness = await inPreview();
    harness.actor.send({ type: 'mappingWizard.mapColumn', column: 2, role: 'value' });
    harness.actor.send({ type: 'mappingWizard.skipHeadersChanged', skipHeaders: false });
    harness.actor.send({ type: 'mappingWizard.finalize' });
    await harness.settle('finalize', { error: mappingWizardFailure('finalize', ['Customer segment not found']) });

    expect(harness.snapshot().value).toBe('preview');
    expect(harness.snapshot().context).toMatchObject({
      mapping: { customerId: 0, value: 2 },
      skipHeaders: false,
      failure: { kind: 'finalize', messages: ['Customer segment not found'] },
    });
  });

  it("shows the spec's generic message when finalizing fails without a reason", async () => {
    const harness = await inPreview();
    harness.actor.send({ type: 'mappingWizard.mapColumn', column: 2, role: 'value' });
    harness.actor.send({ type: 'mappingWizard.finalize' });
    await harness.settle('finalize', { error: new TypeError('Failed to fetch') });
    expect(harness.snapshot().context.failure).toEqual({ kind: 'finalize', messages: [IMPORT_FAILURE_MESSAGE] });
  });

  it('starts over without the previous import, for the same attribute', async () => {
    const harness = await inPreview();
    harness.actor.send({ type: 'mappingWizard.reset' });
    expect(harness.snapshot().value).toBe('not_started');
    expect(harness.snapshot().context).toEqual(createHarness().snapshot().context);
  });
});

describe('mapping wizard, segments import: polling', () => {
  it('polls on the CSV import schedule: 3 s for the first 20 polls, then 10 s', async () => {
    const harness = await finalized({});
    const waits: number[] = [];
    for (let n = 1; n <= 22; n += 1) {
      const before = harness.clock.now();
      await poll(harness, { output: modelStatuses.running });
      waits.push(harness.clock.now() - before);
    }
    expect(waits).toEqual([...Array<number>(20).fill(3_000), 10_000, 10_000]);
    expect(harness.snapshot().context.progress).toBe(50);
  });

  it(`gives up after ${CSV_IMPORT_MAX_POLLS} polls with the spec's message`, { timeout: 30_000 }, async () => {
    const harness = await finalized({});
    for (let n = 1; n < CSV_IMPORT_MAX_POLLS; n += 1) {
      harness.clock.increment(pollWaitMs(harness.snapshot()));
      await harness.settle('fetchStatus', { output: modelStatuses.running });
    }
    expect(harness.snapshot().value).toEqual({ finalizing: 'waiting' });
    await poll(harness, { output: modelStatuses.running });

    expect(harness.callsTo('fetchStatus')).toHaveLength(CSV_IMPORT_MAX_POLLS);
    expect(harness.snapshot().value).toEqual({ finalized: 'failed' });
    expect(harness.snapshot().context.failure).toEqual({ kind: 'statusUnknown', messages: ['Failed to get status of import, please get in touch'] });
    harness.clock.increment(60 * 60 * 1000);
    await flush();
    expect(harness.callsTo('fetchStatus')).toHaveLength(CSV_IMPORT_MAX_POLLS);
  });

  it('goes on polling after a failed status check, and says so until a check succeeds', async () => {
    const harness = await finalized();
    await poll(harness, { error: new TypeError('Failed to fetch') });
    expect(harness.snapshot().value).toEqual({ finalizing: 'waiting' });
    expect(harness.snapshot().context.statusCheckFailed).toBe(true);

    await poll(harness, { output: modelStatuses.running });
    expect(harness.snapshot().context).toMatchObject({ statusCheckFailed: false, progress: 50, polls: 2 });
  });

  it('asks for the status of its own import', async () => {
    const harness = await finalized();
    await pollDue(harness)();
    expect(harness.callsTo('fetchStatus').at(-1)?.input).toBe('simp_model');
  });

  it('ends with every value imported, or with the refused rows', async () => {
    const succeeded = await finalized();
    await poll(succeeded, { output: modelStatuses.succeeded });
    expect(succeeded.snapshot().value).toEqual({ finalized: 'succeeded' });
    expect(succeeded.snapshot().context.result).toEqual({ successCount: 2, failureCount: 0, failures: [] });

    const withErrors = await finalized();
    await poll(withErrors, { output: modelStatuses.withErrors });
    expect(withErrors.snapshot().value).toEqual({ finalized: 'withErrors' });
    expect(withErrors.snapshot().context.result).toEqual({
      successCount: 1,
      failureCount: 1,
      failures: modelStatuses.withErrors.failures,
    });
  });

  it("ends with the server's error when the import fails, or the spec's generic one", async () => {
    const failed = await finalized();
    await poll(failed, { output: modelStatuses.failed });
    expect(failed.snapshot().context.failure).toEqual({ kind: 'import', messages: [modelStatuses.failed.error] });

    const silent = await finalized();
    await poll(silent, { output: { ...modelStatuses.failed, error: null } });
    expect(silent.snapshot().context.failure).toEqual({ kind: 'import', messages: ['We are sorry, something went wrong'] });
  });

  it('stops polling when the actor stops (the page is left)', async () => {
    const harness = await finalized();
    harness.actor.stop();
    harness.clock.increment(60_000);
    await flush();
    expect(harness.callsTo('fetchStatus')).toEqual([]);
  });
});

describe('mapping wizard, segments import: live channel', () => {
  /** Finalized, with the channel's subscription confirmed while the mapping was sent. */
  async function liveFinalized(): Promise<Harness> {
    const harness = await inPreview();
    harness.actor.send({ type: 'mappingWizard.mapColumn', column: 2, role: 'value' });
    harness.actor.send({ type: 'mappingWizard.finalize' });
    await harness.report((channel) => channel.connected());
    await harness.settle('finalize', { output: modelStatuses.queued });
    return harness;
  }

  it('subscribes to its own import while finalizing, and unsubscribes once finalized', async () => {
    const harness = await inPreview();
    expect(harness.watches).toEqual([]);
    harness.actor.send({ type: 'mappingWizard.mapColumn', column: 2, role: 'value' });
    harness.actor.send({ type: 'mappingWizard.finalize' });
    expect(harness.activeWatches().map((watch) => watch.importId)).toEqual(['simp_model']);
    await harness.settle('finalize', { output: modelStatuses.queued });
    await poll(harness, { output: modelStatuses.succeeded });
    expect(harness.activeWatches()).toEqual([]);
  });

  it('unsubscribes when the mapping is refused, and when the actor stops', async () => {
    const refused = await inPreview();
    refused.actor.send({ type: 'mappingWizard.mapColumn', column: 2, role: 'value' });
    refused.actor.send({ type: 'mappingWizard.finalize' });
    await refused.settle('finalize', { error: finalizeRefusal });
    expect(refused.activeWatches()).toEqual([]);

    const left = await liveFinalized();
    left.actor.stop();
    expect(left.activeWatches()).toEqual([]);
  });

  it('shows the progress the channel reports, which only grows', async () => {
    const harness = await liveFinalized();
    await harness.report((channel) => channel.update(liveUpdates.running));
    expect(harness.snapshot().context.progress).toBe(50);
    await harness.report((channel) => channel.update({ ...liveUpdates.running, progress: 20 }));
    expect(harness.snapshot().context.progress).toBe(50);
    // A poll answering an older state does not take it back either.
    await poll(harness, { output: modelStatuses.queued });
    expect(harness.snapshot().context.progress).toBe(50);
  });

  it('ends the import when the channel reports it done without refused rows, with no poll', async () => {
    const harness = await liveFinalized();
    await harness.report((channel) => channel.update(liveUpdates.succeeded));
    expect(harness.snapshot().value).toEqual({ finalized: 'succeeded' });
    expect(harness.snapshot().context).toMatchObject({ progress: 100, result: { successCount: 2, failureCount: 0, failures: [] } });
    expect(harness.callsTo('fetchStatus')).toEqual([]);
  });

  it('fetches the refused rows at once when the channel reports the import done with them, or failed', async () => {
    const withErrors = await liveFinalized();
    await withErrors.report((channel) => channel.update(liveUpdates.withErrors));
    expect(withErrors.snapshot().value).toEqual({ finalizing: 'polling' });
    expect(withErrors.callsTo('fetchStatus')).toHaveLength(1);
    await withErrors.settle('fetchStatus', { output: modelStatuses.withErrors });
    expect(withErrors.snapshot().value).toEqual({ finalized: 'withErrors' });
    expect(withErrors.snapshot().context.result?.failures).toEqual(modelStatuses.withErrors.failures);

    const failed = await liveFinalized();
    await failed.report((channel) => channel.update({ status: 'failed', progress: 50, successCount: 0, failureCount: 0, error: 'cut' }));
    expect(failed.callsTo('fetchStatus')).toHaveLength(1);
    await failed.settle('fetchStatus', { output: modelStatuses.failed });
    expect(failed.snapshot().context.failure).toEqual({ kind: 'import', messages: [modelStatuses.failed.error] });
  });

  it('takes the end reported while the mapping is still being sent', async () => {
    const harness = await inPreview();
    harness.actor.send({ type: 'mappingWizard.mapColumn', column: 2, role: 'value' });
    harness.actor.send({ type: 'mappingWizard.finalize' });
    await harness.report((channel) => channel.connected());
    await harness.report((channel) => channel.update(liveUpdates.succeeded));
    expect(harness.snapshot().value).toEqual({ finalized: 'succeeded' });
    expect(harness.callsTo('finalize')[0]?.signal.aborted).toBe(true);
  });

  it(`polls first on the schedule, then every ${LIVE_SAFETY_POLL_MS / 1000} s while live`, async () => {
    const harness = await liveFinalized();
    const waits: number[] = [];
    for (let n = 1; n <= 3; n += 1) {
      const before = harness.clock.now();
      await poll(harness, { output: modelStatuses.running });
      waits.push(harness.clock.now() - before);
    }
    expect(waits).toEqual([3_000, LIVE_SAFETY_POLL_MS, LIVE_SAFETY_POLL_MS]);
  });

  it('goes back to the schedule at once when the channel is lost', async () => {
    const harness = await liveFinalized();
    await poll(harness, { output: modelStatuses.running });
    harness.clock.increment(10_000);
    await harness.report((channel) => channel.lost());
    expect(harness.snapshot().context.live).toBe(false);
    // The schedule's wait (3 s), from the loss: not what was left of the 30 s.
    expect(pollWaitMs(harness.snapshot())).toBe(3_000);
    await pollDue(harness)();
  });

  it('polls at once when the channel comes back, to catch up on what it missed', async () => {
    const harness = await finalized();
    await harness.report((channel) => channel.connected());
    expect(harness.snapshot().value).toEqual({ finalizing: 'polling' });
    expect(harness.callsTo('fetchStatus')).toHaveLength(1);
    expect(harness.snapshot().context.live).toBe(true);
  });

  it('keeps polling on the schedule when the channel rejects the subscription', async () => {
    const harness = await finalized();
    await harness.report((channel) => channel.lost());
    for (let n = 1; n <= 2; n += 1) {
      const before = harness.clock.now();
      await poll(harness, { output: modelStatuses.running });
      expect(harness.clock.now() - before).toBe(3_000);
    }
    await poll(harness, { output: modelStatuses.succeeded });
    expect(harness.snapshot().value).toEqual({ finalized: 'succeeded' });
  });

  it('takes each way into finalized.succeeded: a poll, or the channel (the chart check cannot tell them apart)', () => {
    const ways = new Set<string>();
    for (const path of paths) {
      for (const step of path.steps) {
        if ((step.state as MappingWizardSnapshot).matches({ finalized: 'succeeded' })) ways.add(step.event.type);
      }
    }
    expect([...ways].sort()).toEqual(['liveChannel.update', 'xstate.done.actor.fetchStatus']);
  });
});
