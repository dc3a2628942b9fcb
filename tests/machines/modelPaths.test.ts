import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { machineModels } from './registry';
import { coverageGaps, describePath, generatePaths, type AnyTestModel } from './support/modelPaths';

// A fixture chart with a retry loop and a parallel-free hierarchy: enough to prove the helpers.
const fetchChart = createMachine({
  id: 'fetch',
  initial: 'idle',
  states: {
    idle: { on: { 'data.load': 'loading' } },
    loading: { on: { 'data.loaded': 'done', 'data.failed': 'failed' } },
    failed: { on: { 'data.retry': 'loading', 'data.dismiss': 'idle' } },
    done: { type: 'final' },
  },
});
const fetchModel = () => createTestModel(fetchChart) as unknown as AnyTestModel;

describe('model path helpers', () => {
  it('generates paths that reach every state and take every transition of the chart', () => {
    const paths = generatePaths(fetchModel());
    expect(coverageGaps(fetchChart, paths)).toEqual({ states: [], transitions: [] });
  });

  it('reports the transitions a set of paths leaves out', () => {
    const happyPath = fetchModel()
      .getShortestPaths()
      .filter((path) => path.state.matches('done'));
    const gaps = coverageGaps(fetchChart, happyPath);
    expect(gaps.transitions).toEqual(
      expect.arrayContaining(['fetch.failed --data.retry[0]--> fetch.loading', 'fetch.failed --data.dismiss[0]--> fetch.idle']),
    );
  });

  it('reports unreached states', () => {
    const happyPath = fetchModel()
      .getShortestPaths()
      .filter((path) => path.state.matches('done'));
    expect(coverageGaps(fetchChart, happyPath).states).toEqual(['fetch.failed']);
    expect(coverageGaps(fetchChart, []).states).toEqual(expect.arrayContaining(['fetch.done', 'fetch.failed']));
  });

  it('names a path by the events taken and the state reached', () => {
    const names = generatePaths(fetchModel()).map(describePath);
    expect(names).toContain('data.load → data.loaded ⇒ done');
    expect(names).toContain('data.load → data.failed → data.retry ⇒ loading');
  });
});

describe.each(machineModels.map((entry) => [entry.name, entry] as const))('machine %s', (_name, entry) => {
  it('has generated paths reaching every state and every transition', () => {
    expect(coverageGaps(entry.machine, generatePaths(entry.model()))).toEqual({ states: [], transitions: [] });
  });
});
