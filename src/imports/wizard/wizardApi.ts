import { mappingWizardFailure } from '../../../machines/mappingWizard/mappingWizardActors';
import type { ImportPreview, ImportStatus, MappingWizardFailure, MappingWizardFailureKind } from '../../../machines/mappingWizard/types';
import { apiErrorMessages } from '../../api/errors';

/** What the API adapters of the mapping imports share: the upload form, the answers read as the machine's. */

/** The multipart field the import pages send their file in (spec: 'multipart csv'). */
export const IMPORT_FILE_FIELD = 'csv';

/** The multipart body of an upload: the file alone. */
export function uploadForm(file: File): FormData {
  const form = new FormData();
  form.append(IMPORT_FILE_FIELD, file, file.name);
  return form;
}

/** An upload's answer (the first rows) as the machine's preview; the widest row counts as columns. */
export function toImportPreview(importId: string, answer: { total_rows: number; preview_rows: string[][]; columns: number; delimiter: string; encoding: string }): ImportPreview {
  const widest = Math.max(0, ...answer.preview_rows.map((row) => row.length));
  return {
    importId,
    totalRows: answer.total_rows,
    rows: answer.preview_rows,
    columns: Math.max(answer.columns, widest),
    delimiter: answer.delimiter,
    encoding: answer.encoding,
  };
}

/** An import as its GET and the finalize call answer it. */
export interface ImportView {
  progress: number;
  result: {
    status: string;
    success_count: number;
    failure_count: number;
    failures: { row_number: number; row: string; message: string }[];
    error?: string;
  };
}

export function toImportStatus(view: ImportView): ImportStatus {
  return {
    status: view.result.status,
    progress: view.progress,
    successCount: view.result.success_count,
    failureCount: view.result.failure_count,
    failures: view.result.failures.map((failure) => ({ rowNumber: failure.row_number, row: failure.row, message: failure.message })),
    error: view.result.error ?? null,
  };
}

/**
 * What a refused call rejects with: the server's reasons for a 4xx answer with an error body
 * (a file too large, not a .csv, the mapping rule), else the step's generic message.
 */
export function refusal(kind: MappingWizardFailureKind, response: Response, body: unknown, fallback: string): MappingWizardFailure {
  const messages = response.status >= 400 && response.status < 500 ? apiErrorMessages(body, fallback) : [fallback];
  return mappingWizardFailure(kind, messages);
}
