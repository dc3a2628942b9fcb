import type { ImportPreview, ImportStatus } from '../../../machines/mappingWizard/types';

/**
 * The attribute values import API's answers (server/routes/segmentImports.ts) for the
 * machine's model payloads, so the view suites make the model's done events happen through a
 * fake server.
 */

/** POST /segments_importer/draft: the preview. */
export function apiDraftAnswer(preview: ImportPreview) {
  return {
    import_id: preview.importId,
    preview_rows: preview.rows,
    total_rows: preview.totalRows,
    columns: preview.columns,
    delimiter: preview.delimiter,
    encoding: preview.encoding,
  };
}

/** GET /segments_importer/{id} (and the finalize answer) for a status. */
export function apiSegmentsImportView(importId: string, status: ImportStatus, segmentId: string | null = 'seg_plan') {
  const importStatus = status.status === 'done' || status.status === 'failed' ? status.status : 'in_progress';
  return {
    id: importId,
    status: importStatus,
    progress: status.progress,
    total_rows: 3,
    customer_segment_id: segmentId,
    result: {
      status: importStatus,
      success_count: status.successCount,
      failure_count: status.failureCount,
      failures: status.failures.map((failure) => ({ row_number: failure.rowNumber, row: failure.row, message: failure.message })),
      ...(status.error ? { error: status.error } : {}),
    },
    audit_log: [],
  };
}
