import type { SectionExportServices } from '../../../machines/sectionExport/sectionExportActors';
import type { SectionExportQuery, SectionExportUpdate } from '../../../machines/sectionExport/types';
import type { ApiClient } from '../../api/client';
import type { LiveChannels } from '../../cable/liveChannels';

/** The live channel of a details export (server/cable/sectionDetailsExportChannel.ts). */
export const SECTION_DETAILS_EXPORT_CHANNEL = 'SectionDetailsExportChannel';

/** While an export runs, its status is also read this often: the channel is a speed-up (docs/cable.md). */
export const EXPORT_STATUS_POLL_MS = 15_000;

export type DataExportFormat = 'csv' | 'xlsx';

/** The query of GET /business_report/sections/{id}/export_data. */
export interface DataExportQuery {
  segment_id?: string;
  segment_value?: string;
  variant?: 'money' | 'customer_count' | 'units_sold';
  format?: DataExportFormat;
}

export class SectionExportCallError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'SectionExportCallError';
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** A SectionDetailsExportChannel message about this export; null for anything else. */
export function toExportUpdate(message: unknown, exportId: string): SectionExportUpdate | null {
  if (!isRecord(message) || message.id !== exportId) return null;
  if (message.status !== 'in_progress' && message.status !== 'done' && message.status !== 'failed') return null;
  return {
    id: exportId,
    status: message.status,
    url: typeof message.url === 'string' ? message.url : null,
    file_name: typeof message.file_name === 'string' ? message.file_name : null,
  };
}

/** The file name of a `Content-Disposition: attachment; filename="…"` header. */
export function attachmentName(header: string | null, fallback: string): string {
  const match = header ? /filename="([^"]+)"/.exec(header) : null;
  return match?.[1] ?? fallback;
}

/** Hands a file to the browser's downloads (an object URL clicked, then revoked). */
export function saveFile(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The section exports' calls over the API client (which adds the user's token) and the app's live channels. */
export function createSectionExportServices(client: ApiClient, channels: LiveChannels) {
  const services = {
    async start(request, signal) {
      const { data, response } = await client.POST('/business_report/sections/{id}/export_details', {
        params: { path: { id: request.sectionId }, query: request.query },
        signal,
      });
      if (!data) throw new SectionExportCallError('We could not start your export, please try again later', response.status);
      return data;
    },
    watch(exportId, update) {
      const stop = channels.subscribe(
        { channel: SECTION_DETAILS_EXPORT_CHANNEL, id: exportId },
        {
          received: (message) => {
            const parsed = toExportUpdate(message, exportId);
            if (parsed) update(parsed);
          },
        },
      );
      // A missed message (a connection lost for good, a sign-out and in again) is read here.
      const poll = setInterval(() => {
        void client.GET('/section_exports/{id}', { params: { path: { id: exportId } } }).then(({ data }) => {
          const parsed = toExportUpdate(data, exportId);
          if (parsed) update(parsed);
        });
      }, EXPORT_STATUS_POLL_MS);
      return () => {
        clearInterval(poll);
        stop();
      };
    },
  } satisfies SectionExportServices;

  return {
    ...services,
    /** GET export_data as a file (the section's series as the chart shows them). */
    async downloadData(sectionId: string, query: DataExportQuery): Promise<{ blob: Blob; fileName: string }> {
      const { data, response } = await client.GET('/business_report/sections/{id}/export_data', {
        params: { path: { id: sectionId }, query },
        parseAs: 'blob',
      });
      if (!data || !response.ok) throw new SectionExportCallError('We could not export this section, please try again later', response.status);
      return { blob: data as Blob, fileName: attachmentName(response.headers.get('content-disposition'), `section.${query.format ?? 'csv'}`) };
    },
  };
}

export type SectionExportApi = ReturnType<typeof createSectionExportServices>;
export type { SectionExportQuery };
