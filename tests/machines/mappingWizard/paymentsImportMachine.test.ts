import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { mappingWizardActors, mappingWizardFailure } from '../../../machines/mappingWizard/mappingWizardActors';
import type { MappingWizardInvokeId, MappingWizardServices } from '../../../machines/mappingWizard/mappingWizardActors';
import { PAYMENTS_MAPPING_INCOMPLETE_MESSAGE, paymentsImportMachine } from '../../../machines/mappingWizard/paymentsImport';
import type { MappingWizardSnapshot } from '../../../machines/mappingWizard/mappingWizardMachine';
import {
  NO_FILE_MESSAGE,
  ONLY_CSV_MESSAGE,
} from '../../../machines/mappingWizard/messages';
import type { ImportStatus, MappingWizardInput } from '../../../machines/mappingWizard/types';
import { CSV_IMPORT_MAX_POLLS } from '../../../models/constants';
import { coverageGaps, describePath, generatePaths } from '../support/modelPaths';
import type { AnyTestModel, AnyTestPath } from '../support/modelPaths';
import {
  anyPaymentsImportTestModel,
  csvFile,
  paymentsImportModelEntry,
  paymentsImportTestModel,
  isViewEvent,
  modelEvents,
  modelInput,
  modelPreview,
  modelStatuses,
  pathTestParams,
  pdfFile,
  POLL_DUE_EVENT,
  pollWaitMs,
} from './paymentsImportModel';
import type { PaymentsImportExecutors, PaymentsImportModelEvent } from './paymentsImportModel';

interface PendingCall {
  id: MappingWizardInvokeId;
  input: unknown;
  signal: AbortSignal;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Lets the promise callbacks of a settled call and the machine's reaction run. */
const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** The machine on a simulated clock, with stubbed calls that stay pending until the test settles them. */
function createHarness(input: MappingWizardInput = modelInput) {
  const calls: PendingCall[] = [];
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
  };

  const actor = createActor(paymentsImportMachine.provide({ actors: mappingWizardActors(services) }), { input, clock }).start();

  /** Settles the newest pending call of an invocation. */
  async function settle(id: MappingWizardInvokeId, outcome: { output: unknown } | { error: unknown }) {
    const pending = calls.findLast((c) => c.id === id);
    if (!pending) throw new Error(`No ${id} call is pending`);
    if ('output' in outcome) pending.resolve(outcome.output);
    else pending.reject(outcome.error);
    await flush();
  }

  const callsTo = (id: MappingWizardInvokeId) => calls.filter((c) => c.id === id);

  return { actor, calls, callsTo, clock, settle, snapshot: (): MappingWizardSnapshot => actor.getSnapshot() };
}

type Harness = ReturnType<typeof createHarness>;

function settleFrom(harness: Harness, id: MappingWizardInvokeId) {
  return (event: PaymentsImportModelEvent) =>
    harness.settle(id, 'output' in event ? { output: event.output } : { error: 'error' in event ? event.error : undefined });
}

function send(harness: Harness) {
  return async (event: PaymentsImportModelEvent) => {
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
function machineExecutors(harness: Harness): PaymentsImportExecutors {
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
  } satisfies PaymentsImportExecutors;
}

const paths = generatePaths(anyPaymentsImportTestModel());

describe('mapping wizard, payments import: generated paths', () => {
  it('reaches every state and takes every transition of the chart', () => {
    expect(coverageGaps(paymentsImportMachine, paths)).toEqual({ states: [], transitions: [] });
  });

  it('is the registry entry QA lists', () => {
    expect(paymentsImportModelEntry.name).toBe('paymentsImport');
    expect(paymentsImportModelEntry.machine).toBe(paymentsImportMachine);
    expect(coverageGaps(paymentsImportModelEntry.machine, generatePaths(paymentsImportModelEntry.model()))).toEqual({ states: [], transitions: [] });
  });

  it('notices a transition that no path takes', () => {
    const withoutCancel = paymentsImportTestModel(modelEvents.filter((event) => event.type !== 'mappingWizard.cancelUpload'));
    const gaps = coverageGaps(paymentsImportMachine, generatePaths(withoutCancel as unknown as AnyTestModel));
    expect(gaps.transitions).toEqual(['paymentsImport.uploading --mappingWizard.cancelUpload[0]--> paymentsImport.not_started']);

    const withoutRefusedRows = paymentsImportTestModel(
      modelEvents.filter((event) => !('output' in event && event.output === modelStatuses.withErrors)),
    );
    expect(coverageGaps(paymentsImportMachine, generatePaths(withoutRefusedRows as unknown as AnyTestModel))).toEqual({
      states: ['paymentsImport.finalized.withErrors'],
      transitions: ['paymentsImport.finalizing.polling --xstate.done.actor.fetchStatus[1]--> paymentsImport.finalized.withErrors'],
    });
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
      }),
    );
    harness.actor.stop();
  });

  it('fails a path whose executor does not reach the expected state', async () => {
    const [path] = paymentsImportTestModel()
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

/** A harness whose mapping was accepted: polling starts. */
async function finalized(input: MappingWizardInput = modelInput): Promise<Harness> {
  const harness = await inPreview(input);
  harness.actor.send({ type: 'mappingWizard.finalize' });
  await harness.settle('finalize', { output: modelStatuses.queued });
  return harness;
}

async function poll(harness: Harness, outcome: { output: ImportStatus } | { error: unknown }) {
  await pollDue(harness)();
  await harness.settle('fetchStatus', outcome);
}

describe('mapping wizard, payments import: upload', () => {
  it('uploads the chosen .csv file and previews it with the default columns the file has', async () => {
    const harness = createHarness();
    harness.actor.send({ type: 'mappingWizard.fileChosen', file: csvFile });
    harness.actor.send({ type: 'mappingWizard.upload' });
    expect(harness.calls.at(-1)).toMatchObject({ id: 'upload', input: csvFile });
    await harness.settle('upload', { output: modelPreview });

    const { context } = harness.snapshot();
    expect(harness.snapshot().value).toBe('preview');
    expect(context.importId).toBe('imp_model');
    // 7 columns: the defaults from column 7 on (revenue type … units) are left unmapped.
    expect(context.mapping).toEqual({
      customer_id: 0,
      invoice_number: 1,
      started_at: 2,
      ended_at: 3,
      months: 5,
      monthly_amount: 6,
      revenue_type: null,
      currency: null,
      product: null,
      customer_name: null,
      units: null,
      total_value: null,
      discount_amount: null,
      discount_kind: null,
      discount_months: null,
    });
    expect(context.skipHeaders).toBe(true);
  });

  it('maps every default column of a file that has them all, and keeps headers when the first row is data', async () => {
    const harness = createHarness();
    harness.actor.send({ type: 'mappingWizard.fileChosen', file: csvFile });
    harness.actor.send({ type: 'mappingWizard.upload' });
    const row = ['cus_1', 'INV-1', '2024-01-01', '2024-12-31', 'x', '12', '49.00', 'recurring', 'USD', 'Pro', 'Acme', '1'];
    await harness.settle('upload', { output: { ...modelPreview, rows: [row], columns: 12 } });

    expect(harness.snapshot().context.mapping).toEqual({
      customer_id: 0,
      invoice_number: 1,
      started_at: 2,
      ended_at: 3,
      months: 5,
      monthly_amount: 6,
      revenue_type: 7,
      currency: 8,
      product: 9,
      customer_name: 10,
      units: 11,
      total_value: null,
      discount_amount: null,
      discount_kind: null,
      discount_months: null,
    });
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

  it('takes a .CSV in capitals', async () => {
    const harness = createHarness();
    harness.actor.send({ type: 'mappingWizard.fileChosen', file: new File(['a'], 'EXPORT.CSV') });
    harness.actor.send({ type: 'mappingWizard.upload' });
    expect(harness.snapshot().value).toBe('uploading');
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

describe('mapping wizard, payments import: mapping', () => {
  it('moves a field to the column chosen for it; a column never holds two fields', async () => {
    const harness = await inPreview();
    harness.actor.send({ type: 'mappingWizard.mapColumn', column: 4, role: 'monthly_amount' });
    expect(harness.snapshot().context.mapping).toMatchObject({ monthly_amount: 4 });

    harness.actor.send({ type: 'mappingWizard.mapColumn', column: 4, role: 'customer_id' });
    expect(harness.snapshot().context.mapping).toMatchObject({ customer_id: 4, monthly_amount: null });
  });

  it("checks the required fields before finalizing and shows the spec's rule", async () => {
    const harness = await inPreview();
    harness.actor.send({ type: 'mappingWizard.mapColumn', column: 0, role: null });
    harness.actor.send({ type: 'mappingWizard.finalize' });

    expect(harness.snapshot().value).toBe('preview');
    expect(harness.snapshot().context.failure).toEqual({ kind: 'mapping', messages: ['Subscription import requires mapping of monthly_amount or total_value, started_at, customer_id, months or ended_at'] });
    expect(harness.callsTo('finalize')).toEqual([]);

    // Changing the mapping clears the message.
    harness.actor.send({ type: 'mappingWizard.mapColumn', column: 0, role: 'customer_id' });
    expect(harness.snapshot().context.failure).toBeNull();
  });

  it('sends the mapping (null for an unmapped field) and the skip-headers choice', async () => {
    const harness = await inPreview();
    harness.actor.send({ type: 'mappingWizard.mapColumn', column: 4, role: 'product' });
    harness.actor.send({ type: 'mappingWizard.skipHeadersChanged', skipHeaders: false });
    harness.actor.send({ type: 'mappingWizard.finalize' });

    expect(harness.snapshot().value).toEqual({ finalizing: 'submitting' });
    expect(harness.callsTo('finalize').at(-1)?.input).toEqual({
      importId: 'imp_model',
      skipHeaders: false,
      mapping: {
        customer_id: 0,
        invoice_number: 1,
        started_at: 2,
        ended_at: 3,
        months: 5,
        monthly_amount: 6,
        revenue_type: null,
        currency: null,
        product: 4,
        customer_name: null,
        units: null,
        total_value: null,
        discount_amount: null,
        discount_kind: null,
        discount_months: null,
      },
    });
  });

  it("keeps the mapping when the server refuses it, with the server's reason", async () => {
    const harness = await inPreview();
    harness.actor.send({ type: 'mappingWizard.mapColumn', column: 4, role: 'product' });
    harness.actor.send({ type: 'mappingWizard.skipHeadersChanged', skipHeaders: false });
    const chosen = harness.snapshot().context.mapping;
    harness.actor.send({ type: 'mappingWizard.finalize' });
    await harness.settle('finalize', { error: mappingWizardFailure('finalize', [PAYMENTS_MAPPING_INCOMPLETE_MESSAGE]) });

    expect(harness.snapshot().value).toBe('preview');
    expect(harness.snapshot().context).toMatchObject({ mapping: chosen, skipHeaders: false, failure: { kind: 'finalize', messages: [PAYMENTS_MAPPING_INCOMPLETE_MESSAGE] } });
  });

  it('starts over without the previous import', async () => {
    const harness = await inPreview();
    harness.actor.send({ type: 'mappingWizard.reset' });
    expect(harness.snapshot().value).toBe('not_started');
    expect(harness.snapshot().context).toEqual(createHarness().snapshot().context);
  });
});

describe('mapping wizard, payments import: polling', () => {
  it('polls on the spec schedule: 3 s for the first 20 polls, then 10 s', async () => {
    const harness = await finalized({});
    const waits: number[] = [];
    for (let n = 1; n <= 22; n += 1) {
      const before = harness.clock.now();
      await poll(harness, { output: modelStatuses.running });
      waits.push(harness.clock.now() - before);
    }
    expect(waits).toEqual([...Array<number>(20).fill(3_000), 10_000, 10_000]);
    expect(harness.snapshot().context.progress).toBe(40);
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
    expect(harness.snapshot().context).toMatchObject({ statusCheckFailed: false, progress: 40, polls: 2 });
  });

  it('asks for the status of its own import', async () => {
    const harness = await finalized();
    await pollDue(harness)();
    expect(harness.callsTo('fetchStatus').at(-1)?.input).toBe('imp_model');
  });

  it('ends with every record imported, or with the refused rows', async () => {
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
