import { importWizardFailure } from '../../machines/importWizard/importWizardActors';
import type { ImportWizardServices } from '../../machines/importWizard/importWizardActors';
import { IMPORT_FAILURE_MESSAGE, UPLOAD_FAILURE_MESSAGE } from '../../machines/importWizard/messages';
import type { ImportPreview, ImportStatus, ImportWizardFailureKind } from '../../machines/importWizard/types';
import type { ApiClient } from '../api/client';
import { apiErrorMessages } from '../api/errors';

/** The multipart field the import page sends its file in. */
export const IMPORT_FILE_FIELD = 'csv';

/** The import as GET /subscriptions/csv_import/{id} and the finalize call answer it. */
interface ImportView {
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
 * (a file too large, not a .csv, a mapping refused), else the step's generic message.
 */
function refusal(kind: ImportWizardFailureKind, response: Response, body: unknown, fallback: string) {
  const messages = response.status >= 400 && response.status < 500 ? apiErrorMessages(body, fallback) : [fallback];
  return importWizardFailure(kind, messages);
}

/** The import wizard's calls over the API client (its middleware adds the Authorization header). */
export function createImportWizardServices(client: ApiClient): ImportWizardServices {
  return {
    async upload(file, signal): Promise<ImportPreview> {
      const form = new FormData();
      form.append(IMPORT_FILE_FIELD, file, file.name);
      const { data, error, response } = await client.POST('/subscriptions/csv_import', {
        // The contract types this multipart body as `never`: the FormData goes out as is, and
        // fetch sets its Content-Type with the boundary.
        body: form as never,
        bodySerializer: () => form,
        signal,
      });
      if (!data) throw refusal('upload', response, error, UPLOAD_FAILURE_MESSAGE);
      const widest = Math.max(0, ...data.preview_rows.map((row) => row.length));
      return {
        importId: data.import_id || data.id,
        totalRows: data.total_rows,
        rows: data.preview_rows,
        columns: Math.max(data.columns, widest),
        delimiter: data.delimiter,
        encoding: data.encoding,
      };
    },

    async finalize({ importId, mapping, skipHeaders }, signal): Promise<ImportStatus> {
      const { data, error, response } = await client.POST('/subscriptions/csv_import/{id}/finalize', {
        params: { path: { id: importId } },
        body: { skip_headers: skipHeaders, ...mapping },
        signal,
      });
      if (!data) throw refusal('finalize', response, error, IMPORT_FAILURE_MESSAGE);
      return toImportStatus(data);
    },

    async fetchStatus(importId, signal): Promise<ImportStatus> {
      const { data, error, response } = await client.GET('/subscriptions/csv_import/{id}', {
        params: { path: { id: importId } },
        signal,
      });
      if (!data) throw refusal('import', response, error, IMPORT_FAILURE_MESSAGE);
      return toImportStatus(data);
    },
  };
}
