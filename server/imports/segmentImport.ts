import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { auditImport, setImportStatus } from './auditLog';
import { extraCellsReason } from './rowWidth';
import { NO_DATA_ROWS } from './messages';
import { listFailures, markFailed } from './subscriptionImport';

/**
 * The job of an attribute values import (`/import-segments`): each staged row names a
 * customer (by its public id, else its id) and a value of one customer segment. The values
 * are written for the current month (a time-sensitive segment keeps its history: the value is
 * in force from this month on; for the others the latest value is the value), set-based, in one
 * transaction that also marks the import done, so it is wholly applied or not at all.
 */

export interface SegmentMapping {
  customerColumn: number;
  valueColumn: number;
  segmentId: string;
}

export interface SegmentImportResult {
  status: 'done';
  success_count: number;
  failure_count: number;
  failures: { row_number: number; row: string; message: string }[];
}

export async function runSegmentImport(
  db: Kysely<DB>,
  accountId: string,
  importId: string,
  options: { now?: Date; onCommitted?: (accountId: string) => Promise<void> | void } = {},
): Promise<boolean> {
  const found = await db.selectFrom('imports').selectAll().where('account_id', '=', accountId).where('id', '=', importId).executeTakeFirst();
  if (!found || found.kind !== 'segments' || (found.status !== 'in_progress' && found.status !== 'finalizing')) return false;
  try {
    const stored = found.column_mapping as { customer_column?: number; value_column?: number } | null;
    if (stored?.customer_column === undefined || stored.value_column === undefined || !found.customer_segment_id) throw new Error('the import has no mapping');
    const mapping: SegmentMapping = { customerColumn: stored.customer_column, valueColumn: stored.value_column, segmentId: found.customer_segment_id };
    const now = options.now ?? new Date();
    await setImportStatus(db, accountId, importId, 'finalizing', 'commit started', { segment_id: mapping.segmentId }, { progress: 50 });
    const committed = await db.transaction().execute(async (trx) => {
      const current = await trx.selectFrom('imports').select(['status', 'delimiter']).where('account_id', '=', accountId).where('id', '=', importId).forUpdate().executeTakeFirst();
      if (!current || current.status !== 'finalizing') return null;
      return commitSegments(trx, accountId, importId, mapping, found.skip_headers, now, current.delimiter ?? ',');
    });
    if (committed) await options.onCommitted?.(accountId);
    return committed !== null;
  } catch (error) {
    await markFailed(db, accountId, importId, error);
    throw error;
  }
}

async function commitSegments(
  trx: Kysely<DB>,
  accountId: string,
  importId: string,
  mapping: SegmentMapping,
  skipHeaders: boolean,
  now: Date,
  delimiter: string,
): Promise<SegmentImportResult> {
  // PostgreSQL arrays count from 1.
  const key = sql`btrim(r.cells[${mapping.customerColumn + 1}])`;
  const value = sql`btrim(r.cells[${mapping.valueColumn + 1}])`;
  const scope = sql`r.account_id = ${accountId} and r.import_id = ${importId} and r.error is null`;
  // The first row (the header, or the first data row when there is none) sets how many cells a row may have.
  const first = await trx
    .selectFrom('import_rows')
    .select(['row_number', sql<number>`cardinality(cells)`.as('width')])
    .where('account_id', '=', accountId)
    .where('import_id', '=', importId)
    .orderBy('row_number')
    .limit(1)
    .executeTakeFirst();
  if (first && skipHeaders) await trx.deleteFrom('import_rows').where('account_id', '=', accountId).where('import_id', '=', importId).where('row_number', '=', first.row_number).execute();
  const left = await trx.selectFrom('import_rows').select('row_number').where('account_id', '=', accountId).where('import_id', '=', importId).limit(1).executeTakeFirst();
  if (!left) throw new Error(NO_DATA_ROWS);

  // More cells than the first row, the extra ones not blank: most likely a value holding the
  // delimiter without quotes, which shifts the row's columns. Refused, not read.
  if (first) {
    const width = Number(first.width);
    const reason = extraCellsReason(width, skipHeaders, delimiter);
    await sql`update import_rows r set error = 'Row ' || r.row_number || ' has ' || cardinality(r.cells) || ' columns, ' || ${reason}::text
               where ${scope} and cardinality(r.cells) > ${width}
                 and exists (select 1 from unnest(r.cells[${width + 1}:]) as extra(cell) where btrim(extra.cell) <> '')`.execute(trx);
  }
  await sql`update import_rows r set error = 'Customer ID is empty' where ${scope} and coalesce(${key}, '') = ''`.execute(trx);
  await sql`update import_rows r set error = 'The value column is missing in this row' where ${scope} and cardinality(r.cells) <= ${mapping.valueColumn}`.execute(trx);
  // The customer: by public id first (what other tools know), else by our id.
  await sql`create temporary table segment_rows on commit drop as
            select r.row_number, ${key} as customer_key, nullif(${value}, '') as value,
                   coalesce((select c.id from customers c where c.account_id = r.account_id and c.public_id = ${key} limit 1),
                            (select c.id from customers c where c.account_id = r.account_id and c.id = ${key})) as customer_id
              from import_rows r where ${scope}`.execute(trx);
  await sql`update import_rows r set error = 'Customer ''' || s.customer_key || ''' not found'
              from segment_rows s where s.customer_id is null and r.account_id = ${accountId} and r.import_id = ${importId} and r.row_number = s.row_number`.execute(trx);
  await sql`update import_rows r set error = 'Same customer as row ' || d.first
              from (select row_number, min(row_number) over (partition by customer_id) as first from segment_rows where customer_id is not null) d
             where d.row_number > d.first and r.account_id = ${accountId} and r.import_id = ${importId} and r.row_number = d.row_number`.execute(trx);
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth() + 1;
  const valid = await sql<{ n: number }>`select count(*)::int as n from segment_rows s
              join import_rows r on r.account_id = ${accountId} and r.import_id = ${importId} and r.row_number = s.row_number where r.error is null`.execute(trx);
  await sql`insert into customer_segment_values (account_id, customer_id, segment_id, year, month, value)
            select ${accountId}, s.customer_id, ${mapping.segmentId}, ${year}, ${month}, s.value
              from segment_rows s join import_rows r on r.account_id = ${accountId} and r.import_id = ${importId} and r.row_number = s.row_number
             where r.error is null
            on conflict (account_id, customer_id, segment_id, year, month) do update set value = excluded.value, updated_at = now()`.execute(trx);

  const failed = await listFailures(trx, accountId, importId, delimiter);
  const result: SegmentImportResult = {
    status: 'done',
    success_count: valid.rows[0]?.n ?? 0,
    failure_count: failed.count,
    failures: failed.listed,
  };
  await trx
    .updateTable('imports')
    .set({ status: 'done', progress: 100, success_count: result.success_count, failure_count: result.failure_count, result: JSON.stringify(result), finished_at: new Date(), updated_at: new Date() })
    .where('account_id', '=', accountId)
    .where('id', '=', importId)
    .execute();
  await auditImport(trx, accountId, importId, 'committed', 'done', { written: result.success_count, failed: result.failure_count, year, month });
  await trx.deleteFrom('import_rows').where('account_id', '=', accountId).where('import_id', '=', importId).execute();
  return result;
}
