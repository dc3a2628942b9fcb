import type { SubscriptionCsvField } from '../../models/constants';
import type { MappingWizardServices } from '../../machines/mappingWizard/mappingWizardActors';
import { IMPORT_FAILURE_MESSAGE, UPLOAD_FAILURE_MESSAGE } from '../../machines/mappingWizard/messages';
import { SUBSCRIPTION_CSV_FIELDS } from '../../machines/mappingWizard/paymentsImport';
import type { ApiClient } from '../api/client';
import { refusal, toImportPreview, toImportStatus, uploadForm } from './wizard/wizardApi';

/**
 * The payments import's calls over the API client (its middleware adds the Authorization
 * header): POST /subscriptions/csv_import with the file alone (the preview), POST
 * /subscriptions/csv_import/{id}/finalize with `skip_headers` and a column index per field,
 * GET /subscriptions/csv_import/{id}. No live channel: the import is polled.
 */
export function createPaymentsImportServices(client: ApiClient): MappingWizardServices {
  return {
    async upload(file, signal) {
      const form = uploadForm(file);
      const { data, error, response } = await client.POST('/subscriptions/csv_import', {
        // The contract types this multipart body as `never`: the FormData goes out as is, and
        // fetch sets its Content-Type with the boundary.
        body: form as never,
        bodySerializer: () => form,
        signal,
      });
      if (!data) throw refusal('upload', response, error, UPLOAD_FAILURE_MESSAGE);
      return toImportPreview(data.import_id || data.id, data);
    },

    async finalize({ importId, mapping, skipHeaders }, signal) {
      const columns = Object.fromEntries(SUBSCRIPTION_CSV_FIELDS.map((field) => [field, mapping[field] ?? null])) as Record<SubscriptionCsvField, number | null>;
      const { data, error, response } = await client.POST('/subscriptions/csv_import/{id}/finalize', {
        params: { path: { id: importId } },
        body: { skip_headers: skipHeaders, ...columns },
        signal,
      });
      if (!data) throw refusal('finalize', response, error, IMPORT_FAILURE_MESSAGE);
      return toImportStatus(data);
    },

    async fetchStatus(importId, signal) {
      const { data, error, response } = await client.GET('/subscriptions/csv_import/{id}', {
        params: { path: { id: importId } },
        signal,
      });
      if (!data) throw refusal('import', response, error, IMPORT_FAILURE_MESSAGE);
      return toImportStatus(data);
    },
  };
}
