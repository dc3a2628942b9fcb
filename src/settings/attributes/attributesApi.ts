import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import { ATTRIBUTES_FETCH_FAILURE, sortAttributes } from '../../../models/attributes';
import type { AttributeObject, ObjectAttribute } from '../../../models/attributes';
import { useApi } from '../../api/ApiContext';
import { apiErrorItems } from '../../api/errors';
import type { ApiErrorItem } from '../../api/errors';
import { segmentationKeys } from '../../api/graphql';
import { ApiCallError, apiKey } from '../../api/queries';

/** GET /object_attributes. */
export const objectAttributesKey = apiKey('/object_attributes');

/** The account's custom attributes, customer first, then payment and cost, each by name. */
export function useObjectAttributes() {
  const client = useApi();
  return useQuery({
    queryKey: objectAttributesKey,
    meta: { failureToast: ATTRIBUTES_FETCH_FAILURE },
    queryFn: async ({ signal }): Promise<ObjectAttribute[]> => {
      const { data, response } = await client.GET('/object_attributes', { signal });
      if (!data) throw new ApiCallError('GET /object_attributes failed', response.status);
      return sortAttributes(data.items);
    },
  });
}

/** The answer to a change: done, or refused with the server's errors (none when there was no answer). */
export type ChangeOutcome<T> = { ok: true; value: T } | { ok: false; status: number; errors: ApiErrorItem[] };

/** API paths whose answers list attributes or what is built on them. */
const ATTRIBUTE_DEPENDENT_PATHS = ['/object_attributes', '/customer', '/segmenter_definitions', '/business_report/section_definitions', '/user_filtered_config'];

/**
 * Whether a cached answer depends on the account's attributes: the attribute list, customer
 * segments and customers (their attribute columns), segmenters and the section definitions that
 * offer them, the custom sections' fields. With `reports`, the reports too (a deleted attribute
 * leaves the sections segmented by it).
 */
export function isAttributeDependentKey(queryKey: readonly unknown[], reports = false): boolean {
  const path = queryKey[0];
  if (typeof path !== 'string') return false;
  if (path === segmentationKeys.all[0] && queryKey[1] === segmentationKeys.all[1]) return true;
  if (reports && path.startsWith('/business_report')) return true;
  return ATTRIBUTE_DEPENDENT_PATHS.some((prefix) => path.startsWith(prefix));
}

export function invalidateAfterAttributeChange(queryClient: QueryClient, reports = false): Promise<void> {
  return queryClient.invalidateQueries({ predicate: (query) => isAttributeDependentKey(query.queryKey, reports) });
}

/** POST, PUT and DELETE /object_attributes; each reads the dependent answers again when done. */
export function useAttributeChanges() {
  const client = useApi();
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: async (body: { name: string; object: AttributeObject }): Promise<ChangeOutcome<ObjectAttribute>> => {
      const { data, error, response } = await client.POST('/object_attributes', { body });
      return data ? { ok: true, value: data } : { ok: false, status: response.status, errors: apiErrorItems(error) };
    },
    onSuccess: (outcome) => {
      if (outcome.ok) void invalidateAfterAttributeChange(queryClient);
    },
  });
  const rename = useMutation({
    mutationFn: async ({ id, name }: { id: string; name: string }): Promise<ChangeOutcome<ObjectAttribute>> => {
      const { data, error, response } = await client.PUT('/object_attributes/{id}', { params: { path: { id } }, body: { name } });
      return data ? { ok: true, value: data } : { ok: false, status: response.status, errors: apiErrorItems(error) };
    },
    onSuccess: (outcome) => {
      if (outcome.ok) void invalidateAfterAttributeChange(queryClient);
    },
  });
  const remove = useMutation({
    mutationFn: async (id: string): Promise<ChangeOutcome<null>> => {
      const { error, response } = await client.DELETE('/object_attributes/{id}', { params: { path: { id } } });
      return response.ok ? { ok: true, value: null } : { ok: false, status: response.status, errors: apiErrorItems(error) };
    },
    onSuccess: (outcome) => {
      if (outcome.ok) void invalidateAfterAttributeChange(queryClient, true);
    },
  });
  return { create, rename, remove };
}
