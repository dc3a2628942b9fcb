import type { ColumnRecalculationServices } from '../../machines/columnRecalculation/columnRecalculationActors';
import type { ColumnDefinition, ColumnStatusUpdate } from '../../machines/columnRecalculation/types';
import type { ColumnDefinitionInput, ColumnVariableInput } from '../../models/customerColumns';
import { CUSTOMER_SEARCH_MAX_LIMIT } from '../../models/constants';
import type { ApiClient } from '../api/client';
import { apiErrorMessages } from '../api/errors';
import { ApiCallError, apiKey } from '../api/queries';
import type { ChannelHandlers, LiveChannels } from '../cable/liveChannels';

/**
 * The customers page's calls: the table (GET /customers), the search (GET /customer/search),
 * the user's columns (GET/PUT /users/me `customer_columns`), the calculated columns
 * (/customer_related_metric_definitions) and CustomerColumnsChannel.
 */

/** One row of the table and of the search's answer. */
export interface CustomerRow {
  id: string;
  name: string;
  public_id: string | null;
  parent_id: string | null;
  children_count: number;
  include_in_calculations_by_default: boolean;
  added_at: string;
  segments: { segment: { id: string; name: string; time_sensitive: boolean }; value: string | null }[];
  /** Minor units of `currency`: built-in metrics by kind, calculated columns by definition id (null: no value). */
  metrics: ({ kind: 'mrr' | 'total'; value: number } | { definition_id: string; value: number | null })[];
  currency: string;
}

/** One page of GET /customers. */
export interface CustomersPageAnswer {
  items: CustomerRow[];
  total_count: number;
  /** 1-based positions of the first and last row (0, 0 when empty). */
  current_range: { from: number; to: number };
  next: string | null;
  prev: string | null;
}

export type ColumnSource = 'static' | 'definition' | 'customer_segment';
export type ColumnDataType = 'string' | 'date' | 'money' | 'number';

/** One of the user's columns, in the user's order (GET/PUT /users/me `customer_columns`). */
export interface CustomerColumn {
  id: string;
  name: string;
  source: ColumnSource;
  visible: boolean;
  sortable: boolean;
  data_type: ColumnDataType;
  /** A calculated column's definition. */
  definition?: ColumnDefinition;
}

/** What PUT /users/me stores of a column. */
export interface ColumnSetting {
  id: string;
  visible: boolean;
}

export type SortDirection = 'asc' | 'desc';
export interface CustomersSort {
  columnId: string;
  direction: SortDirection;
}
export const DEFAULT_CUSTOMERS_SORT: CustomersSort = { columnId: 'name', direction: 'asc' };

/** Which page: the first, or the one a cursor of the previous answer points at. */
export type PageCursor = { next: string } | { prev: string } | null;

export const CUSTOMER_COLUMNS_CHANNEL = 'CustomerColumnsChannel';

/** `name:asc` (GET /customers `sort_by`). */
export function sortByParam(sort: CustomersSort): string {
  return `${sort.columnId}:${sort.direction}`;
}

export const customersPageKey = (sort: CustomersSort, cursor: PageCursor) => apiKey('/customers', { sort_by: sortByParam(sort), ...(cursor ?? {}) });
export const customerSearchKey = (query: string) => apiKey('/customer/search', { query, limit: CUSTOMER_SEARCH_MAX_LIMIT });
/** The user's columns come with the user (the same cache entry as Settings' API card). */
export const currentUserKey = apiKey('/users/me');
export const columnDefinitionsKey = apiKey('/customer_related_metric_definitions');

/** The answer of GET/PUT /users/me, as far as this page reads it. */
export interface CurrentUserAnswer {
  user: { customer_columns: CustomerColumn[] } & Record<string, unknown>;
}

function variableBody(variable: ColumnVariableInput) {
  return {
    fetcher: variable.fetcher ?? 'Mrr',
    name: variable.name,
    start_month: variable.start_month ?? 0,
    start_year: variable.start_year ?? 0,
    end_month: variable.end_month ?? 0,
    end_year: variable.end_year ?? 0,
  };
}

function definitionBody(input: ColumnDefinitionInput) {
  return { name: input.name, formula: input.formula, variables: input.variables.map(variableBody) };
}

/** A CustomerColumnsChannel message, or null for anything else. */
export function toColumnStatusUpdate(message: unknown): ColumnStatusUpdate | null {
  if (typeof message !== 'object' || message === null) return null;
  const { object, id, recalculation_status: status } = message as Record<string, unknown>;
  if (object !== 'customer_related_metric_definition' || typeof id !== 'string') return null;
  return status === 'in_progress' || status === 'finished' ? { id, recalculation_status: status } : null;
}

export function createCustomerListServices(client: ApiClient) {
  return {
    async page(sort: CustomersSort, cursor: PageCursor, signal?: AbortSignal): Promise<CustomersPageAnswer> {
      const { data, response } = await client.GET('/customers', { params: { query: { sort_by: sortByParam(sort), ...(cursor ?? {}) } }, signal });
      if (!data) throw new ApiCallError('GET /customers failed', response.status);
      return data;
    },
    async search(query: string, signal?: AbortSignal): Promise<CustomerRow[]> {
      const { data, response } = await client.GET('/customer/search', { params: { query: { query, limit: CUSTOMER_SEARCH_MAX_LIMIT } }, signal });
      if (!data) throw new ApiCallError('GET /customer/search failed', response.status);
      return data.items;
    },
    async currentUser(signal?: AbortSignal): Promise<CurrentUserAnswer> {
      const { data, response } = await client.GET('/users/me', { signal });
      if (!data) throw new ApiCallError('GET /users/me failed', response.status);
      return data;
    },
    async saveColumns(columns: readonly ColumnSetting[]): Promise<CurrentUserAnswer> {
      const { data, response } = await client.PUT('/users/me', { body: { customer_columns: columns.map(({ id, visible }) => ({ id, visible })) } });
      if (!data) throw new ApiCallError('PUT /users/me failed', response.status);
      return data;
    },
  };
}

export type CustomerListServices = ReturnType<typeof createCustomerListServices>;

/** The column machine's calls over the API client (machines/columnRecalculation). */
export function createColumnServices(client: ApiClient): ColumnRecalculationServices {
  return {
    async save(id, input, signal) {
      const body = definitionBody(input);
      const { data, error, response } = id
        ? await client.PUT('/customer_related_metric_definitions/{id}', { params: { path: { id } }, body, signal })
        : await client.POST('/customer_related_metric_definitions', { body, signal });
      if (data) return data;
      if (response.status === 400 || response.status === 422) return Promise.reject({ kind: 'invalid', messages: apiErrorMessages(error) });
      return Promise.reject({ kind: 'failed' });
    },
    async fetchDefinitions(signal) {
      const { data, response } = await client.GET('/customer_related_metric_definitions', { signal });
      if (!data) throw new ApiCallError('GET /customer_related_metric_definitions failed', response.status);
      return data.items;
    },
    async remove(id, signal) {
      const { response } = await client.DELETE('/customer_related_metric_definitions/{id}', { params: { path: { id } }, signal });
      if (!response.ok) throw new ApiCallError('DELETE /customer_related_metric_definitions failed', response.status);
    },
  };
}

/** Subscribes to CustomerColumnsChannel; `update` hears each column's recalculation start and end. */
export function watchCustomerColumns(channels: LiveChannels, update: (update: ColumnStatusUpdate) => void, handlers: Pick<ChannelHandlers, 'connected'> = {}): () => void {
  return channels.subscribe(
    { channel: CUSTOMER_COLUMNS_CHANNEL },
    {
      ...handlers,
      received: (message) => {
        const parsed = toColumnStatusUpdate(message);
        if (parsed) update(parsed);
      },
    },
  );
}
