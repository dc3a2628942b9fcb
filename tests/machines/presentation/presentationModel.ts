import type { ActorLogic, AnyMachineSnapshot, EventObject } from 'xstate';
import { TestModel } from 'xstate/graph';
import type { TestParam } from 'xstate/graph';
import { PRESENTATION_TITLE_SLIDE_ID } from '../../../models/constants';
import { presentationMachine } from '../../../machines/presentation/presentationMachine';
import type { PresentationSnapshot } from '../../../machines/presentation/presentationMachine';
import type { PresentationEvent, PresentationEventType } from '../../../machines/presentation/types';
import type { AnyTestModel, AnyTestPath, MachineModelEntry } from '../support/modelPaths';

/**
 * The presentation machine's test model, shared by the machine suite and the view suite
 * (tests/src/reports/presentation): a report of three sections, so four slides, and the
 * three ways its sections change underneath (one removed, all removed, one added).
 */

/** The model report's sections, by id (the view suite builds a section for each). */
export const MODEL_SECTION_IDS = ['sec_mrr', 'sec_churn', 'sec_arr'] as const;
export const MODEL_SLIDES: readonly string[] = [PRESENTATION_TITLE_SLIDE_ID, ...MODEL_SECTION_IDS];

/** The report changed underneath: the slides afterwards. */
export const changedSlides = {
  /** The second section removed (the slide shown, on its slide; an earlier one, past it). */
  churnRemoved: [PRESENTATION_TITLE_SLIDE_ID, 'sec_mrr', 'sec_arr'],
  /** Every section removed: the title slide is left. */
  allRemoved: [PRESENTATION_TITLE_SLIDE_ID],
  /** A section added before the second one. */
  cashAdded: [PRESENTATION_TITLE_SLIDE_ID, 'sec_mrr', 'sec_cash', 'sec_churn', 'sec_arr'],
} as const satisfies Record<string, readonly string[]>;

export const modelEvents: readonly PresentationEvent[] = [
  { type: 'presentation.open', slides: MODEL_SLIDES },
  { type: 'presentation.next' },
  { type: 'presentation.previous' },
  { type: 'presentation.go', index: 0 },
  { type: 'presentation.go', index: MODEL_SLIDES.length - 1 },
  { type: 'presentation.leave' },
  ...Object.values(changedSlides).map((slides): PresentationEvent => ({ type: 'presentation.slidesChanged', slides })),
];

/** Makes a step's event happen in the system under test. */
export type PresentationExecutor = (event: PresentationEvent) => Promise<void>;
/** One executor per event the model takes: a new event without one fails to compile. */
export type PresentationExecutors = Record<PresentationEventType, PresentationExecutor>;

/**
 * The parameters of `path.test()`: each step runs its executor, then `assertState` compares
 * the system with the state the model expects.
 */
export function pathTestParams(executors: PresentationExecutors, assertState: (expected: PresentationSnapshot) => Promise<void> | void): TestParam<AnyMachineSnapshot, EventObject> {
  const events: NonNullable<TestParam<AnyMachineSnapshot, EventObject>['events']> = {};
  for (const type of Object.keys(executors) as PresentationEventType[]) {
    events[type] = (step) => executors[type](step.event as PresentationEvent);
  }
  return { events, states: { '*': (snapshot) => assertState(snapshot as PresentationSnapshot) } };
}

/** The machine as the model sees it: its effects are the suites' to check. */
const modelLogic = presentationMachine as unknown as ActorLogic<PresentationSnapshot, PresentationEvent, undefined>;

/**
 * Leaves of the graph: states whose continuation is explored from an equal state elsewhere.
 * The slideshow is explored going forward from the first slide (`presentation.next`); each
 * other step is taken from every slide and ends its path:
 * - `closed`: back to closed (leave, or next on the last slide);
 * - `back`: the slide before (explored on the way forward);
 * - `stayed`: previous on the first slide, which changes nothing (a state of its own, since
 *   a simple path never steps on a state twice);
 * - `jumped`: to the first or last slide (explored on the way forward);
 * - `changed`: the slides changed underneath (the other slide lists show nothing new once the
 *   slide shown is settled).
 */
type LeafReason = 'closed' | 'back' | 'stayed' | 'jumped' | 'changed';

function leafReason(snapshot: PresentationSnapshot, event: EventObject | undefined, previous: PresentationSnapshot | undefined): LeafReason | null {
  if (!event || !previous || !previous.matches('presenting')) return null;
  if (snapshot.matches('closed')) return 'closed';
  switch (event.type) {
    case 'presentation.previous':
      return snapshot.context.index === previous.context.index ? 'stayed' : 'back';
    case 'presentation.go':
      return 'jumped';
    case 'presentation.slidesChanged':
      return 'changed';
    default:
      return null;
  }
}

/** The snapshots that are leaves (recorded while serializing, read by `stopWhen`). */
const leaves = new WeakSet<object>();

function serializeState(snapshot: PresentationSnapshot, event?: EventObject, previous?: PresentationSnapshot): string {
  const leaf = leafReason(snapshot, event, previous);
  if (leaf) leaves.add(snapshot);
  return JSON.stringify({ value: snapshot.value, context: snapshot.context, ...(leaf ? { leaf } : {}) });
}

/** What the model takes: the events the chart handles, but a jump to the slide shown (it adds nothing). */
function isModelled(snapshot: PresentationSnapshot, event: PresentationEvent): boolean {
  if (event.type === 'presentation.previous') return snapshot.matches('presenting');
  if (event.type === 'presentation.go') return snapshot.matches('presenting') && snapshot.context.index !== event.index;
  return snapshot.can(event);
}

export function presentationTestModel(events: readonly PresentationEvent[] = modelEvents): TestModel<PresentationSnapshot, PresentationEvent, undefined> {
  return new TestModel(modelLogic, {
    events,
    filterEvents: isModelled,
    serializeState,
    stopWhen: (snapshot) => leaves.has(snapshot),
  });
}

/** A step's event as the path names read: the slide lists and positions are told apart. */
function eventLabel(event: EventObject): string {
  const typed = event as PresentationEvent;
  if (typed.type === 'presentation.go') return `presentation.go(${typed.index})`;
  if (typed.type === 'presentation.slidesChanged') {
    const name = Object.entries(changedSlides).find(([, slides]) => slides.join() === typed.slides.join())?.[0];
    return `presentation.slidesChanged(${name ?? typed.slides.join(',')})`;
  }
  return typed.type;
}

/** 'presentation.open → presentation.next → presentation.slidesChanged(churnRemoved) ⇒ presenting 2/3' */
export function describePresentationPath(path: AnyTestPath): string {
  const events = path.steps.map((step) => step.event).filter((event) => !event.type.startsWith('xstate.init'));
  const state = path.state as PresentationSnapshot;
  const where = state.matches('presenting') ? ` ${state.context.index + 1}/${state.context.slides.length}` : '';
  return `${events.length === 0 ? '(start)' : events.map(eventLabel).join(' → ')} ⇒ ${String(state.value)}${where}`;
}

/**
 * Every path of the model, told apart by the events' payloads (`generatePaths` names a path
 * by its event types only, so it keeps one jump and one slide change of each path prefix: enough
 * for the chart's coverage, but the machine suite walks each slide list and position).
 */
export function presentationPaths(): AnyTestPath[] {
  const model = anyPresentationTestModel();
  const seen = new Set<string>();
  return [...model.getShortestPaths(), ...model.getSimplePaths()].filter((path) => {
    const key = describePresentationPath(path);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The same model in the registry's untyped form. */
export const anyPresentationTestModel = (): AnyTestModel => presentationTestModel() as unknown as AnyTestModel;

/** The registry's entry (tests/machines/registry.ts): QA's path list and the coverage guard. */
export const presentationModelEntry: MachineModelEntry = { name: 'presentation', machine: presentationMachine, model: anyPresentationTestModel };
