import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { CONFIG_UNREADABLE, CUSTOM_CONFIG_FAILURE, CUSTOM_SAVE_FAILURE, SERIES_NAME_REQUIRED } from '../../../models/customSections';
import type { CustomSectionConfig } from '../../../models/customSections';
import { requestConfig } from '../../../machines/sectionEditor/draft';
import { NOT_A_CUSTOM_SECTION, PREVIEW_FAILURE, REPORT_LOAD_FAILURE, SECTION_NOT_FOUND } from '../../../machines/sectionEditor/messages';
import { sectionEditorActors, servicesNotProvided } from '../../../machines/sectionEditor/sectionEditorActors';
import type { SectionEditorServices } from '../../../machines/sectionEditor/sectionEditorActors';
import { PREVIEW_DEBOUNCE_MS, sectionEditorMachine } from '../../../machines/sectionEditor/sectionEditorMachine';
import type { SectionEditorSnapshot } from '../../../machines/sectionEditor/sectionEditorMachine';
import { selectCanEdit, selectErrors, selectIsNew, selectLoadError, selectPhase, selectPreview, selectSaving } from '../../../machines/sectionEditor/selectors';
import type { SectionEditorInput, SectionEditorEvent, SectionSavedNotice } from '../../../machines/sectionEditor/types';
import { coverageGaps, describePath, generatePaths } from '../support/modelPaths';
import type { AnyTestModel, AnyTestPath } from '../support/modelPaths';
import {
  anySectionEditorTestModel,
  DEBOUNCE_OVER_EVENT,
  loadedAnswers,
  MODEL_REPORT_ID,
  MODEL_SECRET,
  MODEL_SECTION_ID,
  modelCatalogue,
  modelEdits,
  modelEvents,
  modelFailures,
  modelInput,
  modelPreview,
  pathTestParams,
  sectionEditorModelEntry,
  sectionEditorTestModel,
} from './sectionEditorModel';
import type { SectionEditorExecutors, SectionEditorModelEvent } from './sectionEditorModel';

type CallKind = 'catalogue' | 'report' | 'preview' | 'create' | 'update';

interface PendingCall {
  kind: CallKind;
  args: unknown[];
  signal: AbortSignal;
  settled: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** The machine with calls that stay pending until the test settles them, a simulated clock, and what it tells the view recorded. */
function createHarness(input: SectionEditorInput = modelInput) {
  const calls: PendingCall[] = [];
  const saved: SectionSavedNotice[] = [];
  const clock = new SimulatedClock();
  const pending = <T,>(kind: CallKind, args: unknown[], signal: AbortSignal) =>
    new Promise<T>((resolve, reject) => calls.push({ kind, args, signal, settled: false, resolve: resolve as (value: unknown) => void, reject }));
  const services: SectionEditorServices = {
    fetchCatalogue: (signal) => pending('catalogue', [], signal),
    fetchReport: (secret, signal) => pending('report', [secret], signal),
    preview: (reportId, config, resolution, signal) => pending('preview', [reportId, config, resolution], signal),
    create: (reportId, config, title, signal) => pending('create', [reportId, config, title], signal),
    update: (sectionId, config, signal) => pending('update', [sectionId, config], signal),
  };
  const machine = sectionEditorMachine.provide({ actors: sectionEditorActors(services), actions: { saved: (_, notice) => saved.push(notice) } });
  const actor = createActor(machine, { clock, input }).start();
  const inFlight = (kind?: CallKind) => calls.filter((call) => !call.settled && !call.signal.aborted && (kind === undefined || call.kind === kind));
  async function settle(kind: CallKind, outcome: { output: unknown } | { error: unknown }) {
    const call = inFlight(kind).at(-1);
    if (!call) throw new Error(`No ${kind} call is pending`);
    call.settled = true;
    if ('output' in outcome) call.resolve(outcome.output);
    else call.reject(outcome.error);
    await flush();
  }
  async function load(answer: { catalogue: unknown; report: unknown } = loadedAnswers.readable) {
    await settle('catalogue', { output: answer.catalogue });
    await settle('report', { output: answer.report });
  }
  async function debounce() {
    clock.increment(PREVIEW_DEBOUNCE_MS);
    await flush();
  }
  const send = async (event: SectionEditorEvent) => {
    actor.send(event);
    await flush();
  };
  return { actor, clock, calls, saved, inFlight, settle, load, debounce, send, snapshot: (): SectionEditorSnapshot => actor.getSnapshot() };
}
type Harness = ReturnType<typeof createHarness>;

function machineExecutors(harness: Harness): SectionEditorExecutors {
  const send = async (event: SectionEditorModelEvent) => {
    harness.actor.send(event as SectionEditorEvent);
    await flush();
  };
  const outcome = (event: SectionEditorModelEvent) => ('output' in event ? { output: event.output } : { error: (event as { error: unknown }).error });
  return {
    'editor.retry': send,
    'editor.edit': send,
    'editor.save': send,
    'editor.retryPreview': send,
    'xstate.done.actor.load': (event) => harness.load((event as { output: { catalogue: unknown; report: unknown } }).output),
    // The catalogue refused: the load fails whatever the report answers.
    'xstate.error.actor.load': () => harness.settle('catalogue', { error: new Error('503') }),
    [DEBOUNCE_OVER_EVENT]: async () => {
      harness.clock.increment(PREVIEW_DEBOUNCE_MS - 1);
      await flush();
      // Not a millisecond early.
      expect(harness.snapshot().matches({ editing: { preview: 'debouncing' } })).toBe(true);
      expect(harness.inFlight('preview')).toHaveLength(0);
      harness.clock.increment(1);
      await flush();
    },
    'xstate.done.actor.preview': (event) => harness.settle('preview', outcome(event)),
    'xstate.error.actor.preview': (event) => harness.settle('preview', outcome(event)),
    'xstate.done.actor.save': (event) => harness.settle('update', outcome(event)),
    'xstate.error.actor.save': (event) => harness.settle('update', outcome(event)),
  };
}

function label(event: SectionEditorModelEvent): string {
  switch (event.type) {
    case 'xstate.done.actor.load': {
      const entry = Object.entries(loadedAnswers).find(([, answer]) => answer === event.output);
      return `loaded(${entry?.[0] ?? '?'})`;
    }
    case 'xstate.error.actor.load':
      return 'load failed';
    case 'editor.edit':
      return event.edit.kind === 'title' ? 'retitle' : event.edit.kind === 'seriesName' && event.edit.name === '' ? 'break name' : 'fix name';
    case DEBOUNCE_OVER_EVENT:
      return 'debounce over';
    case 'xstate.done.actor.preview':
      return 'preview';
    case 'xstate.error.actor.preview':
      return 'preview refused';
    case 'xstate.done.actor.save':
      return 'saved';
    case 'xstate.error.actor.save':
      return event.error === modelFailures.saveInvalid ? 'save refused (422)' : 'save failed';
    default:
      return event.type;
  }
}

function pathName(path: AnyTestPath): string {
  const events = path.steps.map((step) => step.event as SectionEditorModelEvent).filter((event) => !event.type.startsWith('xstate.init'));
  return `${events.map(label).join(' → ') || '(start)'} ⇒ ${JSON.stringify(path.state.value)}`;
}

const paths = generatePaths(anySectionEditorTestModel());
const configOf = (snapshot: SectionEditorSnapshot): CustomSectionConfig | null => requestConfig(snapshot.context.draft, snapshot.context.catalogue);

describe('sectionEditor machine: generated paths', () => {
  it('reaches every state and takes every transition of the chart', () => {
    expect(coverageGaps(sectionEditorMachine, paths)).toEqual({ states: [], transitions: [] });
    expect(sectionEditorModelEntry.name).toBe('sectionEditor');
    expect(sectionEditorModelEntry.machine).toBe(sectionEditorMachine);
  });

  it('notices a transition that no path takes', () => {
    const withoutRefusedPreview = sectionEditorTestModel(modelEvents.filter((event) => event.type !== 'xstate.error.actor.preview'));
    const gaps = coverageGaps(sectionEditorMachine, generatePaths(withoutRefusedPreview as unknown as AnyTestModel));
    expect(gaps.states).toEqual(['sectionEditor.editing.preview.failed']);
    expect(gaps.transitions.sort()).toEqual(
      [
        'sectionEditor.editing.preview.loading --xstate.error.actor.preview[0]--> sectionEditor.editing.preview.failed',
        'sectionEditor.editing.preview.failed --editor.retryPreview[0]--> sectionEditor.editing.preview.loading',
      ].sort(),
    );
  });

  it('stays a test plan QA can read', () => {
    expect(paths.length).toBeGreaterThan(20);
    expect(paths.length).toBeLessThan(200);
    expect(paths.map(pathName)).toContain('loaded(readable) → debounce over → preview → editor.save → saved ⇒ "saved"');
    expect(paths.map(describePath)).toContain('xstate.done.actor.load ⇒ unreadable');
  });

  it.each(paths.map((path): [string, AnyTestPath] => [pathName(path), path]))('%s', async (_, path) => {
    const harness = createHarness();
    let previous: SectionEditorSnapshot | null = null;
    let savedSeen = 0;
    let callsSeen = 0;
    await path.test(
      pathTestParams(machineExecutors(harness), (expected) => {
        const actual = harness.snapshot();
        expect(actual.value).toEqual(expected.value);
        expect(actual.context).toEqual(expected.context);
        // What is in flight is what the state says, with what the form says.
        const flying = harness.inFlight().map((call) => [call.kind, ...call.args]);
        const wanted = [
          ...(expected.matches('loading') ? [['catalogue'], ['report', MODEL_SECRET]] : []),
          ...(expected.matches({ editing: { preview: 'loading' } }) ? [['preview', MODEL_REPORT_ID, configOf(expected), 'quarter']] : []),
          ...(expected.matches('saving') ? [['update', MODEL_SECTION_ID, configOf(expected)]] : []),
        ];
        expect(flying, 'calls in flight').toEqual(wanted);
        if (previous) {
          const enteredSaved = expected.matches('saved') && !previous.matches('saved');
          expect(harness.saved.slice(savedSeen), 'saved').toEqual(enteredSaved ? [{ secret: MODEL_SECRET, sectionId: MODEL_SECTION_ID }] : []);
          // Each call goes out once: a preview as its state is entered, never two at a time.
          if (!expected.matches({ editing: { preview: 'loading' } })) expect(harness.calls.slice(callsSeen).filter((call) => call.kind === 'preview')).toEqual([]);
        }
        expect(selectCanEdit(actual)).toBe(expected.matches('editing'));
        expect(selectSaving(actual)).toBe(expected.matches('saving') || expected.matches('saved'));
        expect(selectIsNew(actual)).toBe(false);
        previous = expected;
        savedSeen = harness.saved.length;
        callsSeen = harness.calls.length;
      }),
    );
    harness.actor.stop();
  });
});

describe('sectionEditor machine: loading', () => {
  it('opens a new section with one series (MRR) and previews it after the debounce', async () => {
    const harness = createHarness({ secret: MODEL_SECRET, sectionId: null });
    expect(selectPhase(harness.snapshot())).toBe('loading');
    await harness.load();
    expect(selectIsNew(harness.snapshot())).toBe(true);
    expect(harness.snapshot().context.draft.series.map((series) => [series.name, series.value])).toEqual([['MRR', { object: 'payments', attribute: 'mrr' }]]);
    expect(harness.snapshot().context.resolution).toBe('month');
    expect(selectPreview(harness.snapshot()).status).toBe('waiting');
    await harness.debounce();
    expect(harness.inFlight('preview').map((call) => call.args)).toEqual([[MODEL_REPORT_ID, configOf(harness.snapshot()), 'month']]);
  });

  it('opens an edited section with its stored config, at its resolution', async () => {
    const harness = createHarness();
    await harness.load();
    expect(selectPhase(harness.snapshot())).toBe('editing');
    expect(configOf(harness.snapshot())).toEqual(loadedAnswers.readable.report.sections[0]?.config);
    expect(harness.snapshot().context.resolution).toBe('quarter');
  });

  it.each([
    ['a missing section', loadedAnswers.missing, 'unavailable', SECTION_NOT_FOUND],
    ['one of the product’s charts', loadedAnswers.notCustom, 'unavailable', NOT_A_CUSTOM_SECTION],
  ] as const)('says why it cannot edit %s', async (_, answer, phase, message) => {
    const harness = createHarness();
    await harness.load(answer);
    expect(selectPhase(harness.snapshot())).toBe(phase);
    expect(selectLoadError(harness.snapshot())).toBe(message);
  });

  it.each([
    ['missing', undefined],
    ['null', null],
    ['refused by configProblems', { series: [{ name: '', value: { object: 'payments', attribute: 'mrr' } }] }],
    ['not an object', 'mrr'],
  ])('cannot read a stored config that is %s', async (_, config) => {
    const harness = createHarness();
    const sections = [{ ...loadedAnswers.readable.report.sections[0], config }];
    await harness.load({ catalogue: modelCatalogue, report: { id: MODEL_REPORT_ID, sections } });
    expect(selectPhase(harness.snapshot())).toBe('unreadable');
    expect(CONFIG_UNREADABLE).toContain('could not parse configuration');
  });

  it('says which read failed, and reads both again on Try again', async () => {
    const harness = createHarness();
    await harness.settle('catalogue', { output: modelCatalogue });
    await harness.settle('report', { error: new Error('500') });
    expect(selectPhase(harness.snapshot())).toBe('loadFailed');
    expect(selectLoadError(harness.snapshot())).toBe(REPORT_LOAD_FAILURE);

    await harness.send({ type: 'editor.retry' });
    expect(harness.inFlight().map((call) => call.kind)).toEqual(['catalogue', 'report']);
    await harness.settle('catalogue', { error: new Error('503') });
    expect(selectLoadError(harness.snapshot())).toBe(CUSTOM_CONFIG_FAILURE);
    // The report's read is given up with the load.
    expect(harness.calls.filter((call) => call.kind === 'report').at(-1)?.signal.aborted).toBe(true);
  });

  it('fails loudly until src/ provides the calls', async () => {
    await expect(servicesNotProvided.fetchCatalogue(new AbortController().signal)).rejects.toThrow(/not provided/);
    await expect(servicesNotProvided.update('s', loadedAnswers.readable.report.sections[0]?.config as CustomSectionConfig, new AbortController().signal)).rejects.toThrow(/not provided/);
  });
});

describe('sectionEditor machine: the preview', () => {
  async function shown() {
    const harness = createHarness();
    await harness.load();
    await harness.debounce();
    await harness.settle('preview', { output: modelPreview });
    return harness;
  }

  it('asks once the user stops editing: each edit that changes the config starts the wait again', async () => {
    const harness = await shown();
    await harness.send(modelEdits.fixName);
    harness.clock.increment(400);
    await harness.send({ type: 'editor.edit', edit: { kind: 'seriesArgument', series: 0, name: 'periods_back', value: '12' } });
    harness.clock.increment(PREVIEW_DEBOUNCE_MS - 1);
    await flush();
    expect(harness.inFlight('preview')).toHaveLength(0);
    harness.clock.increment(1);
    await flush();
    const [call] = harness.inFlight('preview');
    expect(harness.calls.filter((one) => one.kind === 'preview')).toHaveLength(2);
    expect((call?.args[1] as CustomSectionConfig).series[0]).toMatchObject({ name: 'Pro MRR', value: { arguments: { periods_back: 12 } } });
  });

  it('keeps the last chart while the next one is on its way, and gives up the call an edit overtakes', async () => {
    const harness = await shown();
    await harness.send(modelEdits.fixName);
    expect(selectPreview(harness.snapshot())).toEqual({ status: 'waiting', preview: modelPreview, errors: [] });
    await harness.debounce();
    const first = harness.inFlight('preview')[0];
    expect(selectPreview(harness.snapshot())).toEqual({ status: 'loading', preview: modelPreview, errors: [] });
    await harness.send({ type: 'editor.edit', edit: { kind: 'seriesReference', series: 0, reference: '1500' } });
    expect(first?.signal.aborted).toBe(true);
    expect(selectPreview(harness.snapshot()).preview).toBe(modelPreview);
  });

  it('leaves the preview alone for an edit the config does not hold (the title)', async () => {
    const harness = await shown();
    const callsBefore = harness.calls.length;
    await harness.send(modelEdits.retitle);
    harness.clock.increment(10 * PREVIEW_DEBOUNCE_MS);
    await flush();
    expect(selectPreview(harness.snapshot()).status).toBe('shown');
    expect(harness.calls).toHaveLength(callsBefore);
  });

  it('waits for a form without problems: none is asked for meanwhile', async () => {
    const harness = await shown();
    await harness.send(modelEdits.breakName);
    harness.clock.increment(10 * PREVIEW_DEBOUNCE_MS);
    await flush();
    expect(selectPreview(harness.snapshot())).toEqual({ status: 'idle', preview: modelPreview, errors: [] });
    expect(harness.inFlight('preview')).toHaveLength(0);
  });

  it('shows the server’s reasons for a refused preview, else its own, and asks again on Try again', async () => {
    const harness = createHarness();
    await harness.load();
    await harness.debounce();
    await harness.settle('preview', { error: modelFailures.preview });
    expect(selectPreview(harness.snapshot())).toEqual({ status: 'failed', preview: null, errors: ['Pro is not a value of Plan'] });
    await harness.send({ type: 'editor.retryPreview' });
    await harness.settle('preview', { error: new TypeError('Failed to fetch') });
    expect(selectPreview(harness.snapshot()).errors).toEqual([PREVIEW_FAILURE]);
  });
});

describe('sectionEditor machine: saving', () => {
  it('shows the problems at their fields only once a save was asked for, and does not save', async () => {
    const harness = createHarness();
    await harness.load();
    await harness.send(modelEdits.breakName);
    expect(selectErrors(harness.snapshot())).toEqual({ fields: {}, form: [] });
    await harness.send({ type: 'editor.save' });
    expect(selectPhase(harness.snapshot())).toBe('editing');
    expect(selectErrors(harness.snapshot()).fields).toEqual({ '/series/0/name': SERIES_NAME_REQUIRED });
    expect(harness.inFlight('update')).toHaveLength(0);
    // Fixed: the message goes with the problem.
    await harness.send(modelEdits.fixName);
    expect(selectErrors(harness.snapshot())).toEqual({ fields: {}, form: [] });
  });

  it('creates a new section under its report with the typed title, else its series’ names', async () => {
    const harness = createHarness({ secret: MODEL_SECRET, sectionId: null });
    await harness.load();
    await harness.send({ type: 'editor.save' });
    expect(harness.inFlight('create').map((call) => call.args[2])).toEqual(['MRR']);
    await harness.settle('create', { error: new Error('500') });
    await harness.send({ type: 'editor.edit', edit: { kind: 'title', title: '  Board MRR ' } });
    await harness.send({ type: 'editor.save' });
    expect(harness.inFlight('create').map((call) => call.args)).toEqual([[MODEL_REPORT_ID, configOf(harness.snapshot()), 'Board MRR']]);
    await harness.settle('create', { output: { id: 'sec_new' } });
    expect(selectPhase(harness.snapshot())).toBe('saved');
    expect(harness.saved).toEqual([{ secret: MODEL_SECRET, sectionId: 'sec_new' }]);
  });

  it('puts the server’s refusals at the fields they point at, the rest at the top; an edit clears its own', async () => {
    const harness = createHarness();
    await harness.load();
    await harness.send({ type: 'editor.save' });
    await harness.settle('update', {
      error: {
        kind: 'invalid',
        errors: [
          { pointer: '/series/0/name', message: 'Name is taken by another series' },
          { pointer: '/series/0/value/attribute', message: 'MRR cannot be split by product' },
          { pointer: '/series/0/filters/0/value', message: 'Pro is not a value of Plan' },
          { pointer: '/series/4/name', message: 'No such series' },
          { pointer: '/colour', message: 'Unknown field' },
          { pointer: null, message: 'The report is being recalculated' },
        ],
      },
    });
    expect(selectPhase(harness.snapshot())).toBe('editing');
    expect(selectErrors(harness.snapshot())).toEqual({
      fields: {
        '/series/0/name': 'Name is taken by another series',
        '/series/0/value': 'MRR cannot be split by product',
        '/series/0/filters/0/value': 'Pro is not a value of Plan',
        '/series': 'No such series',
      },
      form: ['The report is being recalculated', 'Unknown field'],
    });
    await harness.send(modelEdits.fixName);
    expect(selectErrors(harness.snapshot()).fields).toEqual({
      '/series/0/value': 'MRR cannot be split by product',
      '/series/0/filters/0/value': 'Pro is not a value of Plan',
      '/series': 'No such series',
    });
    // The form kept everything typed.
    expect(harness.snapshot().context.draft.series[0]?.filters[0]?.value).toEqual(['Pro']);
  });

  it('says the generic message for any other failure, keeping the form', async () => {
    const harness = createHarness();
    await harness.load();
    const before = harness.snapshot().context.draft;
    await harness.send({ type: 'editor.save' });
    expect(selectSaving(harness.snapshot())).toBe(true);
    await harness.settle('update', { error: modelFailures.saveUnavailable });
    expect(selectErrors(harness.snapshot())).toEqual({ fields: {}, form: [CUSTOM_SAVE_FAILURE] });
    expect(harness.snapshot().context.draft).toBe(before);
    // A refusal that says nothing usable is the generic message too.
    await harness.send({ type: 'editor.save' });
    expect(selectErrors(harness.snapshot()).form).toEqual([]);
    await harness.settle('update', { error: { kind: 'invalid', errors: [] } });
    expect(selectErrors(harness.snapshot()).form).toEqual([CUSTOM_SAVE_FAILURE]);
  });

  it('takes no edit while saving', async () => {
    const harness = createHarness();
    await harness.load();
    await harness.send({ type: 'editor.save' });
    await harness.send(modelEdits.breakName);
    expect(harness.snapshot().context.draft.series[0]?.name).toBe('MRR');
  });
});
