import { describe, expect, it } from 'vitest';
import { STATUS_CHECK_FAILURE_MESSAGE } from '../../../machines/mappingWizard/messages';
import { segmentsImport, segmentsImportMachine } from '../../../machines/mappingWizard/segmentsImport';
import type { MappingWizardSnapshot } from '../../../machines/mappingWizard/mappingWizardMachine';
import {
  selectColumnRole,
  selectCounts,
  selectFailureMessages,
  selectFailureRows,
  selectImportId,
  selectIsLive,
  selectOutcome,
  selectProgress,
  selectRowsToImport,
  selectStatusCheckMessage,
  selectStep,
  selectSuccessMessage,
  selectUnmappedRequiredRoles,
} from '../../../machines/mappingWizard/selectors';
import type { MappingWizardContext } from '../../../machines/mappingWizard/types';
import { modelPreview, modelStatuses } from './segmentsImportModel';

const baseContext: MappingWizardContext = {
  maxPolls: 1_000,
  file: null,
  importId: 'simp_model',
  preview: modelPreview,
  mapping: { customerId: 0, value: null },
  skipHeaders: true,
  polls: 0,
  progress: 0,
  statusCheckFailed: false,
  live: false,
  result: null,
  failure: null,
};

function snapshotAt(value: string | Record<string, string>, context: Partial<MappingWizardContext> = {}): MappingWizardSnapshot {
  return segmentsImportMachine.resolveState({ value, context: { ...baseContext, ...context } });
}

describe('segments import selectors', () => {
  it('shows the upload step while uploading and the mapping step while the mapping is sent', () => {
    expect(selectStep(snapshotAt('not_started'))).toBe('upload');
    expect(selectStep(snapshotAt('uploading'))).toBe('upload');
    expect(selectStep(snapshotAt('preview'))).toBe('map');
    expect(selectStep(snapshotAt({ finalizing: 'submitting' }))).toBe('map');
    expect(selectStep(snapshotAt({ finalizing: 'waiting' }))).toBe('import');
    expect(selectStep(snapshotAt({ finalizing: 'polling' }))).toBe('import');
    expect(selectStep(snapshotAt({ finalized: 'withErrors' }))).toBe('done');
  });

  it('reads the import id, each column role and the roles left', () => {
    const snapshot = snapshotAt('preview');
    expect(selectImportId(snapshot)).toBe('simp_model');
    expect([0, 1, 2].map((column) => selectColumnRole(snapshot, segmentsImport, column))).toEqual(['customerId', null, null]);
    expect(selectUnmappedRequiredRoles(snapshot, segmentsImport)).toEqual(['value']);
    expect(selectUnmappedRequiredRoles(snapshotAt('preview', { mapping: { customerId: null, value: null } }), segmentsImport)).toEqual(['customerId', 'value']);
    expect(selectUnmappedRequiredRoles(snapshotAt('preview', { mapping: { customerId: 1, value: 2 } }), segmentsImport)).toEqual([]);
  });

  it('counts the rows to import, less a skipped header', () => {
    expect(selectRowsToImport(snapshotAt('preview'))).toBe(2);
    expect(selectRowsToImport(snapshotAt('preview', { skipHeaders: false }))).toBe(3);
    expect(selectRowsToImport(snapshotAt('not_started', { preview: null }))).toBe(0);
  });

  it('bounds the progress to 0..100', () => {
    expect(selectProgress(snapshotAt({ finalizing: 'waiting' }, { progress: 140 }))).toBe(100);
    expect(selectProgress(snapshotAt({ finalizing: 'waiting' }, { progress: -3 }))).toBe(0);
  });

  it('says a status check failed only while finalizing', () => {
    expect(selectStatusCheckMessage(snapshotAt({ finalizing: 'waiting' }, { statusCheckFailed: true }))).toBe(STATUS_CHECK_FAILURE_MESSAGE);
    expect(selectStatusCheckMessage(snapshotAt({ finalizing: 'waiting' }))).toBeNull();
    expect(selectStatusCheckMessage(snapshotAt({ finalized: 'failed' }, { statusCheckFailed: true }))).toBeNull();
  });

  it('says the import is followed live only while finalizing with the channel subscribed', () => {
    expect(selectIsLive(snapshotAt({ finalizing: 'waiting' }, { live: true }))).toBe(true);
    expect(selectIsLive(snapshotAt({ finalizing: 'polling' }, { live: false }))).toBe(false);
    expect(selectIsLive(snapshotAt({ finalized: 'succeeded' }, { live: true }))).toBe(false);
  });

  it('gives the failure lines of the kinds asked for', () => {
    const snapshot = snapshotAt('preview', { failure: { kind: 'mapping', messages: ['No'] } });
    expect(selectFailureMessages(snapshot, ['mapping', 'finalize'])).toEqual(['No']);
    expect(selectFailureMessages(snapshot, ['upload'])).toEqual([]);
  });

  it('reads the outcome, its message, counts and refused rows', () => {
    const result = { successCount: 2, failureCount: 0, failures: [] };
    const succeeded = snapshotAt({ finalized: 'succeeded' }, { result });
    expect(selectOutcome(succeeded)).toBe('succeeded');
    expect(selectSuccessMessage(succeeded, segmentsImport)).toBe('all 2 values imported');
    expect(selectSuccessMessage(snapshotAt({ finalized: 'succeeded' }, { result: { ...result, successCount: 1 } }), segmentsImport)).toBe('all 1 value imported');

    const withErrors = snapshotAt({ finalized: 'withErrors' }, { result: { ...modelStatuses.withErrors, failures: [...modelStatuses.withErrors.failures] } });
    expect(selectOutcome(withErrors)).toBe('withErrors');
    expect(selectSuccessMessage(withErrors, segmentsImport)).toBeNull();
    expect(selectCounts(withErrors)).toEqual({ successCount: 1, failureCount: 1 });
    expect(selectFailureRows(withErrors)).toEqual(modelStatuses.withErrors.failures);

    expect(selectOutcome(snapshotAt({ finalized: 'failed' }))).toBe('failed');
    expect(selectOutcome(snapshotAt('preview'))).toBeNull();
    expect(selectCounts(snapshotAt('preview'))).toBeNull();
    expect(selectFailureRows(snapshotAt('preview'))).toEqual([]);
  });
});
