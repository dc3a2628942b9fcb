import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import type { SegmentationInput, SegmenterTypeInfo } from '../../../models/segmentation';
import { GraphqlCallError, segmentationKeys, useSegmentationService } from '../../api/graphql';
import { apiKey } from '../../api/queries';

/**
 * The Segmentation section's server state: the account's segmentations, the segmenter types and
 * a type's raw values (the definitions service over GraphQL), and the writes. A write changes
 * every list of segmenters the app holds, so each success invalidates them all.
 */

/**
 * The cached answers that list the account's segmenters: the definitions service itself, the
 * section definitions (Add chart's segment lists and the section segments dialog,
 * src/reports/page/sections/useSectionEditing.ts), the filter picker's segment values, which the
 * share dialog's segment choice reads too (src/reports/filters/filtersApi.ts), and the share
 * links that name their pinned segment (src/reports/sharing/sharingApi.ts).
 */
export const SEGMENTER_QUERY_KEYS = [
  segmentationKeys.all,
  apiKey('/business_report/section_definitions'),
  apiKey('/business_report_segment_values/by_secret'),
  apiKey('/business_reports/{id}/share_secrets'),
] as const;

/** Reads every list of segmenters again (the shown ones now, the others when next shown). */
export async function invalidateSegmenterQueries(queryClient: QueryClient): Promise<void> {
  await Promise.all(SEGMENTER_QUERY_KEYS.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
}

/** The account's segmentations, by name. */
export function useSegmentationDefinitions() {
  const service = useSegmentationService();
  return useQuery({ queryKey: segmentationKeys.definitions, queryFn: ({ signal }) => service.definitions(signal) });
}

/** The attributes a segmentation can group (one type per attribute and built-in). */
export function useSegmenterTypes() {
  const service = useSegmentationService();
  return useQuery({ queryKey: segmentationKeys.types, queryFn: ({ signal }) => service.types(signal) });
}

/** The raw values of a type that contain `query`; the previous answer stays while a new query loads. */
export function useSegmenterValues(type: Pick<SegmenterTypeInfo, 'name' | 'segment_id'>, query: string) {
  const service = useSegmentationService();
  return useQuery({
    queryKey: segmentationKeys.values(type.name, type.segment_id, query),
    queryFn: ({ signal }) => service.values(type.name, type.segment_id, query, signal),
    placeholderData: keepPreviousData,
  });
}

/** Creates (no id) or updates a segmentation. */
export function useSaveSegmentation() {
  const service = useSegmentationService();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id: string | null; input: SegmentationInput }) => (id === null ? service.create(input) : service.update(id, input)),
    onSuccess: () => invalidateSegmenterQueries(queryClient),
  });
}

/** Deletes a segmentation. */
export function useDeleteSegmentation() {
  const service = useSegmentationService();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => service.remove(id),
    onSuccess: () => invalidateSegmenterQueries(queryClient),
  });
}

/** One problem the server found, and the field it points at. */
export interface ServerProblem {
  pointer: string | null;
  detail: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** One error item of the service's answer ({detail, source: {pointer}} or {detail, pointer}). */
function problemOf(item: unknown): ServerProblem | null {
  if (!isRecord(item) || typeof item.detail !== 'string') return null;
  const source = isRecord(item.source) ? item.source : item;
  return { pointer: typeof source.pointer === 'string' ? source.pointer : null, detail: item.detail };
}

/**
 * The problems of a refused write (422): each error the call carries with its field, else the
 * first error's detail alone. [] for any other failure.
 */
export function serverProblems(error: unknown): ServerProblem[] {
  if (!(error instanceof GraphqlCallError) || error.status !== 422) return [];
  const problems = error.errors.map(problemOf).filter((problem): problem is ServerProblem => problem !== null);
  if (problems.length > 0) return problems;
  return error.detail ? [{ pointer: null, detail: error.detail }] : [];
}
