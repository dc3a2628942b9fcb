import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import { auditImport, setImportStatus } from './auditLog';
import { slashOrderEvidence, type DateOrder } from './csv/values';
import { stagedRows } from './staging';
import { readSubscriptionRow, type FieldMapping, type ParsedPaymentRow, type RowContext } from './subscriptionRows';

/**
 * The job of a subscription import: validate the staged rows with the import's mapping, then
 * commit every valid row in ONE transaction that also marks the import done, so an import is
 * either fully in the account's data (and `done`) or not at all, whatever happens to the
 * process. A rerun (a retried job, a restart after a crash) starts the validation over from
 * the staged rows and finds the import done if the commit had happened.
 *
 * Payments are keyed by account, customer, invoice number and start date (their id is derived
 * from them: subscriptionRows.ts), so importing a file again adds nothing, and a row whose
 * amount, period, currency or item changed updates its payment as a new version.
 */

/** Failures kept in the import's result (all are counted). */
export const LISTED_FAILURES = 1_000;
const BATCH = 5_000;

export interface ImportFailure {
  row_number: number;
  row: string;
  message: string;
}

/** The rows of an import that failed (the first LISTED_FAILURES of them, as read) and how many failed. */
export async function listFailures(db: Kysely<DB>, accountId: string, importId: string, delimiter: string): Promise<{ listed: ImportFailure[]; count: number }> {
  const failed = db.selectFrom('import_rows').where('account_id', '=', accountId).where('import_id', '=', importId).where('error', 'is not', null);
  const rows = await failed.select(['row_number', 'cells', 'error']).orderBy('row_number').limit(LISTED_FAILURES).execute();
  const counted = await failed.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { listed: rows.map((row) => ({ row_number: row.row_number, row: row.cells.join(delimiter), message: row.error as string })), count: Number(counted.n) };
}

export interface SubscriptionImportResult {
  status: 'done';
  success_count: number;
  failure_count: number;
  created: number;
  updated: number;
  unchanged: number;
  failures: ImportFailure[];
}

/** What the mapping of an import (imports.column_mapping) holds. */
export interface StoredMapping {
  fields: Record<string, number>;
}

export interface RunOptions {
  /** Called after the commit (the metrics service drops the account's snapshot). */
  onCommitted?: (accountId: string) => Promise<void> | void;
  userId?: string | null;
}

/**
 * Lets the event loop serve requests between batches: PGlite answers on this thread and its
 * promises resolve as microtasks, so a long import would otherwise hold every request (a
 * polling GET included) until it ends.
 */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs (or resumes) an import; returns false when there was nothing to do (already finished). */
export async function runSubscriptionImport(db: Kysely<DB>, accountId: string, importId: string, options: RunOptions = {}): Promise<boolean> {
  const found = await db.selectFrom('imports').selectAll().where('account_id', '=', accountId).where('id', '=', importId).executeTakeFirst();
  if (!found || found.status === 'done' || found.status === 'failed') return false;
  if (found.status !== 'in_progress' && found.status !== 'finalizing') return false;
  try {
    const mapping = (found.column_mapping as StoredMapping | null)?.fields as FieldMapping | undefined;
    if (!mapping) throw new Error('the import has no column mapping');
    await auditImport(db, accountId, importId, 'validation started', 'in_progress', { rows: found.total_rows });
    const context = await rowContext(db, accountId, importId, mapping);
    const { valid, failed } = await validate(db, accountId, importId, mapping, context, found.skip_headers, found.total_rows);
    await auditImport(db, accountId, importId, 'validation finished', 'in_progress', { valid, failed, slash_dates: context.slashOrder ?? 'refused when ambiguous' });
    await setImportStatus(db, accountId, importId, 'finalizing', 'commit started', {}, { progress: 90 });
    const result = await db.transaction().execute((trx) => commit(trx, accountId, importId, options.userId ?? found.created_by_user_id));
    if (result) await options.onCommitted?.(accountId);
    return result !== null;
  } catch (error) {
    await markFailed(db, accountId, importId, error);
    throw error;
  }
}

export async function markFailed(db: Kysely<DB>, accountId: string, importId: string, error: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  // Kept: what the result already says (the validation failures of a refused upload).
  await sql`update imports set result = coalesce(result, '{}'::jsonb) || jsonb_build_object('status', 'failed', 'error', ${message}::text), finished_at = now()
             where account_id = ${accountId} and id = ${importId}`.execute(db);
  await setImportStatus(db, accountId, importId, 'failed', 'failed', { error: message });
}

/** The account's currency, the known currencies, and how this file's slash dates read. */
async function rowContext(db: Kysely<DB>, accountId: string, importId: string, mapping: FieldMapping): Promise<RowContext> {
  const account = await db.selectFrom('accounts').select('currency').where('id', '=', accountId).executeTakeFirstOrThrow();
  const currencies = await db.selectFrom('currencies').select(['iso', 'minor_unit_digits']).execute();
  const dateColumns = [mapping.started_at, mapping.ended_at].filter((index): index is number => index !== undefined);
  const evidence = new Set<DateOrder>();
  for await (const page of stagedRows(db, accountId, importId, BATCH)) {
    for (const row of page) {
      for (const index of dateColumns) {
        const order = slashOrderEvidence((row.cells[index] ?? '').trim());
        if (order) evidence.add(order);
      }
    }
    await yieldToEventLoop();
  }
  // One order proven by some date of the file reads its ambiguous ones; none or both: they are refused.
  const slashOrder = evidence.size === 1 ? ([...evidence][0] as DateOrder) : null;
  return { accountId, accountCurrency: account.currency, currencyDigits: new Map(currencies.map((c) => [c.iso, c.minor_unit_digits])), slashOrder };
}

/** Validates every staged row into import_payment_rows or import_rows.error; a rerun starts over. */
async function validate(
  db: Kysely<DB>,
  accountId: string,
  importId: string,
  mapping: FieldMapping,
  context: RowContext,
  skipHeaders: boolean,
  total: number,
): Promise<{ valid: number; failed: number }> {
  await db.deleteFrom('import_payment_rows').where('account_id', '=', accountId).where('import_id', '=', importId).execute();
  await db.updateTable('import_rows').set({ error: null }).where('account_id', '=', accountId).where('import_id', '=', importId).where('error', 'is not', null).execute();
  let valid = 0;
  let failed = 0;
  let seen = 0;
  let first = true;
  for await (const page of stagedRows(db, accountId, importId, BATCH)) {
    const parsed: { number: number; row: ParsedPaymentRow }[] = [];
    const errors: { number: number; message: string }[] = [];
    for (const staged of page) {
      if (first && skipHeaders) {
        first = false;
        continue;
      }
      first = false;
      const outcome = readSubscriptionRow(staged.cells, mapping, context);
      if (outcome.ok) parsed.push({ number: staged.row_number, row: outcome.row });
      else errors.push({ number: staged.row_number, message: outcome.message });
    }
    await insertParsed(db, accountId, importId, parsed);
    await recordErrors(db, accountId, importId, errors);
    valid += parsed.length;
    failed += errors.length;
    seen += page.length;
    await yieldToEventLoop();
    await db
      .updateTable('imports')
      .set({ progress: Math.min(85, Math.floor((seen / Math.max(1, total)) * 85)), updated_at: new Date() })
      .where('account_id', '=', accountId)
      .where('id', '=', importId)
      .execute();
  }
  // Rows of one file that name the same payment: the first one counts, the others are reported.
  // (A window over one scan: a join of the table with its own grouping is a nested loop for PGlite's planner, which has no statistics here.)
  const duplicates = await sql<{ row_number: number; first: number }>`
    select row_number, first from (
      select row_number, min(row_number) over (partition by payment_id) as first
        from import_payment_rows where account_id = ${accountId} and import_id = ${importId}) rows
     where row_number > first`.execute(db);
  if (duplicates.rows.length > 0) {
    await recordErrors(
      db,
      accountId,
      importId,
      duplicates.rows.map((d) => ({ number: d.row_number, message: `Same customer, invoice number and start date as row ${d.first}` })),
    );
    await sql`delete from import_payment_rows r using import_rows e
               where r.account_id = ${accountId} and r.import_id = ${importId}
                 and e.account_id = r.account_id and e.import_id = r.import_id and e.row_number = r.row_number and e.error is not null`.execute(db);
    valid -= duplicates.rows.length;
    failed += duplicates.rows.length;
  }
  return { valid, failed };
}

async function insertParsed(db: Kysely<DB>, accountId: string, importId: string, parsed: { number: number; row: ParsedPaymentRow }[]): Promise<void> {
  if (parsed.length === 0) return;
  const column = <T>(pick: (row: ParsedPaymentRow) => T) => parsed.map((p) => pick(p.row));
  await sql`insert into import_payment_rows (account_id, import_id, row_number, payment_id, customer_id, customer_name, started_at, ended_at,
              duration_in_months, total_value, currency, invoice_number, product_key, item_type, quantity)
            select ${accountId}, ${importId}, * from unnest(
              ${parsed.map((p) => p.number)}::int[], ${column((r) => r.paymentId)}::text[], ${column((r) => r.customerId)}::text[],
              ${column((r) => r.customerName)}::text[], ${column((r) => r.startedAt)}::date[], ${column((r) => r.endedAt)}::date[],
              ${column((r) => r.months)}::int[], ${column((r) => r.totalValue)}::bigint[], ${column((r) => r.currency)}::text[],
              ${column((r) => r.invoiceNumber)}::text[], ${column((r) => r.productKey)}::text[], ${column((r) => r.itemType)}::text[],
              ${column((r) => r.quantity)}::int[])`.execute(db);
}

async function recordErrors(db: Kysely<DB>, accountId: string, importId: string, errors: { number: number; message: string }[]): Promise<void> {
  if (errors.length === 0) return;
  await sql`update import_rows r set error = e.message
              from unnest(${errors.map((e) => e.number)}::int[], ${errors.map((e) => e.message)}::text[]) as e(n, message)
             where r.account_id = ${accountId} and r.import_id = ${importId} and r.row_number = e.n`.execute(db);
}

/**
 * The commit: customers, products, payments, items and versions from import_payment_rows, and
 * the import marked done, in the caller's transaction. Null when another run committed first.
 */
async function commit(trx: Transaction<DB>, accountId: string, importId: string, userId: string | null): Promise<SubscriptionImportResult | null> {
  const current = await trx.selectFrom('imports').select(['status', 'total_rows', 'delimiter']).where('account_id', '=', accountId).where('id', '=', importId).forUpdate().executeTakeFirst();
  if (!current || current.status !== 'finalizing') return null;
  const scope = sql`account_id = ${accountId} and import_id = ${importId}`;

  await sql`insert into customers (account_id, id, name, source)
            select distinct on (customer_id) account_id, customer_id, coalesce(customer_name, customer_id), 'csv_import'
              from import_payment_rows where ${scope} order by customer_id, row_number
            on conflict (account_id, id) do nothing`.execute(trx);
  await sql`insert into products (account_id, key, name)
            select distinct account_id, product_key, product_key from import_payment_rows where ${scope}
            on conflict (account_id, key) do nothing`.execute(trx);

  // What each row does to its payment: create it, change it (a new version), or nothing.
  await sql`create temporary table import_changes on commit drop as
            select r.*, p.version as old_version,
                   jsonb_build_array(jsonb_build_object('product_key', r.product_key, 'type', r.item_type, 'quantity', r.quantity)) as items,
                   case when p.id is null then 'new'
                        when p.deleted_at is not null
                          or (p.customer_id, p.started_at, p.duration_in_months, p.total_value, p.currency, coalesce(p.invoice_number, ''))
                             is distinct from (r.customer_id, r.started_at, r.duration_in_months, r.total_value, r.currency, coalesce(r.invoice_number, ''))
                          or v.items is distinct from jsonb_build_array(jsonb_build_object('product_key', r.product_key, 'type', r.item_type, 'quantity', r.quantity))
                          or v.discounts is distinct from '[]'::jsonb
                        then 'changed' else 'same' end as change
              from import_payment_rows r
              left join payments p on p.account_id = r.account_id and p.id = r.payment_id
              left join payment_versions v on v.account_id = p.account_id and v.payment_id = p.id and v.valid_to is null
             where r.account_id = ${accountId} and r.import_id = ${importId}`.execute(trx);
  // Statistics, so the joins below on this fresh table are planned for its real size.
  await sql`analyze import_changes`.execute(trx);

  await sql`insert into payments (account_id, id, customer_id, version, started_at, ended_at, duration_in_months, total_value, currency, invoice_number, source, import_id)
            select account_id, payment_id, customer_id, 1, started_at, ended_at, duration_in_months, total_value, currency, invoice_number, 'csv_import', import_id
              from import_changes where change = 'new'`.execute(trx);
  await sql`update payments p set customer_id = c.customer_id, version = p.version + 1, started_at = c.started_at, ended_at = c.ended_at,
                   duration_in_months = c.duration_in_months, total_value = c.total_value, currency = c.currency, invoice_number = c.invoice_number,
                   deleted_at = null, import_id = c.import_id, updated_at = now()
              from import_changes c
             where c.change = 'changed' and p.account_id = c.account_id and p.id = c.payment_id`.execute(trx);
  await sql`delete from payment_items i using import_changes c
             where c.change = 'changed' and i.account_id = c.account_id and i.payment_id = c.payment_id`.execute(trx);
  await sql`delete from payment_discounts d using import_changes c
             where c.change = 'changed' and d.account_id = c.account_id and d.payment_id = c.payment_id`.execute(trx);
  await sql`insert into payment_items (account_id, payment_id, position, product_key, type, quantity)
            select account_id, payment_id, 0, product_key, item_type, quantity from import_changes where change <> 'same'`.execute(trx);
  await sql`update payment_versions v set valid_to = greatest(now(), v.valid_from)
              from import_changes c
             where c.change = 'changed' and v.account_id = c.account_id and v.payment_id = c.payment_id and v.valid_to is null`.execute(trx);
  await sql`insert into payment_versions (account_id, payment_id, version, customer_id, started_at, ended_at, duration_in_months, total_value,
              currency, invoice_number, items, discounts, valid_from, recorded_at, recorded_by_user_id)
            select c.account_id, c.payment_id, coalesce(c.old_version, 0) + 1, c.customer_id, c.started_at, c.ended_at, c.duration_in_months,
                   c.total_value, c.currency, c.invoice_number, c.items, '[]'::jsonb,
                   case when c.change = 'new' then now()
                        else greatest(now(), coalesce((select max(v.valid_to) from payment_versions v where v.account_id = c.account_id and v.payment_id = c.payment_id), now())) end,
                   now(), ${userId}
              from import_changes c where c.change <> 'same'`.execute(trx);

  const counts = await sql<{ change: string; n: number }>`select change, count(*)::int as n from import_changes group by change`.execute(trx);
  const count = (change: string) => counts.rows.find((row) => row.change === change)?.n ?? 0;
  const failed = await listFailures(trx, accountId, importId, current.delimiter ?? ',');
  const created = count('new');
  const updated = count('changed');
  const unchanged = count('same');
  const result: SubscriptionImportResult = {
    status: 'done',
    success_count: created + updated + unchanged,
    failure_count: failed.count,
    created,
    updated,
    unchanged,
    failures: failed.listed,
  };
  await trx
    .updateTable('imports')
    .set({
      status: 'done',
      progress: 100,
      success_count: result.success_count,
      failure_count: result.failure_count,
      result: JSON.stringify(result),
      finished_at: new Date(),
      updated_at: new Date(),
    })
    .where('account_id', '=', accountId)
    .where('id', '=', importId)
    .execute();
  await auditImport(trx, accountId, importId, 'committed', 'done', { created, updated, unchanged, failed: result.failure_count });
  // The staged rows have served: the result keeps the failures.
  await trx.deleteFrom('import_payment_rows').where('account_id', '=', accountId).where('import_id', '=', importId).execute();
  await trx.deleteFrom('import_rows').where('account_id', '=', accountId).where('import_id', '=', importId).execute();
  return result;
}
