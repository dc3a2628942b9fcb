import { describe, expect, it } from 'vitest';
import { REFRESH_FAILURE_MESSAGE } from '../../../machines/recalculation/messages';
import { initialRecalculationContext, recalculationMachine } from '../../../machines/recalculation/recalculationMachine';
import type { RecalculationSnapshot } from '../../../machines/recalculation/recalculationMachine';
import {
  canRefresh,
  controlsDisabled,
  isRecalculating,
  lastError,
  sectionPending,
  showsRecalculatingWarning,
  showsRefreshButton,
  showsStaleCallout,
} from '../../../machines/recalculation/selectors';
import type { RecalculationContext } from '../../../machines/recalculation/types';
import { FIRST_SECTION, modelInput, SECOND_SECTION } from './recalculationModel';

function at(value: string, context: Partial<RecalculationContext> = {}): RecalculationSnapshot {
  return recalculationMachine.resolveState({ value, context: { ...initialRecalculationContext(modelInput), ...context } });
}

const STATES = ['fresh', 'stale', 'failed', 'refreshing', 'recalculating'] as const;

describe('recalculation selectors', () => {
  it.each([
    ['fresh', false],
    ['stale', false],
    ['failed', false],
    ['refreshing', true],
    ['recalculating', true],
  ] as const)('%s: recalculating and the recalculate, view, currency, range and filter controls disabled: %s', (state, busy) => {
    expect(isRecalculating(at(state))).toBe(busy);
    expect(controlsDisabled(at(state))).toBe(busy);
  });

  it('shows the recalculating warning only while the server recalculates', () => {
    expect(STATES.filter((state) => showsRecalculatingWarning(at(state)))).toEqual(['recalculating']);
  });

  it('shows the stale callout when the report is stale and nothing recalculates it', () => {
    expect(showsStaleCallout(at('fresh'))).toBe(false);
    expect(showsStaleCallout(at('stale', { freshnessStatus: 'stale' }))).toBe(true);
    expect(showsStaleCallout(at('failed', { recalculationStatus: 'failed', freshnessStatus: 'stale' }))).toBe(true);
    expect(showsStaleCallout(at('failed', { recalculationStatus: 'failed', freshnessStatus: 'fresh' }))).toBe(false);
    expect(showsStaleCallout(at('recalculating', { freshnessStatus: 'stale' }))).toBe(false);
    expect(showsStaleCallout(at('refreshing', { freshnessStatus: 'stale' }))).toBe(false);
  });

  it("shows the stale callout's Refresh button to editors only", () => {
    expect(showsRefreshButton(at('stale', { freshnessStatus: 'stale', canEdit: true }))).toBe(true);
    expect(showsRefreshButton(at('stale', { freshnessStatus: 'stale', canEdit: false }))).toBe(false);
    expect(showsRefreshButton(at('fresh', { canEdit: true }))).toBe(false);
  });

  it('lets an editor refresh unless a refresh or recalculation runs', () => {
    expect(STATES.filter((state) => canRefresh(at(state)))).toEqual(['fresh', 'stale', 'failed']);
    expect(STATES.filter((state) => canRefresh(at(state, { canEdit: false })))).toEqual([]);
  });

  it('shows a spinner on each section whose update has not arrived', () => {
    const snapshot = at('recalculating', { recalculationStatus: 'recalculating', pendingSections: [SECOND_SECTION] });
    expect(sectionPending(snapshot, SECOND_SECTION)).toBe(true);
    expect(sectionPending(snapshot, FIRST_SECTION)).toBe(false);
    expect(sectionPending(at('fresh'), SECOND_SECTION)).toBe(false);
  });

  it('gives the last refresh failure', () => {
    expect(lastError(at('fresh'))).toBeNull();
    expect(lastError(at('stale', { lastError: REFRESH_FAILURE_MESSAGE }))).toBe(REFRESH_FAILURE_MESSAGE);
  });
});
