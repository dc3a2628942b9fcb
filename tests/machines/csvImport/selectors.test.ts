import { describe, expect, it } from 'vitest';
import { csvImportMachine, initialCsvImportContext } from '../../../machines/csvImport/csvImportMachine';
import type { CsvImportSnapshot } from '../../../machines/csvImport/csvImportMachine';
import {
  selectBadge,
  selectCanUpload,
  selectFailure,
  selectFileError,
  selectPhase,
  selectProgress,
  selectResult,
  selectValidationFailures,
} from '../../../machines/csvImport/selectors';
import type { CsvImportContext } from '../../../machines/csvImport/types';
import { modelFailures, modelFiles, modelStatuses } from './csvImportModel';

function at(value: string | Record<string, string>, context: Partial<CsvImportContext> = {}): CsvImportSnapshot {
  return csvImportMachine.resolveState({ value, context: { ...initialCsvImportContext(), ...context } });
}

describe('csvImport selectors', () => {
  it('names the phase the dialog shows', () => {
    expect(selectPhase(at('checkingStored'))).toBe('checking');
    expect(selectPhase(at('notStarted'))).toBe('notStarted');
    expect(selectPhase(at('uploading', { file: modelFiles.csv }))).toBe('uploading');
    expect(selectPhase(at({ inProgress: 'waiting' }, { importId: 'imp_1' }))).toBe('inProgress');
    expect(selectPhase(at('completed'))).toBe('completed');
    expect(selectPhase(at('validationFailure'))).toBe('validationFailure');
    expect(selectPhase(at('error'))).toBe('error');
    expect(selectPhase(at('pollingLimitReached'))).toBe('pollingLimitReached');
  });

  it('refuses a chosen file that is not a .csv', () => {
    expect(selectFileError(at('notStarted'))).toBeNull();
    expect(selectFileError(at('notStarted', { file: modelFiles.csv }))).toBeNull();
    expect(selectFileError(at('notStarted', { file: modelFiles.other }))).toBe('Only .csv files can be imported');
    expect(selectCanUpload(at('notStarted', { file: modelFiles.other }))).toBe(false);
    expect(selectCanUpload(at('notStarted', { file: modelFiles.csv }))).toBe(true);
    expect(selectCanUpload(at('notStarted'))).toBe(false);
  });

  it('shows progress as a whole percent within 0..100', () => {
    expect(selectProgress(at({ inProgress: 'waiting' }, { progress: 41.6 }))).toBe(42);
    expect(selectProgress(at({ inProgress: 'waiting' }, { progress: 120 }))).toBe(100);
  });

  it('gives the result only once completed, and the refused rows only after a 400', () => {
    const result = modelStatuses.doneWithFailures.result;
    expect(selectResult(at('completed', { result }))).toEqual(result);
    expect(selectResult(at({ inProgress: 'waiting' }, { result }))).toBeNull();
    const rows = modelFailures.validation.validationFailures;
    expect(selectValidationFailures(at('validationFailure', { validationFailures: rows }))).toEqual(rows);
    expect(selectValidationFailures(at('notStarted', { validationFailures: rows }))).toEqual([]);
  });

  it('gives the failure message of each failed state, with the server’s reasons', () => {
    expect(selectFailure(at('notStarted'))).toBeNull();
    expect(selectFailure(at('error', { errorDetails: ['The file is larger than 200 MB'] }))).toEqual({
      message: 'We are sorry, something went wrong',
      details: ['The file is larger than 200 MB'],
    });
    expect(selectFailure(at('pollingLimitReached'))).toEqual({ message: 'Failed to get status of import, please get in touch', details: [] });
  });

  it('labels the Import CSV card', () => {
    expect(selectBadge(at('notStarted'))).toBeNull();
    expect(selectBadge(at({ inProgress: 'fetching' }, { progress: 40 }))).toEqual({ label: 'Import in progress (40%)', tone: 'running' });
    expect(selectBadge(at('completed'))).toEqual({ label: 'Import completed', tone: 'done' });
    expect(selectBadge(at('error'))?.tone).toBe('failed');
  });
});
