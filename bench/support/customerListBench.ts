import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Database } from '../../server/db/database';
import { encodeCursor, type Sort } from '../../server/customers/paging';
import type { SortKey } from '../../server/customers/customerIndex';
import { median } from './rounds';

/**
 * The customers table's calls against a plain indexed SELECT of the same page on the same
 * engine (bench/customers.ts, docs/customers.md "Speed"). A case is one page of
 * `GET /customers` (a sort and a start: the first page, or the page after a cursor deep in the
 * list) or one `GET /customer/search`; the peer is the one SELECT a table with that column
 * stored and indexed answers the same page with (keyset, no OFFSET): the customers' name
 * index, a table of the customers' MRR as the list computes it, the calculated column's
 * values index, the name prefix index. Each side's figure is the median (p50) of `requests`
 * calls in a row; the ids each answers must be the same, in the same order.
 */

export const PAGE = 50;
export const SEARCH_LIMIT = 10;
/** The peer's copy of the list's MRR (a table a product storing MRR per customer would have). */
export const PEER_MRR_TABLE = 'bench_customer_mrr';

export interface ListCase {
  name: string;
  /** GET /customers?sort_by= … (or the search). */
  url: string;
  /** The peer's page: ids in order. */
  peer: () => Promise<string[]>;
}

export interface CaseSetup {
  app: FastifyInstance;
  db: Database;
  accountId: string;
  /** Position (0-based) of the deep page's first item. */
  deep: number;
  definitionId: string | null;
  searchPrefix: string;
}

interface Keyed {
  id: string;
  key: SortKey;
}

/** The peer table of MRR per customer, from the list's own answer (every page of mrr:asc, untimed), indexed as the peer reads it. */
export async function createPeerMrrTable(db: Database, accountId: string, rows: ReadonlyArray<{ id: string; mrr: number }>): Promise<void> {
  await sql.raw(`drop table if exists ${PEER_MRR_TABLE}`).execute(db.kysely);
  await sql.raw(`create table ${PEER_MRR_TABLE} (account_id text not null, customer_id text not null, mrr double precision not null, primary key (account_id, customer_id))`).execute(db.kysely);
  for (let k = 0; k < rows.length; k += 5_000) {
    const part = rows.slice(k, k + 5_000);
    await sql`insert into ${sql.table(PEER_MRR_TABLE)} (account_id, customer_id, mrr) select ${accountId}, unnest(${part.map((r) => r.id)}::text[]), unnest(${part.map((r) => r.mrr)}::float8[])`.execute(db.kysely);
  }
  await sql.raw(`create index ${PEER_MRR_TABLE}_idx on ${PEER_MRR_TABLE} (account_id, mrr, customer_id collate "C")`).execute(db.kysely);
  await sql.raw(`analyze ${PEER_MRR_TABLE}`).execute(db.kysely);
}

const ids = (rows: Array<{ id: string }>) => rows.map((row) => row.id);

/** The cases: the first and a deep page by name, MRR and the calculated column; the name prefix search. */
export async function listCases(setup: CaseSetup): Promise<ListCase[]> {
  const { db, accountId, deep, definitionId, searchPrefix } = setup;
  const k = db.kysely;
  // Peer pages: keyset SELECTs on the indexes (untimed setup reads the deep cursor with OFFSET once).
  const byName = async (after: Keyed | null) =>
    ids(
      (
        await sql<{ id: string }>`select id from customers where account_id = ${accountId} and deleted_at is null
          ${after ? sql`and (lower(name) collate "C", id collate "C") > (${after.key}, ${after.id})` : sql``}
          order by lower(name) collate "C", id collate "C" limit ${PAGE}`.execute(k)
      ).rows,
    );
  const byMrr = async (after: Keyed | null) =>
    ids(
      (
        await sql<{ id: string }>`select m.customer_id as id from ${sql.table(PEER_MRR_TABLE)} m where m.account_id = ${accountId}
          ${after ? sql`and (m.mrr, m.customer_id collate "C") > (${after.key}, ${after.id})` : sql``}
          order by m.mrr, m.customer_id collate "C" limit ${PAGE}`.execute(k)
      ).rows,
    );
  const byColumn = async (after: Keyed | null) =>
    ids(
      (
        await sql<{ id: string }>`select v.customer_id as id from customer_column_values v
          join customers c on c.account_id = v.account_id and c.id = v.customer_id and c.deleted_at is null
          where v.account_id = ${accountId} and v.definition_id = ${definitionId} and v.value is not null
          ${after ? sql`and (v.value, v.customer_id) > (${after.key}::numeric, ${after.id})` : sql``}
          order by v.value, v.customer_id limit ${PAGE}`.execute(k)
      ).rows,
    );
  const deepName = (
    await sql<Keyed>`select id, lower(name) as key from customers where account_id = ${accountId} and deleted_at is null
      order by lower(name) collate "C", id collate "C" offset ${deep - 1} limit 1`.execute(k)
  ).rows[0];
  const deepMrr = (await sql<Keyed>`select customer_id as id, mrr as key from ${sql.table(PEER_MRR_TABLE)} where account_id = ${accountId} order by mrr, customer_id collate "C" offset ${deep - 1} limit 1`.execute(k)).rows[0];
  const cursor = (sort: Sort, at: Keyed | undefined) => (at ? `&next=${encodeURIComponent(encodeCursor(sort, at.key === null ? null : typeof at.key === 'string' ? at.key : Number(at.key), at.id))}` : '');
  const cases: ListCase[] = [
    { name: 'name_first', url: '/customers?sort_by=name:asc', peer: () => byName(null) },
    { name: 'name_deep', url: `/customers?sort_by=name:asc${cursor({ column: 'name', direction: 'asc' }, deepName)}`, peer: () => byName(deepName ?? null) },
    { name: 'mrr_first', url: '/customers?sort_by=mrr:asc', peer: () => byMrr(null) },
    { name: 'mrr_deep', url: `/customers?sort_by=mrr:asc${cursor({ column: 'mrr', direction: 'asc' }, deepMrr ? { id: deepMrr.id, key: Number(deepMrr.key) } : undefined)}`, peer: () => byMrr(deepMrr ? { id: deepMrr.id, key: Number(deepMrr.key) } : null) },
  ];
  if (definitionId) {
    const withValues = Number((await sql<{ n: number }>`select count(*)::int as n from customer_column_values where account_id = ${accountId} and definition_id = ${definitionId} and value is not null`.execute(k)).rows[0]?.n ?? 0);
    const deepColumn = (
      await sql<{ id: string; key: string }>`select v.customer_id as id, v.value::text as key from customer_column_values v
        join customers c on c.account_id = v.account_id and c.id = v.customer_id and c.deleted_at is null
        where v.account_id = ${accountId} and v.definition_id = ${definitionId} and v.value is not null
        order by v.value, v.customer_id offset ${Math.max(0, Math.min(deep, withValues - PAGE) - 1)} limit 1`.execute(k)
    ).rows[0];
    const keyed = deepColumn ? { id: deepColumn.id, key: Number(deepColumn.key) } : null;
    const sort: Sort = { column: `definition:${definitionId}`, direction: 'asc' };
    cases.push(
      { name: 'column_first', url: `/customers?sort_by=${encodeURIComponent(`definition:${definitionId}:asc`)}`, peer: () => byColumn(null) },
      { name: 'column_deep', url: `/customers?sort_by=${encodeURIComponent(`definition:${definitionId}:asc`)}${cursor(sort, keyed ?? undefined)}`, peer: () => byColumn(keyed) },
    );
  }
  const pattern = `${searchPrefix.toLowerCase()}%`;
  cases.push({
    name: 'search_prefix',
    url: `/customer/search?query=${encodeURIComponent(searchPrefix)}&limit=${SEARCH_LIMIT}`,
    peer: async () =>
      ids(
        (
          await sql<{ id: string }>`select id from customers where account_id = ${accountId} and deleted_at is null and lower(name) collate "C" like ${pattern}
            order by lower(name) collate "C", id collate "C" limit ${SEARCH_LIMIT}`.execute(k)
        ).rows,
      ),
  });
  return cases;
}

/** One call of ours: the ids it answered. */
export async function oursOnce(app: FastifyInstance, authorization: string, url: string): Promise<string[]> {
  const response = await app.inject({ method: 'GET', url: `/api/v11${url}`, headers: { authorization } });
  if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body.slice(0, 300)}`);
  return (response.json() as { items: Array<{ id: string }> }).items.map((item) => item.id);
}

/** The p50 in ms of `requests` calls of `run` in a row. */
export async function p50(requests: number, run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let k = 0; k < requests; k++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  return median(times);
}

/** Every row of the list in mrr:asc order with its MRR, read through the API's own pages (untimed). */
export async function listMrr(app: FastifyInstance, authorization: string): Promise<Array<{ id: string; mrr: number }>> {
  const out: Array<{ id: string; mrr: number }> = [];
  let next: string | null = null;
  do {
    const response = await app.inject({ method: 'GET', url: `/api/v11/customers?sort_by=mrr:asc${next ? `&next=${encodeURIComponent(next)}` : ''}`, headers: { authorization } });
    if (response.statusCode !== 200) throw new Error(`listing: ${response.statusCode} ${response.body.slice(0, 300)}`);
    const page = response.json() as { items: Array<{ id: string; metrics: Array<{ kind?: string; value: number | null }> }>; next: string | null };
    for (const item of page.items) out.push({ id: item.id, mrr: Number(item.metrics.find((m) => m.kind === 'mrr')?.value ?? 0) });
    next = page.next;
  } while (next);
  return out;
}
