import { describe, expect, it } from 'vitest';
import { paymentsImport, paymentsImportMachine } from '../../../machines/mappingWizard/paymentsImport';
import type { MappingWizardSnapshot } from '../../../machines/mappingWizard/mappingWizardMachine';
import { emptyMapping } from '../../../machines/mappingWizard/mapping';
import { STATUS_CHECK_FAILURE_MESSAGE } from '../../../machines/mappingWizard/messages';
import {
  selectColumnRole,
  selectCounts,
  selectFailureMessages,
  selectOutcome,
  selectProgress,
  selectRowsToImport,
  selectStatusCheckMessage,
  selectStep,
  selectSuccessMessage,
  selectUnmappedRequiredRoles,
} from '../../../machines/mappingWizard/selectors';
import type { MappingWizardContext } from '../../../machines/mappingWizard/types';
import { modelPreview, modelStatuses } from './paymentsImportModel';

const baseContext: MappingWizardContext = {
  maxPolls: 1_000,
  file: null,
  importId: 'imp_model',
  preview: modelPreview,
  mapping: paymentsImport.defaultMapping(modelPreview.columns),
  live: false,
  skipHeaders: true,
  polls: 0,
  progress: 0,
  statusCheckFailed: false,
  result: null,
  failure: null,
};

function snapshotAt(value: string | Record<string, string>, context: Partial<MappingWizardContext> = {}): MappingWizardSnapshot {
  return paymentsImportMachine.resolveState({ value, context: { ...baseContext, ...context } });
}

describe('mapping wizard selectors (payments import)', () => {
  it('shows the upload step while uploading and the mapping step while the mapping is sent', () => {
    expect(selectStep(snapshotAt('not_started'))).toBe('upload');
    expect(selectStep(snapshotAt('uploading'))).toBe('upload');
    expect(selectStep(snapshotAt('preview'))).toBe('map');
    expect(selectStep(snapshotAt({ finalizing: 'submitting' }))).toBe('map');
    expect(selectStep(snapshotAt({ finalizing: 'waiting' }))).toBe('import');
    expect(selectStep(snapshotAt({ finalizing: 'polling' }))).toBe('import');
    expect(selectStep(snapshotAt({ finalized: 'withErrors' }))).toBe('done');
  });

  it('reads the mapping per column and the required fields left', () => {
    const snapshot = snapshotAt('preview', { mapping: emptyMapping(paymentsImport) });
    expect(selectColumnRole(snapshotAt('preview'), paymentsImport, 6)).toBe('monthly_amount');
    expect(selectColumnRole(snapshotAt('preview'), paymentsImport, 4)).toBeNull();
    expect(selectUnmappedRequiredRoles(snapshot, paymentsImport)).toEqual(['started_at', 'customer_id']);
  });

  it('counts the rows to import without a skipped header', () => {
    expect(selectRowsToImport(snapshotAt('preview'))).toBe(2);
    expect(selectRowsToImport(snapshotAt('preview', { skipHeaders: false }))).toBe(3);
  });

  it('tells a failed status check only while the import runs', () => {
    expect(selectStatusCheckMessage(snapshotAt({ finalizing: 'waiting' }, { statusCheckFailed: true }))).toBe(STATUS_CHECK_FAILURE_MESSAGE);
    expect(selectStatusCheckMessage(snapshotAt({ finalizing: 'waiting' }))).toBeNull();
    expect(selectProgress(snapshotAt({ finalizing: 'waiting' }, { progress: 140 }))).toBe(100);
  });

  it('gives each step its own failures', () => {
    const snapshot = snapshotAt('preview', { failure: { kind: 'mapping', messages: ['m'] } });
    expect(selectFailureMessages(snapshot, ['mapping', 'finalize'])).toEqual(['m']);
    expect(selectFailureMessages(snapshot, ['upload'])).toEqual([]);
  });

  it("says 'all N records imported' only when nothing was refused", () => {
    const result = { successCount: 2, failureCount: 0, failures: [] };
    const succeeded = snapshotAt({ finalized: 'succeeded' }, { result });
    expect(selectOutcome(succeeded)).toBe('succeeded');
    expect(selectSuccessMessage(succeeded, paymentsImport)).toBe('all 2 records imported');

    const withErrors = snapshotAt(
      { finalized: 'withErrors' },
      { result: { successCount: 1, failureCount: 1, failures: [...modelStatuses.withErrors.failures] } },
    );
    expect(selectOutcome(withErrors)).toBe('withErrors');
    expect(selectSuccessMessage(withErrors, paymentsImport)).toBeNull();
    expect(selectCounts(withErrors)).toEqual({ successCount: 1, failureCount: 1 });
    expect(selectOutcome(snapshotAt('preview'))).toBeNull();
  });
});
