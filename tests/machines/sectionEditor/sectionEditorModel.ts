import type { ActorLogic, AnyMachineSnapshot, EventObject } from 'xstate';
import { TestModel } from 'xstate/graph';
import type { TestParam } from 'xstate/graph';
import { CUSTOM_VALUES, USER_FILTERED_DEFINITION_ID } from '../../../models/customSections';
import type { CustomSectionConfig } from '../../../models/customSections';
import type { LoadedEditor, SectionEditorInvokeId } from '../../../machines/sectionEditor/sectionEditorActors';
import { sectionEditorMachine } from '../../../machines/sectionEditor/sectionEditorMachine';
import type { SectionEditorSnapshot } from '../../../machines/sectionEditor/sectionEditorMachine';
import type { LoadedReport, PreviewFailure, SaveFailure, SectionCatalogue, SectionEditorEvent, SectionEditorInput, SectionPreview } from '../../../machines/sectionEditor/types';
import type { AnyTestModel, MachineModelEntry } from '../support/modelPaths';

/**
 * The section editor's test model: editing a custom section's calculation, with the events the
 * form, the three calls (load, preview, save) and the preview's debounce can cause. The payloads
 * are fixed and the edits few (break the series' name, fix it, change the title), so the graph
 * stays finite; draft.ts's edits are unit-tested on their own.
 */

export const MODEL_SECRET = 'S'.repeat(32);
export const MODEL_REPORT_ID = 'rep_model';
export const MODEL_SECTION_ID = 'sec_custom';
export const modelInput: SectionEditorInput = { secret: MODEL_SECRET, sectionId: MODEL_SECTION_ID };

export const modelCatalogue: SectionCatalogue = {
  values: CUSTOM_VALUES.filter((value) => value.object !== 'costs' || value.attribute === 'value').map((value) => ({ ...value, arguments: [...value.arguments] })),
  filters: [
    { object: 'customer', field: 'segment', field_id: 'seg_plan', name: 'Plan', operators: ['eq', 'in', 'in_reporting_month'], groupable: true, filterable: true },
    { object: 'customer', field: 'deal_owner', field_id: null, name: 'Deal owner', operators: ['eq', 'in'], groupable: false, filterable: true },
    { object: 'payment', field: 'product', field_id: null, name: 'Product', operators: ['eq', 'in'], groupable: true, filterable: true },
    { object: 'cost', field: 'attribute', field_id: 'cat_kind', name: 'Cost kind', operators: ['eq', 'in'], groupable: true, filterable: true },
  ],
};

/** The stored config of the edited section: MRR of Pro customers, split by product. */
export const modelConfig: CustomSectionConfig = {
  groups: [],
  series: [
    {
      name: 'MRR',
      value: { object: 'payments', attribute: 'mrr', label: 'MRR', arguments: { periods_back: 0 } },
      groups: [{ type: 'group', object: 'payment', field: 'product', field_id: null }],
      filters: [{ type: 'filter', object: 'customer', field: 'segment', field_id: 'seg_plan', operator: 'in', value: ['Pro'] }],
      reference: null,
      hidden: false,
    },
  ],
};

const section = (overrides: Partial<LoadedReport['sections'][number]>) => ({
  id: MODEL_SECTION_ID,
  definition_id: USER_FILTERED_DEFINITION_ID,
  title: 'Pro MRR by product',
  resolution: 'quarter',
  config: modelConfig,
  ...overrides,
});

/** What loading answers: the section readable, gone, one of the product's charts, or its config unreadable. */
export const loadedAnswers = {
  readable: { catalogue: modelCatalogue, report: { id: MODEL_REPORT_ID, sections: [section({})] } },
  missing: { catalogue: modelCatalogue, report: { id: MODEL_REPORT_ID, sections: [section({ id: 'sec_other' })] } },
  notCustom: { catalogue: modelCatalogue, report: { id: MODEL_REPORT_ID, sections: [section({ definition_id: 'mrr', config: undefined })] } },
  unreadable: { catalogue: modelCatalogue, report: { id: MODEL_REPORT_ID, sections: [section({ config: { series: [{ name: 'MRR', value: 'mrr' }] } })] } },
} as const satisfies Record<string, LoadedEditor>;

export const modelPreview: SectionPreview = {
  unit: 'minor_units',
  currency: 'USD',
  periods: [
    { label: '2026-Q1', first_day: '2026-01-01', last_day: '2026-03-31', measure_day: '2026-03-31', current: false, complete: true },
    { label: '2026-Q2', first_day: '2026-04-01', last_day: '2026-06-30', measure_day: '2026-05-02', current: true, complete: false },
  ],
  segments: [
    {
      id: 'total',
      name: 'Total',
      is_total: true,
      grouped_segment_names: [],
      series: [
        {
          name: 'MRR',
          data_points: [
            { time: '2026-01-01', value: 120_000 },
            { time: '2026-04-01', value: 150_000 },
          ],
        },
      ],
    },
  ],
};

/** The refusals the calls answer with. */
export const modelFailures = {
  load: { kind: 'catalogue' },
  preview: { errors: [{ pointer: '/series/0/filters/0/value', message: 'Pro is not a value of Plan' }] } satisfies PreviewFailure,
  saveInvalid: {
    kind: 'invalid',
    errors: [
      { pointer: '/series/0/name', message: 'Name is taken by another series' },
      { pointer: null, message: 'The report is being recalculated' },
    ],
  } satisfies SaveFailure,
  saveUnavailable: new TypeError('Failed to fetch'),
} as const;

/** The model's edits: break the series' name, fix it, change the title (which the preview does not read). */
export const modelEdits = {
  breakName: { type: 'editor.edit', edit: { kind: 'seriesName', series: 0, name: '' } },
  fixName: { type: 'editor.edit', edit: { kind: 'seriesName', series: 0, name: 'Pro MRR' } },
  retitle: { type: 'editor.edit', edit: { kind: 'title', title: 'Board MRR' } },
} as const satisfies Record<string, SectionEditorEvent>;

/** The delayed event of the preview's debounce (`after: { previewDebounce }` of editing.preview.debouncing). */
export const DEBOUNCE_OVER_EVENT = 'xstate.after.previewDebounce.sectionEditor.editing.preview.debouncing' as const;

type Outputs = { load: LoadedEditor; preview: SectionPreview; save: { id: string } };
type DoneEvent<Id extends SectionEditorInvokeId> = { type: `xstate.done.actor.${Id}`; output: Outputs[Id] };
type ErrorEvent<Id extends SectionEditorInvokeId> = { type: `xstate.error.actor.${Id}`; error: unknown };

export type SectionEditorModelEvent =
  | SectionEditorEvent
  | { [Id in SectionEditorInvokeId]: DoneEvent<Id> | ErrorEvent<Id> }[SectionEditorInvokeId]
  | { type: typeof DEBOUNCE_OVER_EVENT };
export type SectionEditorModelEventType = SectionEditorModelEvent['type'];

export const modelEvents: readonly SectionEditorModelEvent[] = [
  ...Object.values(loadedAnswers).map((output) => ({ type: 'xstate.done.actor.load' as const, output })),
  { type: 'xstate.error.actor.load', error: modelFailures.load },
  { type: 'editor.retry' },
  modelEdits.breakName,
  modelEdits.fixName,
  modelEdits.retitle,
  { type: DEBOUNCE_OVER_EVENT },
  { type: 'xstate.done.actor.preview', output: modelPreview },
  { type: 'xstate.error.actor.preview', error: modelFailures.preview },
  { type: 'editor.retryPreview' },
  { type: 'editor.save' },
  { type: 'xstate.done.actor.save', output: { id: MODEL_SECTION_ID } },
  { type: 'xstate.error.actor.save', error: modelFailures.saveInvalid },
  { type: 'xstate.error.actor.save', error: modelFailures.saveUnavailable },
];

export type SectionEditorExecutor = (event: SectionEditorModelEvent) => Promise<void>;
/** One executor per event type the model takes: a new event without one fails to compile. */
export type SectionEditorExecutors = Record<SectionEditorModelEventType, SectionEditorExecutor>;

export function pathTestParams(executors: SectionEditorExecutors, assertState: (expected: SectionEditorSnapshot) => Promise<void> | void): TestParam<AnyMachineSnapshot, EventObject> {
  const events: NonNullable<TestParam<AnyMachineSnapshot, EventObject>['events']> = {};
  for (const type of Object.keys(executors) as SectionEditorModelEventType[]) {
    events[type] = (step) => executors[type](step.event as SectionEditorModelEvent);
  }
  return { events, states: { '*': (snapshot) => assertState(snapshot as SectionEditorSnapshot) } };
}

export function isViewEvent(event: SectionEditorModelEvent): event is SectionEditorEvent {
  return event.type.startsWith('editor.');
}

const modelLogic = sectionEditorMachine as unknown as ActorLogic<SectionEditorSnapshot, SectionEditorModelEvent, SectionEditorInput>;

const ORIGINAL_NAME = modelConfig.series[0]?.name;

/**
 * Edits the model makes: from the loaded form, break the name or change the title; a broken
 * name is fixed (to another name). Everything else where the machine acts on it.
 */
function isModelled(snapshot: SectionEditorSnapshot, event: SectionEditorModelEvent): boolean {
  if (event.type === 'editor.edit') {
    if (!snapshot.matches('editing')) return false;
    const { draft } = snapshot.context;
    const name = draft.series[0]?.name;
    const untouched = name === ORIGINAL_NAME && draft.title === loadedAnswers.readable.report.sections[0]?.title;
    if (event.edit.kind === 'seriesName' && event.edit.name !== '') return name === '';
    return untouched;
  }
  return snapshot.can(event as SectionEditorEvent);
}

/**
 * Leaves of the graph (explored no further), so the paths stay a readable plan and every
 * transition still shows up on one:
 * - `retried`: loading again after a failure (explored from the start);
 * - `previewAgain`: a failed preview asked again (explored from the first preview);
 * - `returned`: back in the form after a refused save (the form's ways on are explored before
 *   the save).
 */
type LeafReason = 'retried' | 'previewAgain' | 'returned';

function leafReason(snapshot: SectionEditorSnapshot, event: SectionEditorModelEvent | undefined, previous: SectionEditorSnapshot | undefined): LeafReason | null {
  if (!event || !previous) return null;
  if (event.type === 'editor.retry') return 'retried';
  if (event.type === 'editor.retryPreview') return 'previewAgain';
  if (event.type === 'xstate.error.actor.save') return 'returned';
  return null;
}

const leaves = new WeakSet<object>();
function serializeState(snapshot: SectionEditorSnapshot, event?: SectionEditorModelEvent, previous?: SectionEditorSnapshot): string {
  const leaf = leafReason(snapshot, event, previous);
  if (leaf) leaves.add(snapshot);
  return JSON.stringify({ value: snapshot.value, context: snapshot.context, ...(leaf ? { leaf } : {}) });
}

export function sectionEditorTestModel(events: readonly SectionEditorModelEvent[] = modelEvents): TestModel<SectionEditorSnapshot, SectionEditorModelEvent, SectionEditorInput> {
  return new TestModel<SectionEditorSnapshot, SectionEditorModelEvent, SectionEditorInput>(modelLogic, {
    events,
    input: modelInput,
    filterEvents: isModelled,
    serializeState,
    stopWhen: (snapshot) => leaves.has(snapshot),
  });
}

export const anySectionEditorTestModel = (): AnyTestModel => sectionEditorTestModel() as unknown as AnyTestModel;

/** The registry's entry (tests/machines/registry.ts): QA's path list and the coverage guard. */
export const sectionEditorModelEntry: MachineModelEntry = { name: 'sectionEditor', machine: sectionEditorMachine, model: anySectionEditorTestModel };
