import type { ApiClient } from '../../api/client';
import { apiKey } from '../../api/queries';
import type { LiveChannels } from '../../cable/liveChannels';
import { FILTER_APPLY_FAILURE, filterQuery, type FilterItem } from '../../../models/reportFilter';
import { takePrefetchedReport } from '../reportPrefetch';

/** A report as `GET /business_reports/by_secret` answers it (the generated client's type). */
export type ReportView = NonNullable<Awaited<ReturnType<typeof fetchReportCall>>['data']>;
export type ReportSection = ReportView['sections'][number];
export type ReportSettings = ReportView['settings'];
export type ReportPeriod = ReportView['period'];

function fetchReportCall(client: ApiClient, secret: string, currency?: string, signal?: AbortSignal) {
  return client.GET('/business_reports/by_secret', { params: { query: { secret, ...(currency ? { currency } : {}) } }, signal });
}

/** Who is looking: the account's users (or anyone, when the account allows it), a visitor with a share link, or a demo visitor. */
export type ReportVariant = 'normal' | 'shared' | 'demo';

/** The cache key of a report page's report: by its secret (in `currency`, when the link asks for one), a share link's by its secret, or the demo's by its token. */
export function reportKey(secret: string, variant: ReportVariant = 'normal', currency: string | null = null) {
  if (variant === 'demo') return apiKey('/demo', { token: secret });
  const path = variant === 'shared' ? '/business_reports/by_shared_secret' : '/business_reports/by_secret';
  return currency ? apiKey(path, { secret, currency }) : apiKey(path, { secret });
}

/** The segment value a share link shows, and nothing else (null: the whole report). */
export interface SharedFilter {
  segmenter_id: string;
  segmenter_name: string | null;
  segment_value: string;
}

/** A report read by its share link: `secret` is the link's, and a pinned link's sections are filtered. */
export type SharedReportView = ReportView & { shared_filter?: SharedFilter | null };

/** The report's own answers that its page reads beside it (read again with the report). */
export const dataExistenceKey = apiKey('/data_existence');
export const currenciesKey = apiKey('/currencies');

/** The spec's message when a report cannot be read; a missing one says so instead. */
export const REPORT_FETCH_FAILURE = 'Uh :( we failed to fetch report';
export const REPORT_NOT_FOUND = 'Report not found';

/** The live channel of a report (server/cable/businessReportChannel.ts). */
export const BUSINESS_REPORT_CHANNEL = 'BusinessReportChannel';

export type ReportUpdate =
  | { object: 'business_report'; id: string; recalculation_status: ReportView['recalculation_status']; freshness_status: ReportView['freshness_status']; refreshed_at: string | null }
  | { object: 'business_report_section'; report_id: string; section: ReportSection; partial?: false }
  | { object: 'business_report_section'; report_id: string; section: { id: string; recalculation_status: ReportSection['recalculation_status'] }; partial: true };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** A message of BusinessReportChannel about this report; null for anything else. */
export function toReportUpdate(message: unknown, reportId: string): ReportUpdate | null {
  if (!isRecord(message)) return null;
  if (message.object === 'business_report' && message.id === reportId && typeof message.recalculation_status === 'string') return message as unknown as ReportUpdate;
  if (message.object === 'business_report_section' && message.report_id === reportId && isRecord(message.section) && typeof message.section.id === 'string') {
    return message as unknown as ReportUpdate;
  }
  return null;
}

/** A failed call, with the status the server answered (0: no answer). */
export class ReportCallError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ReportCallError';
  }
}

/** The report page's calls (a test passes its own client over a fake transport, or the real server). */
export function createReportServices(client: ApiClient, channels: LiveChannels) {
  return {
    /** The report by its secret; in `currency` (converted for this answer, nothing saved) when given. */
    async fetchReport(secret: string, signal?: AbortSignal, currency?: string | null): Promise<ReportView> {
      // The answer the app asked for as it started on this report's page, if it did, else now.
      const early = currency ? null : takePrefetchedReport(secret)?.catch(() => fetchReportCall(client, secret, undefined, signal));
      const { data, response } = await (early ?? fetchReportCall(client, secret, currency ?? undefined, signal));
      if (!data) throw new ReportCallError(REPORT_FETCH_FAILURE, response.status);
      return data;
    },
    /** A report by its share link (public, read only), in `currency` when given. */
    async fetchSharedReport(secret: string, currency: string | null, signal?: AbortSignal): Promise<SharedReportView> {
      const { data, response } = await client.GET('/business_reports/by_shared_secret', { params: { query: { secret, ...(currency ? { currency } : {}) } }, signal });
      if (!data) throw new ReportCallError(REPORT_FETCH_FAILURE, response.status);
      return data as SharedReportView;
    },
    /** A report of the demo account (`GET /demo`), for anyone. */
    async fetchDemoReport(token: string, signal?: AbortSignal): Promise<ReportView> {
      const { data, response } = await client.GET('/demo', { params: { query: { token } }, signal });
      if (!data) throw new ReportCallError(REPORT_FETCH_FAILURE, response.status);
      return data;
    },
    async refresh(reportId: string): Promise<void> {
      const { response } = await client.POST('/business_reports/{id}/refresh', { params: { path: { id: reportId } } });
      if (!response.ok) throw new ReportCallError('Something went wrong and we could not refresh the report', response.status);
    },
    async updateReport(reportId: string, body: { title?: string; summary?: string; tags?: string[]; period?: ReportPeriod }, failure: string): Promise<void> {
      const { response, error } = await client.PUT('/business_reports/{id}', { params: { path: { id: reportId } }, body });
      if (!response.ok) {
        const detail = (error as { errors?: { detail?: string }[] } | undefined)?.errors?.[0]?.detail;
        throw new ReportCallError(response.status === 422 && detail ? detail : failure, response.status);
      }
    },
    async updateSettings(reportId: string, body: Partial<ReportSettings>, failure: string): Promise<ReportSettings> {
      const { data, response } = await client.PUT('/business_reports/{id}/settings', { params: { path: { id: reportId } }, body });
      if (!data) throw new ReportCallError(failure, response.status);
      return data;
    },
    /** GET /business_reports/by_secret_filtered: the report's sections computed with one filter item (in `currency`, else the report's). */
    async fetchFiltered(secret: string, item: FilterItem, currency: string | null, signal?: AbortSignal): Promise<ReportSection[]> {
      const { data, response } = await client.GET('/business_reports/by_secret_filtered', {
        params: { query: { secret, ...(currency ? { currency } : {}), ...filterQuery(item) } },
        signal,
      });
      if (!data) throw new ReportCallError(FILTER_APPLY_FAILURE, response.status);
      return data.sections as ReportSection[];
    },
    async hasFinanceData(signal?: AbortSignal): Promise<boolean> {
      const { data } = await client.GET('/data_existence', { signal });
      // Unknown: no prompt (better than a wrong one).
      return data?.finance ?? true;
    },
    async currencies(signal?: AbortSignal): Promise<string[]> {
      const { data } = await client.GET('/currencies', { signal });
      return data?.items.map((item) => item.iso) ?? [];
    },
    watch(secret: string, reportId: string, handlers: { update(update: ReportUpdate): void; connected(): void; lost(): void }): () => void {
      return channels.subscribe(
        { channel: BUSINESS_REPORT_CHANNEL, secret },
        {
          connected: () => handlers.connected(),
          lost: () => handlers.lost(),
          received: (message) => {
            const update = toReportUpdate(message, reportId);
            if (update) handlers.update(update);
          },
        },
      );
    },
  };
}

export type ReportServices = ReturnType<typeof createReportServices>;
