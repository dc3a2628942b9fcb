import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { CUSTOMER_SEARCH_MAX_LIMIT, CUSTOMERS_PAGE_SIZE, SUGGESTIONS_LIMIT } from '../../models/constants';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import { createCustomer } from '../customers/changes';
import { orderOf, pageOf, snapshotKey, type CustomerIndex, type SortKey, type SortOrder } from '../customers/customerIndex';
import { decodeCursor, DEFAULT_SORT, encodeCursor, parseSort, type Sort } from '../customers/paging';
import { accountIndex, customerRows, CustomerRowSchema } from '../customers/rows';
import { CUSTOMER_ID_MAX, NAME_MAX, Text } from '../customers/schemas';
import { ApiError } from '../http/errors';

/**
 * The customers table (second spec document, 2 "Customers"; docs/customers.md):
 * `GET /customers` one keyset page of the customers that are not deleted in any column's
 * order, `GET /customer/search` the search box's suggestions, `POST /customers` a new customer
 * (a new parent). For the full users of the account.
 */

export const UNKNOWN_SORT = 'Unknown column to sort by';
export const BAD_CURSOR = 'This page link is not valid for this sort: start from the first page';
export const NEXT_AND_PREV = 'Ask for the next or the previous page, not both';
const CURSOR_MAX = 4_000;

interface ColumnsDecoration {
  refreshIfStale(accountId: string): Promise<unknown> | unknown;
}

export const customerListRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;
  const refreshed = new WeakSet<CustomerIndex>();

  /** The order of a column, or null for a column the account does not have. */
  async function orderFor(index: CustomerIndex, accountId: string, column: string): Promise<SortOrder | null> {
    const now = app.now();
    const month = now.getUTCFullYear() * 12 + now.getUTCMonth();
    if (column === 'public_id' || column === 'added_at') {
      const cached = index.orders.get(column);
      if (cached) return cached;
      const rows = await db.selectFrom('customers').select(['id', 'public_id', 'added_at']).where('account_id', '=', accountId).where('deleted_at', 'is', null).execute();
      const keys = new Map<number, SortKey>();
      for (const row of rows) {
        const c = index.snapshot.customers.index.get(row.id);
        if (c !== undefined) keys.set(c, column === 'public_id' ? row.public_id : row.added_at.getTime());
      }
      return orderOf(index, column, (c) => keys.get(c) ?? null);
    }
    if (column.startsWith('definition:')) {
      const id = column.slice('definition:'.length);
      const definition = await db.selectFrom('customer_column_definitions').select(['id', 'values_version']).where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
      if (!definition) return null;
      const name = `${column}@${definition.values_version}`;
      const cached = index.orders.get(name);
      if (cached) return cached;
      for (const key of index.orders.keys()) if (key.startsWith(`${column}@`)) index.orders.delete(key);
      const rows = await db.selectFrom('customer_column_values').select(['customer_id', 'value']).where('account_id', '=', accountId).where('definition_id', '=', id).execute();
      const keys = new Map<number, number>();
      for (const row of rows) {
        const c = index.snapshot.customers.index.get(row.customer_id);
        const value = row.value === null ? NaN : Number(row.value);
        if (c !== undefined && Number.isFinite(value)) keys.set(c, value);
      }
      return orderOf(index, name, (c) => keys.get(c) ?? null);
    }
    const key = snapshotKey(index, column, month);
    if (!key) return null;
    return orderOf(index, column.startsWith('customer_segment:') ? `${column}@${month}` : column, key);
  }

  function refreshColumns(accountId: string): void {
    if (!app.hasDecorator('customerColumns')) return;
    const columns = (app as unknown as { customerColumns?: ColumnsDecoration }).customerColumns;
    try {
      void Promise.resolve(columns?.refreshIfStale(accountId)).catch((error: unknown) => app.log.error(`customer columns of ${accountId}: ${String(error)}`));
    } catch (error) {
      app.log.error(`customer columns of ${accountId}: ${String(error)}`);
    }
  }

  app.get(
    '/customers',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['customers'],
        operationId: 'listCustomers',
        summary: `One page (${CUSTOMERS_PAGE_SIZE}) of the customers that are not deleted, in a column’s order`,
        description:
          'Keyset paging: `next` and `prev` are opaque cursors from a previous answer (the page after its last item, before its first). Ties are broken by id; nulls come last in both directions.',
        security: BEARER,
        querystring: Type.Object({
          sort_by: Type.Optional(
            Text(300, { description: `{column}:{asc|desc}, default ${DEFAULT_SORT}; columns: name, public_id, added_at, id, mrr, total, customer_segment:{segmentId}, definition:{definitionId}` }),
          ),
          next: Type.Optional(Text(CURSOR_MAX, { description: 'The page after this cursor' })),
          prev: Type.Optional(Text(CURSOR_MAX, { description: 'The page before this cursor' })),
        }),
        response: {
          200: Type.Object({
            items: Type.Array(CustomerRowSchema),
            total_count: Type.Integer({ description: 'Customers that are not deleted' }),
            current_range: Type.Object({ from: Type.Integer(), to: Type.Integer() }, { description: '1-based positions of the first and last item; 0 and 0 when empty' }),
            next: Type.Union([Type.String(), Type.Null()]),
            prev: Type.Union([Type.String(), Type.Null()]),
          }),
          ...errorResponses(400, 401, 403, 422),
        },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const { sort_by, next, prev } = request.query;
      const sort: Sort | null = parseSort(sort_by);
      if (!sort) throw ApiError.of(422, UNKNOWN_SORT, '/querystring/sort_by');
      if (next !== undefined && prev !== undefined) throw ApiError.of(422, NEXT_AND_PREV, '/querystring/prev');
      const text = next ?? prev;
      const cursor = text === undefined ? null : decodeCursor(sort, text);
      if (text !== undefined && !cursor) throw ApiError.of(422, BAD_CURSOR, next !== undefined ? '/querystring/next' : '/querystring/prev');
      const index = await accountIndex(app, accountId);
      // Once per list index (a new data version or a new day): the calculated columns catch up.
      if (!refreshed.has(index)) {
        refreshed.add(index);
        refreshColumns(accountId);
      }
      const order = await orderFor(index, accountId, sort.column);
      if (!order) throw ApiError.of(422, UNKNOWN_SORT, '/querystring/sort_by');
      const page = pageOf(index, order, sort.direction, CUSTOMERS_PAGE_SIZE, cursor ? { ...cursor, before: prev !== undefined } : null);
      const { ids } = index.snapshot.customers;
      const items = await customerRows(app, accountId, page.customers.map((c) => ids[c] as string), index);
      const first = page.customers[0];
      const last = page.customers.at(-1);
      const end = page.start + page.customers.length;
      return {
        items,
        total_count: page.total,
        current_range: page.customers.length === 0 ? { from: 0, to: 0 } : { from: page.start + 1, to: end },
        next: last !== undefined && end < page.total ? encodeCursor(sort, order.key(last), ids[last] as string) : null,
        prev: first !== undefined && page.start > 0 ? encodeCursor(sort, order.key(first), ids[first] as string) : null,
      };
    },
  );

  app.get(
    '/customer/search',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['customers'],
        operationId: 'searchCustomers',
        summary: 'Customers (not deleted) whose name contains the text (case-insensitive; names starting with it first) or whose public id is it',
        security: BEARER,
        querystring: Type.Object({
          query: Type.Optional(Text(NAME_MAX, { description: 'Empty: no customers' })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: CUSTOMER_SEARCH_MAX_LIMIT, description: `At most this many (default ${SUGGESTIONS_LIMIT})` })),
        }),
        response: { 200: Type.Object({ items: Type.Array(CustomerRowSchema) }), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const query = (request.query.query ?? '').trim();
      const limit = request.query.limit ?? SUGGESTIONS_LIMIT;
      if (query === '') return { items: [] };
      const found = await searchCustomerIds(accountId, query, limit);
      return { items: await customerRows(app, accountId, found) };
    },
  );

  /** Ids of the matches, best first: the public id, then names starting with the text, then names containing it, each by name then id. */
  async function searchCustomerIds(accountId: string, query: string, limit: number): Promise<string[]> {
    const pattern = `${query.replace(/[\\%_]/g, (c) => `\\${c}`)}`;
    const ids: string[] = [];
    const add = (rows: Array<{ id: string }>) => {
      for (const row of rows) if (!ids.includes(row.id) && ids.length < limit) ids.push(row.id);
    };
    const listed = db.selectFrom('customers').select('id').where('account_id', '=', accountId).where('deleted_at', 'is', null);
    if (query.length <= CUSTOMER_ID_MAX) add(await listed.where('public_id', '=', query).execute());
    add(
      await listed
        .where(sql<boolean>`lower(name) collate "C" like lower(${pattern}) || '%'`)
        .orderBy(sql`lower(name) collate "C"`)
        .orderBy(sql`id collate "C"`)
        .limit(limit + 1)
        .execute(),
    );
    if (ids.length < limit) {
      add(
        await listed
          .where(sql<boolean>`strpos(lower(name), lower(${query})) > 1`)
          .orderBy(sql`lower(name) collate "C"`)
          .orderBy(sql`id collate "C"`)
          .limit(limit + 1)
          .execute(),
      );
    }
    return ids;
  }

  app.post(
    '/customers',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['customers'],
        operationId: 'createCustomer',
        summary: 'A new customer (e.g. a new parent to assign)',
        security: BEARER,
        body: Type.Object({
          name: Text(NAME_MAX),
          public_id: Type.Optional(Type.Union([Text(CUSTOMER_ID_MAX), Type.Null()], { description: 'Its id in the source system; unique in the account' })),
        }),
        response: { 201: CustomerRowSchema, ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (request, reply) => {
      const { accountId } = authOf(request);
      const id = await createCustomer(app, accountId, request.body);
      const [row] = await customerRows(app, accountId, [id]);
      if (!row) throw ApiError.of(409, 'The customer was changed meanwhile');
      return reply.code(201).send(row);
    },
  );
};
