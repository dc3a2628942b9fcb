import type { AnyStateMachine, AnyMachineSnapshot, EventObject, StateNode } from 'xstate';
import type { TestModel, TestPath } from 'xstate/graph';

/**
 * Shared helpers of the model-based suites: path generation that keeps every transition,
 * readable path names for QA, and a coverage check of states and transitions.
 */
export type AnyTestModel = TestModel<AnyMachineSnapshot, EventObject, unknown>;
export type AnyTestPath = TestPath<AnyMachineSnapshot, EventObject>;

export interface MachineModelEntry {
  /** The machine's name as QA reads it (`auth`, `csvImport`, …). */
  name: string;
  machine: AnyStateMachine;
  model: () => AnyTestModel;
}

const stateLabel = (snapshot: AnyMachineSnapshot): string => {
  const value = snapshot.value;
  if (typeof value === 'string') return value;
  const flatten = (v: unknown): string[] =>
    typeof v === 'string'
      ? [v]
      : Object.entries(v as Record<string, unknown>).flatMap(([k, inner]) =>
          typeof inner === 'object' && inner && Object.keys(inner).length === 0 ? [k] : flatten(inner).map((s) => `${k}.${s}`),
        );
  return flatten(value).join(', ');
};

/** 'signedOut → auth.submit → signingIn → … ⇒ signedIn' */
export function describePath(path: AnyTestPath): string {
  if (path.steps.length === 0) return `(start) ⇒ ${stateLabel(path.state)}`;
  const events = path.steps.filter((step) => !step.event.type.startsWith('xstate.init')).map((step) => step.event.type);
  return `${events.length === 0 ? '(start)' : events.join(' → ')} ⇒ ${stateLabel(path.state)}`;
}

/** Shortest paths to every state plus simple paths, so every transition shows up on some path. */
export function generatePaths(model: AnyTestModel): AnyTestPath[] {
  const seen = new Set<string>();
  const result: AnyTestPath[] = [];
  for (const path of [...model.getShortestPaths(), ...model.getSimplePaths()]) {
    const key = describePath(path);
    if (seen.has(key)) continue;
    seen.add(key);
    result.push(path);
  }
  return result;
}

interface ChartTransition {
  key: string;
  source: StateNode;
  eventType: string;
  targets: StateNode[];
}

function allNodes(node: StateNode): StateNode[] {
  return [node, ...Object.values(node.states).flatMap((child) => allNodes(child as StateNode))];
}

/** Every transition written in the chart, as `source --event--> target(s)`. */
export function chartTransitions(machine: AnyStateMachine): ChartTransition[] {
  const transitions: ChartTransition[] = [];
  for (const node of allNodes(machine.root as StateNode)) {
    for (const [eventType, definitions] of node.transitions) {
      definitions.forEach((definition, index) => {
        const targets = (definition.target ?? []) as StateNode[];
        const targetIds = targets.length ? targets.map((t) => t.id).join('+') : '(self)';
        transitions.push({ key: `${node.id} --${eventType}[${index}]--> ${targetIds}`, source: node, eventType, targets });
      });
    }
    node.always?.forEach((definition, index) => {
      const targets = (definition.target ?? []) as StateNode[];
      transitions.push({ key: `${node.id} --always[${index}]--> ${targets.map((t) => t.id).join('+')}`, source: node, eventType: '', targets });
    });
  }
  return transitions;
}

const activeIds = (snapshot: AnyMachineSnapshot) => new Set((snapshot._nodes as StateNode[]).map((n) => n.id));

/** The states a path reaches and the chart transitions it takes (ids and transition keys). */
function pathCoverage(transitions: ChartTransition[], path: AnyTestPath): { states: Set<string>; transitions: Set<string> } {
  const reachedStates = new Set<string>();
  const takenTransitions = new Set<string>();
  let previous: AnyMachineSnapshot | undefined;
  for (const step of path.steps) {
    const after = activeIds(step.state);
    after.forEach((id) => reachedStates.add(id));
    if (previous) {
      const before = activeIds(previous);
      for (const t of transitions) {
        if (t.eventType !== step.event.type || !before.has(t.source.id)) continue;
        if (t.targets.every((target) => after.has(target.id))) takenTransitions.add(t.key);
      }
    }
    previous = step.state;
  }
  activeIds(path.state).forEach((id) => reachedStates.add(id));
  return { states: reachedStates, transitions: takenTransitions };
}

/** What the generated paths leave out: states never reached and chart transitions never taken. */
export function coverageGaps(machine: AnyStateMachine, paths: AnyTestPath[]): { states: string[]; transitions: string[] } {
  const reachedStates = new Set<string>();
  const takenTransitions = new Set<string>();
  const transitions = chartTransitions(machine);
  for (const path of paths) {
    const covered = pathCoverage(transitions, path);
    covered.states.forEach((id) => reachedStates.add(id));
    covered.transitions.forEach((key) => takenTransitions.add(key));
  }
  const states = allNodes(machine.root as StateNode)
    .map((n) => n.id)
    .filter((id) => !reachedStates.has(id));
  return { states, transitions: transitions.filter((t) => t.eventType !== '' && !takenTransitions.has(t.key)).map((t) => t.key) };
}

/**
 * A few of `paths` that together reach every state and take every transition the whole set
 * does (greedy: each pick covers the most not yet covered, fewer steps on a tie). The machine
 * suites walk every generated path against the machine alone, which is cheap; walking them all
 * through a rendered component costs seconds each, so the component suites walk this cover.
 */
export function coveringPaths(machine: AnyStateMachine, paths: AnyTestPath[]): AnyTestPath[] {
  const transitions = chartTransitions(machine);
  const items = paths.map((path) => {
    const covered = pathCoverage(transitions, path);
    return { path, keys: new Set([...[...covered.states].map((id) => `state:${id}`), ...[...covered.transitions].map((key) => `transition:${key}`)]) };
  });
  const wanted = new Set(items.flatMap((item) => [...item.keys]));
  const chosen: AnyTestPath[] = [];
  while (wanted.size > 0) {
    let best: (typeof items)[number] | undefined;
    let bestGain = 0;
    for (const item of items) {
      let gain = 0;
      item.keys.forEach((key) => wanted.has(key) && (gain += 1));
      if (gain > bestGain || (gain === bestGain && gain > 0 && best && item.path.steps.length < best.path.steps.length)) {
        best = item;
        bestGain = gain;
      }
    }
    if (!best) break;
    chosen.push(best.path);
    best.keys.forEach((key) => wanted.delete(key));
  }
  return chosen;
}
