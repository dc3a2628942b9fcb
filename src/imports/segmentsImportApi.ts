import { segmentsImportFailure } from '../../machines/segmentsImport/segmentsImportActors';
import type { SegmentsImportServices } from '../../machines/segmentsImport/segmentsImportActors';
import { IMPORT_FAILURE_MESSAGE, UPLOAD_FAILURE_MESSAGE } from '../../machines/segmentsImport/messages';
import type {
  SegmentsImportFailureKind,
  SegmentsImportPreview,
  SegmentsImportStatus,
  SegmentsImportUpdate,
} from '../../machines/segmentsImport/types';
import type { ApiClient } from '../api/client';
import { apiErrorMessages } from '../api/errors';
import type { LiveChannels } from '../cable/liveChannels';

/** The multipart field the attribute values import sends its file in (spec: 'multipart csv'). */
export const SEGMENTS_IMPORT_FILE_FIELD = 'csv';

/** The import as GET /segments_importer/{id} and the finalize call answer it. */
interface SegmentsImportView {
  progress: number;
  result: {
    status: string;
    success_count: number;
    failure_count: number;
    failures: { row_number: number; row: string; message: string }[];
    error?: string;
  };
}

/** The live channel of an attribute values import (server/cable/segmentsImportChannel.ts). */
export const SEGMENTS_IMPORT_CHANNEL = 'SegmentsImportChannel';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/**
 * A message of SegmentsImportChannel as the machine's update: `{import_id, status, progress,
 * success_count, failure_count, error, …}` of this import; null for anything else.
 */
export function toSegmentsImportUpdate(message: unknown, importId: string): SegmentsImportUpdate | null {
  if (!isRecord(message) || message.import_id !== importId || typeof message.status !== 'string' || !isCount(message.progress)) return null;
  return {
    status: message.status,
    progress: message.progress,
    successCount: isCount(message.success_count) ? message.success_count : 0,
    failureCount: isCount(message.failure_count) ? message.failure_count : 0,
    error: typeof message.error === 'string' ? message.error : null,
  };
}

export function toSegmentsImportStatus(view: SegmentsImportView): SegmentsImportStatus {
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
 * (a file too large, not a .csv, the mapping rule, an unknown attribute), else the step's
 * generic message.
 */
function refusal(kind: SegmentsImportFailureKind, response: Response, body: unknown, fallback: string) {
  const messages = response.status >= 400 && response.status < 500 ? apiErrorMessages(body, fallback) : [fallback];
  return segmentsImportFailure(kind, messages);
}

/**
 * The attribute values import's calls over the API client (its middleware adds the
 * Authorization header), and its live channel over the app's live channels.
 */
export function createSegmentsImportServices(client: ApiClient, channels: LiveChannels): SegmentsImportServices {
  return {
    async upload(file, signal): Promise<SegmentsImportPreview> {
      const form = new FormData();
      form.append(SEGMENTS_IMPORT_FILE_FIELD, file, file.name);
      const { data, error, response } = await client.POST('/segments_importer/draft', {
        // The contract types this multipart body as `never`: the FormData goes out as is, and
        // fetch sets its Content-Type with the boundary.
        body: form as never,
        bodySerializer: () => form,
        signal,
      });
      if (!data) throw refusal('upload', response, error, UPLOAD_FAILURE_MESSAGE);
      const widest = Math.max(0, ...data.preview_rows.map((row) => row.length));
      return {
        importId: data.import_id,
        totalRows: data.total_rows,
        rows: data.preview_rows,
        columns: Math.max(data.columns, widest),
        delimiter: data.delimiter,
        encoding: data.encoding,
      };
    },

    async finalize({ importId, segmentId, customerColumn, valueColumn, skipHeaders }, signal): Promise<SegmentsImportStatus> {
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
      return toSegmentsImportStatus(data);
    },

    async fetchStatus(importId, signal): Promise<SegmentsImportStatus> {
      const { data, error, response } = await client.GET('/segments_importer/{id}', {
        params: { path: { id: importId } },
        signal,
      });
      if (!data) throw refusal('import', response, error, IMPORT_FAILURE_MESSAGE);
      return toSegmentsImportStatus(data);
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
