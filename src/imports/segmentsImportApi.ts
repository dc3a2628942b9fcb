import type { MappingWizardServices } from '../../machines/mappingWizard/mappingWizardActors';
import { IMPORT_FAILURE_MESSAGE, UPLOAD_FAILURE_MESSAGE } from '../../machines/mappingWizard/messages';
import type { ImportUpdate } from '../../machines/mappingWizard/types';
import type { ApiClient } from '../api/client';
import type { LiveChannels } from '../cable/liveChannels';
import { refusal, toImportPreview, toImportStatus, uploadForm } from './wizard/wizardApi';

/** The live channel of an attribute values import (server/cable/segmentsImportChannel.ts). */
export const SEGMENTS_IMPORT_CHANNEL = 'SegmentsImportChannel';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/**
 * A message of SegmentsImportChannel as the machine's update: `{import_id, status, progress,
 * success_count, failure_count, error, …}` of this import; null for anything else.
 */
export function toSegmentsImportUpdate(message: unknown, importId: string): ImportUpdate | null {
  if (!isRecord(message) || message.import_id !== importId || typeof message.status !== 'string' || !isCount(message.progress)) return null;
  return {
    status: message.status,
    progress: message.progress,
    successCount: isCount(message.success_count) ? message.success_count : 0,
    failureCount: isCount(message.failure_count) ? message.failure_count : 0,
    error: typeof message.error === 'string' ? message.error : null,
  };
}

/**
 * The attribute values import's calls over the API client (its middleware adds the
 * Authorization header) for the custom attribute (customer segment) `segmentId`:
 * POST /segments_importer/draft, POST /segments_importer/finalize with the Customer ID and value
 * columns, GET /segments_importer/{id}; and its live channel over the app's live channels.
 */
export function createSegmentsImportServices(client: ApiClient, channels: LiveChannels, segmentId: string): MappingWizardServices {
  return {
    async upload(file, signal) {
      const form = uploadForm(file);
      const { data, error, response } = await client.POST('/segments_importer/draft', {
        // The contract types this multipart body as `never`: the FormData goes out as is, and
        // fetch sets its Content-Type with the boundary.
        body: form as never,
        bodySerializer: () => form,
        signal,
      });
      if (!data) throw refusal('upload', response, error, UPLOAD_FAILURE_MESSAGE);
      return toImportPreview(data.import_id, data);
    },

    async finalize({ importId, mapping, skipHeaders }, signal) {
      const customerColumn = mapping.customerId;
      const valueColumn = mapping.value;
      if (customerColumn === null || customerColumn === undefined || valueColumn === null || valueColumn === undefined) {
        throw new Error('finalizing an incomplete mapping');
      }
      const { data, error, response } = await client.POST('/segments_importer/finalize', {
        body: {
          import_id: importId,
          public_id_column_index: customerColumn,
          segment_column_index: valueColumn,
          skip_headers: skipHeaders,
          customer_segment_id: segmentId,
        },
        signal,
      });
      if (!data) throw refusal('finalize', response, error, IMPORT_FAILURE_MESSAGE);
      return toImportStatus(data);
    },

    async fetchStatus(importId, signal) {
      const { data, error, response } = await client.GET('/segments_importer/{id}', {
        params: { path: { id: importId } },
        signal,
      });
      if (!data) throw refusal('import', response, error, IMPORT_FAILURE_MESSAGE);
      return toImportStatus(data);
    },

    watch(importId, handlers) {
      return channels.subscribe(
        { channel: SEGMENTS_IMPORT_CHANNEL, id: importId },
        {
          connected: () => handlers.connected(),
          lost: () => handlers.lost(),
          received: (message) => {
            const update = toSegmentsImportUpdate(message, importId);
            if (update) handlers.update(update);
          },
        },
      );
    },
  };
}
