import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, Session } from '../db/database';
import type { DB } from '../db/schema';
import { rowTriggersSkippable } from '../db/rowTriggers';
import { auditImport, setImportStatus } from './auditLog';
import { EMPTY_FILE, NO_DATA_ROWS } from './messages';
import type { DateOrder, DecimalMark } from './csv/values';
import { firstRowsInWorker, parseInWorker } from './parseWorker';
import { storedFile, type FileFacts } from './staging';
import {
  DISCOUNT_COLUMNS,
  FAILURE_COLUMNS,
  ITEM_COLUMNS,
  OPEN_COLUMNS,
  PAYMENT_COLUMNS,
  STAGE_COLUMNS,
  failureLine,
  keyLine,
  repeatMessage,
  type BatchPlan,
  type ParsedBatch,
  type ParseTotals,
  type SuspectRow,
} from './subscriptionBatches';
import type { FieldMapping, RowContext } from './subscriptionRows';

/**
 * The job of a subscription import, ONE transaction: read the uploaded file (kept whole in
 * `import_files`) once, validate each row with the import's mapping, and write the valid ones
 * a batch at a time as they are read (missing customers and products; new payments and their
 * items by COPY; rows whose payment exists into a temporary table, checked set-based for
 * changes at the end), then mark the import done. An import is either fully in the account's
 * data (and `done`) or not at all, whatever happens to the process; a rerun (a retried job, a
 * restart after a crash) starts over from the file and finds the import done if the commit
 * had happened.
 *
 * Payments are keyed by account, customer, invoice number and start date (their id is derived
 * from them: subscriptionRows.ts), so importing a file again adds nothing, and a row whose
 * amount, period, currency or item changed updates its payment as a new version.
 */

/** Failures kept in the import's result (all are counted). */
export const LISTED_FAILURES = 1_000;
/** Valid rows per batch (one batch of COPY text in memory, one more being read). */
const BATCH = 20_000;
/** Until the end of a run, the message of a repeat whose first row an earlier batch had. */
const REPEAT_OF_EARLIER_BATCH = 'Same customer, invoice number and start date as an earlier row';
/** Advisory lock class of an import's commit transaction (one run at a time commits). */
const COMMIT_LOCK_CLASS = 51_202;

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
}

/** Runs (or resumes) an import; returns false when there was nothing to do (already finished). */
export async function runSubscriptionImport(database: Database, accountId: string, importId: string, options: RunOptions = {}): Promise<boolean> {
  const db = database.kysely;
  const found = await db.selectFrom('imports').selectAll().where('account_id', '=', accountId).where('id', '=', importId).executeTakeFirst();
  if (!found || (found.status !== 'in_progress' && found.status !== 'finalizing')) return false;
  try {
    const mapping = (found.column_mapping as StoredMapping | null)?.fields as FieldMapping | undefined;
    if (!mapping) throw new Error('the import has no column mapping');
    const context = await rowContext(db, accountId, mapping, found.file_facts as FileFacts | null);
    await auditImport(db, accountId, importId, 'validation started', 'in_progress', { rows: found.total_rows });
    const run: ImportRun = { database, accountId, importId, mapping, context, skipHeaders: found.skip_headers, total: found.total_rows, delimiter: found.delimiter ?? ',' };
    const result = await database.session((session) => session.kysely.transaction().execute((trx) => importFile(run, session, trx)));
    if (result) await options.onCommitted?.(accountId);
    return result !== null;
  } catch (error) {
    await markFailed(db, accountId, importId, error);
    throw error;
  }
}

/** The import fails with `error`'s message as its result's error; its file and staged rows go (a failed import keeps no bytes). */
export async function markFailed(db: Kysely<DB>, accountId: string, importId: string, error: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  await db.deleteFrom('import_rows').where('account_id', '=', accountId).where('import_id', '=', importId).execute();
  await db.deleteFrom('import_files').where('account_id', '=', accountId).where('import_id', '=', importId).execute();
  // Kept: what the result already says (the validation failures of a refused upload).
  await sql`update imports set result = coalesce(result, '{}'::jsonb) || jsonb_build_object('status', 'failed', 'error', ${message}::text), finished_at = now()
             where account_id = ${accountId} and id = ${importId}`.execute(db);
  await setImportStatus(db, accountId, importId, 'failed', 'failed', { error: message });
}

/** The account's currency, the known currencies, and how this file's slash dates read. */
async function rowContext(db: Kysely<DB>, accountId: string, mapping: FieldMapping, facts: FileFacts | null): Promise<RowContext> {
  const account = await db.selectFrom('accounts').select('currency').where('id', '=', accountId).executeTakeFirstOrThrow();
  const currencies = await db.selectFrom('currencies').select(['iso', 'minor_unit_digits']).execute();
  // One order proven by some date of the mapped date columns reads their ambiguous ones; none or both: they are refused.
  const evidence = new Set<DateOrder>();
  for (const index of [mapping.started_at, mapping.ended_at]) {
    if (index === undefined) continue;
    for (const order of facts?.slash_orders[String(index)] ?? []) evidence.add(order);
  }
  const slashOrder = evidence.size === 1 ? ([...evidence][0] as DateOrder) : null;
  // The same for an amount column's decimal separator: one proven reads its ambiguous amounts ('10.001').
  const markOf = (index: number | undefined): DecimalMark | null => {
    const marks = index === undefined ? [] : (facts?.decimal_marks?.[String(index)] ?? []);
    return marks.length === 1 ? (marks[0] as DecimalMark) : null;
  };
  const decimalMark = markOf(mapping.monthly_amount ?? mapping.total_value);
  const discountDecimalMark = markOf(mapping.discount_amount);
  return { accountId, accountCurrency: account.currency, currencyDigits: new Map(currencies.map((c) => [c.iso, c.minor_unit_digits])), slashOrder, decimalMark, discountDecimalMark };
}

interface ImportRun {
  database: Database;
  accountId: string;
  importId: string;
  mapping: FieldMapping;
  context: RowContext;
  skipHeaders: boolean;
  total: number;
  delimiter: string;
}

/**
 * The whole import, in the caller's transaction on `session`'s connection. Null when the import
 * is no longer to be run (another run committed it, or it failed).
 */
async function importFile(run: ImportRun, session: Session, trx: Transaction<DB>): Promise<SubscriptionImportResult | null> {
  const { database, accountId, importId, mapping, context } = run;
  // One run at a time gets past here; the one that comes second finds the import done.
  await sql`select pg_advisory_xact_lock(${COMMIT_LOCK_CLASS}, hashtext(${importId}))`.execute(trx);
  // Locked as the foreign-key checks of its payments would lock them: the import (its row is
  // rewritten at the end) and the account, which no one may now delete under this transaction.
  const current = await trx.selectFrom('imports').select('status').where('account_id', '=', accountId).where('id', '=', importId).forKeyShare().executeTakeFirst();
  if (!current || (current.status !== 'in_progress' && current.status !== 'finalizing')) return null;
  await trx.selectFrom('accounts').select('id').where('id', '=', accountId).forKeyShare().executeTakeFirstOrThrow();
  const bulk = await importMaySkipRowTriggers(trx);
  // One batch's new customers and products at a time (ensureBatchKeys); `present`: inserted or locked.
  for (const table of ['import_batch_customers', 'import_batch_products']) {
    await sql`create temporary table ${sql.table(table)} (id text not null, name text not null, present boolean not null default false) on commit drop`.execute(trx);
  }
  await sql`create temporary table import_stage (
              payment_id text not null, customer_id text not null, customer_name text,
              started_at date not null, ended_at date, duration_in_months double precision, total_value bigint, monthly_amount double precision not null,
              currency text not null, invoice_number text, product_key text, item_type text, quantity integer,
              discount_kind text, discount_amount bigint, discount_months integer
            ) on commit drop`.execute(trx);
  // The file's open-ended rows (written or staged like the others), checked for overlaps once the file is read.
  await sql`create temporary table import_open_rows (payment_id text not null, row_number integer not null, cells text[] not null) on commit drop`.execute(trx);

  const steps = new Steps();
  // Read and validate in a worker thread; each batch it hands back is written while it reads the next.
  const withItem = mapping.product !== undefined || mapping.revenue_type !== undefined || mapping.units !== undefined;
  const withDiscount = mapping.discount_amount !== undefined;
  const anyPayment = await sql`select 1 from payments where account_id = ${accountId} limit 1`.execute(trx);
  const noPayments = anyPayment.rows.length === 0;
  const plan: BatchPlan = {
    accountId,
    importId,
    mapping,
    context: { ...context, currencyDigits: [...context.currencyDigits] },
    skipHeaders: run.skipHeaders,
    withItem,
    withDiscount,
    noPayments,
    batchRows: positiveIntegerFrom(process.env.SUBSCOPE_IMPORT_BATCH_ROWS) ?? BATCH,
    expectedRows: run.total,
    idFilterBits: positiveIntegerFrom(process.env.SUBSCOPE_IMPORT_ID_FILTER_BITS),
  };
  const file = storedFile(session, accountId, importId);
  const batches = parseInWorker(plan, file);
  let created = 0;
  let insertedKeys = 0;
  let totals: ParseTotals;
  const spent = new Spent();
  const repeats: Repeats = { suspects: 0, count: 0, written: 0, unnamed: [] };
  for (;;) {
    const next = await spent.on('waiting for the reader', batches.next());
    if (next.done) {
      totals = next.value;
      break;
    }
    const wrote = await writeBatch(session, trx, run, next.value, { withItem, withDiscount, noPayments, bulk, spent, repeats });
    created += wrote.created;
    insertedKeys += wrote.insertedKeys;
    await yieldToEventLoop();
    await reportProgress(database, accountId, importId, Math.min(80, Math.floor((next.value.seen / Math.max(1, run.total)) * 80)));
  }
  // Nothing but a header (or nothing the reader could cut into rows): never 'done' with nothing.
  if (totals.valid + repeats.written + totals.failed + repeats.count === 0) throw new Error(totals.seen > 0 ? NO_DATA_ROWS : EMPTY_FILE);
  steps.done('read, validate and write new payments');
  // Open-ended rows that would overlap another open-ended payment of the customer's product are taken back and reported.
  const overlapping = await refuseOverlappingOpenRows(trx, run);
  created -= overlapping.created;
  const validCount = totals.valid + repeats.written - overlapping.refused;
  const failedCount = totals.failed + repeats.count + overlapping.refused;
  if (overlapping.refused > 0) steps.done('open-ended overlaps');
  if (repeats.unnamed.length > 0) {
    await nameFirstRows(session, trx, plan, repeats.unnamed);
    steps.done('name the rows repeated');
  }
  Object.assign(steps.times, spent.times);
  // What the skipped statement triggers of customers, products, payments and payment_items would have done.
  if (bulk && (created > 0 || insertedKeys > 0)) await sql`select raise_data_version(array[${accountId}]::text[])`.execute(trx);
  await auditImport(trx, accountId, importId, 'validation finished', 'in_progress', {
    valid: validCount,
    failed: failedCount,
    slash_dates: context.slashOrder ?? 'refused when ambiguous',
    decimal_separator: context.decimalMark ?? 'refused when ambiguous',
    // Rows the reader's filter could not clear, settled against what the import had written.
    suspects: repeats.suspects,
    false_alarms: repeats.written,
  });
  await reportProgress(database, accountId, importId, 85);
  // From here the transaction holds the import's row: no more progress from beside it.
  await setImportStatus(trx, accountId, importId, 'finalizing', 'commit started', {}, { progress: 85 });
  await sql`analyze import_stage`.execute(trx);

  const updated = await commitChanges(trx, run, steps);
  const failed = await listFailures(trx, accountId, importId, run.delimiter);
  const result: SubscriptionImportResult = {
    status: 'done',
    success_count: validCount,
    failure_count: failed.count,
    created,
    updated,
    unchanged: validCount - created - updated,
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
  await auditImport(trx, accountId, importId, 'committed', 'done', { created: result.created, updated: result.updated, unchanged: result.unchanged, failed: result.failure_count, ms: steps.times });
  // The file and the failed rows have served: the result keeps the failures.
  await trx.deleteFrom('import_files').where('account_id', '=', accountId).where('import_id', '=', importId).execute();
  await trx.deleteFrom('import_rows').where('account_id', '=', accountId).where('import_id', '=', importId).execute();
  return result;
}

/** A positive whole number from an environment variable (the tests' smaller batches and filter), or undefined. */
function positiveIntegerFrom(value: string | undefined): number | undefined {
  const number = Number(value);
  return value && Number.isInteger(number) && number > 0 ? number : undefined;
}

/**
 * The rows the reader set apart as suspects (`suspects`), those that turned out to repeat a
 * payment an earlier batch wrote (`count`), and those written after all (`written`). `unnamed`: the first
 * repeats (as many as a result lists), whose message names the row they repeat once the
 * reading is over.
 */
interface Repeats {
  suspects: number;
  count: number;
  written: number;
  unnamed: { id: string; number: number }[];
}

/**
 * Settles a batch's suspects: a suspect whose payment this import has written (a new payment
 * with this import's id, or one it staged as existing) repeats it, and is reported; the others
 * are new to the file after all (the filter's false alarms), the first of each payment written,
 * a later one naming the same payment reported with that row. Answers the suspects to write,
 * and the failed rows' COPY text for import_rows.
 */
async function settleSuspects(
  trx: Transaction<DB>,
  run: ImportRun,
  suspects: readonly SuspectRow[],
  how: { noPayments: boolean; repeats: Repeats },
): Promise<{ keep: SuspectRow[]; failures: string }> {
  const { accountId, importId } = run;
  how.repeats.suspects += suspects.length;
  const ids = [...new Set(suspects.map((suspect) => suspect.id))];
  // By the primary key (see the existing payments' lookup in writeBatch).
  await sql`set local enable_seqscan = off`.execute(trx);
  const written = await sql<{ id: string }>`select id from payments where account_id = ${accountId} and id = any(${ids}::text[]) and import_id = ${importId}`.execute(trx);
  await sql`set local enable_seqscan = on`.execute(trx);
  const repeated = new Set(written.rows.map((row) => row.id));
  if (!how.noPayments) {
    const staged = await sql<{ id: string }>`select payment_id as id from import_stage where payment_id = any(${ids}::text[])`.execute(trx);
    for (const row of staged.rows) repeated.add(row.id);
  }
  const firstOf = new Map<string, number>();
  const keep: SuspectRow[] = [];
  let failures = '';
  for (const suspect of suspects) {
    const earlier = firstOf.get(suspect.id);
    if (!repeated.has(suspect.id) && earlier === undefined) {
      firstOf.set(suspect.id, suspect.number);
      keep.push(suspect);
      continue;
    }
    failures += failureLine(accountId, importId, suspect.number, suspect.cells, earlier === undefined ? REPEAT_OF_EARLIER_BATCH : repeatMessage(earlier));
    how.repeats.count++;
    if (earlier === undefined && how.repeats.unnamed.length < LISTED_FAILURES) how.repeats.unnamed.push({ id: suspect.id, number: suspect.number });
  }
  how.repeats.written += keep.length;
  return { keep, failures };
}

/**
 * Names, in the message of each repeat of an earlier batch's payment, the row it repeats: the
 * first valid row naming that payment, found by reading the file again (up to the last of them).
 */
async function nameFirstRows(session: Session, trx: Transaction<DB>, plan: BatchPlan, unnamed: readonly { id: string; number: number }[]): Promise<void> {
  const found = await firstRowsInWorker(plan, [...new Set(unnamed.map((repeat) => repeat.id))], storedFile(session, plan.accountId, plan.importId));
  const named = unnamed.filter((repeat) => found.has(repeat.id));
  if (named.length === 0) return;
  await sql`update import_rows r set error = m.error
              from unnest(${named.map((repeat) => repeat.number)}::int[], ${named.map((repeat) => repeatMessage(found.get(repeat.id) as number))}::text[]) as m(row_number, error)
             where r.account_id = ${plan.accountId} and r.import_id = ${plan.importId} and r.row_number = m.row_number`.execute(trx);
}

/**
 * Lets the event loop serve requests between batches: PGlite answers on this thread and its
 * promises resolve as microtasks, so the job would otherwise hold every request (the upload's
 * own answer included) until it ends.
 */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Milliseconds of each step of a run (the 'committed' audit entry keeps them, for support and the benchmark). */
class Steps {
  readonly times: Record<string, number> = {};
  private last = performance.now();
  done(step: string): void {
    const now = performance.now();
    this.times[step] = Math.round(now - this.last);
    this.last = now;
  }
}

/** Milliseconds spent in each part of the batches' work, summed over the batches (kept with the steps). */
class Spent {
  readonly times: Record<string, number> = {};
  async on<T>(part: string, work: Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work;
    } finally {
      this.times[part] = Math.round((this.times[part] ?? 0) + performance.now() - started);
    }
  }
}

/**
 * Progress while the file is read, written beside the transaction so a poll sees it. Only on
 * PostgreSQL: PGlite has one connection, and the transaction holds it.
 */
async function reportProgress(database: Database, accountId: string, importId: string, progress: number): Promise<void> {
  if (database.kind !== 'postgresql') return;
  await database.kysely.updateTable('imports').set({ progress, updated_at: new Date() }).where('account_id', '=', accountId).where('id', '=', importId).execute();
}

/**
 * One batch from the reader, in the import's transaction: its new customers and products,
 * then COPY of the rows whose payment is new into payments (and their items), of the rows
 * whose payment exists into import_stage, for the change check at the end, and of its failed
 * rows into import_rows. Answers how many payments it created.
 */
async function writeBatch(
  session: Session,
  trx: Transaction<DB>,
  run: ImportRun,
  batch: ParsedBatch,
  how: { withItem: boolean; withDiscount: boolean; noPayments: boolean; bulk: boolean; spent: Spent; repeats: Repeats },
): Promise<{ created: number; insertedKeys: number }> {
  const { accountId } = run;
  let insertedKeys = 0;
  // Every reference of what this batch writes to customers, products, payments and
  // payment_items is checked and locked here (customers, products) or at the start (account,
  // import), and the items name their own new payments: the row triggers of these writes (one
  // foreign-key check per reference per row, and the statement triggers that raise
  // data_version, raised once at the end instead) are skipped.
  if (how.bulk) await sql`set local session_replication_role = replica`.execute(trx);
  if (batch.customerCount > 0) insertedKeys += await how.spent.on('customers', ensureBatchKeys(session, trx, 'customers', batch.customers, accountId, how.bulk));
  const settled = batch.suspects.length > 0 ? await how.spent.on('suspects', settleSuspects(trx, run, batch.suspects, how)) : { keep: [], failures: '' };
  const suspects = settled.keep;
  let products = '';
  for (const suspect of suspects) if (suspect.productKey !== null) products += keyLine(suspect.productKey, suspect.productKey);
  if (batch.productCount > 0 || products) insertedKeys += await how.spent.on('products', ensureBatchKeys(session, trx, 'products', concatenated(batch.products, products), accountId, how.bulk));
  let payments: string | Uint8Array = batch.payments ?? '';
  let items: string | Uint8Array = batch.items ?? '';
  let discounts: string | Uint8Array = batch.discounts ?? '';
  let staged = '';
  let opens = batch.opens;
  for (const suspect of suspects) opens += suspect.openLine;
  let created = batch.valid + suspects.length;
  if (how.noPayments && suspects.length > 0) {
    // The suspects written after all, after the batch's text (one COPY each).
    const more = { payments: '', items: '', discounts: '' };
    for (const suspect of suspects) {
      more.payments += suspect.paymentLine;
      more.items += suspect.itemLine ?? '';
      more.discounts += suspect.discountLine;
    }
    payments = concatenated(payments, more.payments);
    items = concatenated(items, more.items);
    discounts = concatenated(discounts, more.discounts);
  }
  if (!how.noPayments) {
    const ids = [...(batch.ids ?? []), ...suspects.map((suspect) => suspect.id)];
    const paymentLines = [...(batch.paymentLines ?? []), ...suspects.map((suspect) => suspect.paymentLine)];
    const itemLines = [...(batch.itemLines ?? []), ...suspects.map((suspect) => suspect.itemLine ?? '')];
    const discountLines = [...(batch.discountLines ?? []), ...suspects.map((suspect) => suspect.discountLine)];
    const stageLines = [...(batch.stageLines ?? []), ...suspects.map((suspect) => suspect.stageLine)];
    // By the primary key: the statistics still describe the table as it was before this
    // transaction's batches, and a planner that thinks it small scans it whole, every batch.
    const existing = await how.spent.on(
      'existing payments',
      (async () => {
        await sql`set local enable_seqscan = off`.execute(trx);
        const found = await sql<{ id: string }>`select id from payments where account_id = ${accountId} and id = any(${ids}::text[])`.execute(trx);
        await sql`set local enable_seqscan = on`.execute(trx);
        return found;
      })(),
    );
    const exists = new Set(existing.rows.map((row) => row.id));
    created = 0;
    for (let k = 0; k < ids.length; k++) {
      if (exists.has(ids[k] as string)) {
        staged += stageLines[k] ?? '';
        continue;
      }
      created++;
      payments += paymentLines[k] ?? '';
      if (how.withItem) items += itemLines[k] ?? '';
      if (how.withDiscount) discounts += discountLines[k] ?? '';
    }
  }
  if (payments.length > 0) {
    await how.spent.on('copy payments', session.copyIn('payments', PAYMENT_COLUMNS, payments));
    if (items.length > 0) await how.spent.on('copy items', session.copyIn('payment_items', ITEM_COLUMNS, items));
    if (discounts.length > 0) await how.spent.on('copy discounts', session.copyIn('payment_discounts', DISCOUNT_COLUMNS, discounts));
  }
  if (how.bulk) await sql`set local session_replication_role = origin`.execute(trx);
  if (staged) await how.spent.on('copy existing', session.copyIn('import_stage', STAGE_COLUMNS, staged));
  if (opens) await how.spent.on('copy open-ended', session.copyIn('import_open_rows', OPEN_COLUMNS, opens));
  const failures = concatenated(batch.failures, settled.failures);
  if (failures.length > 0) await how.spent.on('copy failures', session.copyIn('import_rows', FAILURE_COLUMNS, failures));
  return { created, insertedKeys };
}

/** COPY text with more lines after it. */
function concatenated(text: string | Uint8Array, more: string): string | Uint8Array {
  if (more === '') return text;
  if (typeof text === 'string') return text + more;
  const tail = new TextEncoder().encode(more);
  const out = new Uint8Array(text.length + tail.length);
  out.set(text);
  out.set(tail, text.length);
  return out;
}

/** rowTriggersSkippable (server/db/rowTriggers.ts), unless SUBSCOPE_IMPORT_ROW_TRIGGERS=always keeps them on. */
async function importMaySkipRowTriggers(trx: Transaction<DB>): Promise<boolean> {
  if (process.env.SUBSCOPE_IMPORT_ROW_TRIGGERS === 'always') return false;
  return rowTriggersSkippable(trx);
}

/**
 * The keys of one batch's new customers or products (COPY text of key and name), made to exist
 * through the batch's key table (`import_batch_customers`, `import_batch_products`), set-based:
 * the reader's lines are never strings here. Answers how many it inserted.
 */
async function ensureBatchKeys(session: Session, trx: Transaction<DB>, kind: 'customers' | 'products', lines: string | Uint8Array, accountId: string, lock: boolean): Promise<number> {
  const staged = kind === 'customers' ? 'import_batch_customers' : 'import_batch_products';
  await sql`truncate ${sql.table(staged)}`.execute(trx);
  await session.copyIn(staged, ['id', 'name'], lines);
  return ensureReferenced(
    lock,
    async () => {
      // The ones not yet there (a key named twice is inserted once; a conflict, already there, is left to the lock).
      const insert =
        kind === 'customers'
          ? sql`insert into customers (account_id, id, name, source) select distinct on (b.id) ${accountId}, b.id, b.name, 'csv_import' from import_batch_customers b where not b.present
                on conflict (account_id, id) do nothing returning id`
          : sql`insert into products (account_id, key, name) select distinct on (b.id) ${accountId}, b.id, b.name from import_batch_products b where not b.present
                on conflict (account_id, key) do nothing returning key as id`;
      const inserted = await sql<{ n: string }>`with inserted as (${insert}),
                 marked as (update ${sql.table(staged)} b set present = true from inserted where b.id = inserted.id returning b.id)
            select count(distinct id) as n from marked`.execute(trx);
      return Number(inserted.rows[0]?.n ?? 0);
    },
    async () => {
      // The ones that were there, locked as a foreign-key check would lock them.
      const existing =
        kind === 'customers'
          ? sql`select c.id from customers c join import_batch_customers b on c.account_id = ${accountId} and c.id = b.id where not b.present for key share of c`
          : sql`select p.key as id from products p join import_batch_products b on p.account_id = ${accountId} and p.key = b.id where not b.present for key share of p`;
      await sql`with locked as (${existing}) update ${sql.table(staged)} b set present = true from locked where b.id = locked.id`.execute(trx);
      const missing = await sql<{ n: string }>`select count(distinct id) as n from ${sql.table(staged)} where not present`.execute(trx);
      return Number(missing.rows[0]?.n ?? 0);
    },
  );
}

/**
 * Makes every key of a batch exist and, when the row triggers are skipped, hold a KEY SHARE
 * lock for this transaction, as a foreign-key check would: a key this transaction inserts is
 * its own; one that existed is locked, so no one deletes it before the commit. A key deleted by
 * someone else between the insert and the lock is inserted again. `insertMissing` answers how
 * many it inserted, `lockExisting` how many keys are still neither inserted nor locked.
 * Answers how many were inserted.
 */
export async function ensureReferenced(lock: boolean, insertMissing: () => Promise<number>, lockExisting: () => Promise<number>): Promise<number> {
  let insertedCount = 0;
  for (let attempt = 0; attempt < 3; attempt++) {
    insertedCount += await insertMissing();
    if (!lock) return insertedCount;
    if ((await lockExisting()) === 0) return insertedCount;
  }
  throw new Error('Customers or products of this import kept being deleted while it ran');
}

/**
 * Open-ended rows of the file that would leave a customer with two open-ended payments of the
 * same product (both would count in every month from the later start on), set-based once the
 * whole file is written: a row is refused when the customer has a LATER open-ended payment of
 * the product (another row of the file, or one already stored that the file does not touch),
 * or when an EARLIER one is stored and the file does not end it. The rows refused are taken
 * back (a new payment deleted, a staged change dropped) and reported with their row numbers.
 * Answers how many rows were refused and how many of them had created a payment.
 */
async function refuseOverlappingOpenRows(trx: Transaction<DB>, run: ImportRun): Promise<{ refused: number; created: number }> {
  const { accountId, importId } = run;
  const any = await sql`select 1 from import_open_rows limit 1`.execute(trx);
  if (any.rows.length === 0) return { refused: 0, created: 0 };
  const productOf = (payment: string) =>
    sql`(select i.product_key from payment_items i where i.account_id = ${accountId} and i.payment_id = ${sql.ref(payment)} order by i.position limit 1)`;
  // The file's open-ended rows: payments this import created (the only ones with its import_id yet), or changes staged for existing ones.
  await sql`create temporary table import_open_file on commit drop as
            select o.payment_id, o.row_number, o.cells, p.customer_id, p.started_at, ${productOf('p.id')} as product_key, true as created
              from import_open_rows o join payments p on p.account_id = ${accountId} and p.id = o.payment_id and p.import_id = ${importId}
            union all
            select o.payment_id, o.row_number, o.cells, s.customer_id, s.started_at, s.product_key, false
              from import_open_rows o join import_stage s on s.payment_id = o.payment_id`.execute(trx);
  // The open-ended payments already stored that the file leaves as they are.
  await sql`create temporary table import_open_stored on commit drop as
            select p.id as payment_id, p.customer_id, p.started_at, ${productOf('p.id')} as product_key
              from payments p
             where p.account_id = ${accountId} and p.ended_at is null and p.deleted_at is null and p.import_id is distinct from ${importId}
               and p.customer_id in (select customer_id from import_open_file)
               and not exists (select from import_stage s where s.payment_id = p.id)`.execute(trx);
  const refused = await sql<{ payment_id: string; created: boolean }>`
    with checked as (
      select f.payment_id, f.row_number, f.cells, f.created,
             (select g.row_number from import_open_file g
               where g.customer_id = f.customer_id and g.product_key is not distinct from f.product_key and g.started_at > f.started_at
               order by g.started_at, g.row_number limit 1) as later_row,
             (select to_char(t.started_at, 'YYYY-MM-DD') from import_open_stored t
               where t.customer_id = f.customer_id and t.product_key is not distinct from f.product_key and t.started_at > f.started_at
               order by t.started_at limit 1) as later_stored,
             (select to_char(t.started_at, 'YYYY-MM-DD') from import_open_stored t
               where t.customer_id = f.customer_id and t.product_key is not distinct from f.product_key and t.started_at < f.started_at
               order by t.started_at desc limit 1) as earlier_stored
        from import_open_file f
    ),
    refused as (
      select payment_id, row_number, cells, created,
             case when later_row is not null then 'Open-ended, but row ' || later_row || ' starts a later open-ended payment of the same customer and product: give this row its Ended at'
                  when later_stored is not null then 'Open-ended, but the customer already has a later open-ended payment of the same product (started ' || later_stored || '): give this row its Ended at'
                  else 'Open-ended, but the customer already has an open-ended payment of the same product since ' || earlier_stored || ': end that one first (import it again with its Ended at)' end as error
        from checked
       where later_row is not null or later_stored is not null or earlier_stored is not null
    ),
    reported as (
      insert into import_rows (account_id, import_id, row_number, cells, error)
      select ${accountId}, ${importId}, row_number, cells, error from refused
      returning row_number
    )
    select payment_id, created from refused`.execute(trx);
  if (refused.rows.length === 0) return { refused: 0, created: 0 };
  const created = refused.rows.filter((row) => row.created).map((row) => row.payment_id);
  const staged = refused.rows.filter((row) => !row.created).map((row) => row.payment_id);
  // Items and discounts go with their payment (on delete cascade).
  if (created.length > 0) await sql`delete from payments where account_id = ${accountId} and import_id = ${importId} and id = any(${created}::text[])`.execute(trx);
  if (staged.length > 0) await sql`delete from import_stage where payment_id = any(${staged}::text[])`.execute(trx);
  return { refused: refused.rows.length, created: created.length };
}

/**
 * The rows whose payment existed (import_stage), set-based: whether each changes its payment,
 * and for those that do, the version the payment had goes to payment_versions before the row,
 * its items and discounts are rewritten. Answers how many payments changed.
 */
async function commitChanges(trx: Transaction<DB>, run: ImportRun, steps: Steps): Promise<number> {
  const { accountId, importId } = run;
  // The rows whose payment exists, and whether the row changes it.
  const items = sql`coalesce((select jsonb_agg(jsonb_build_object('product_key', i.product_key, 'type', i.type, 'quantity', i.quantity) order by i.position)
                                from payment_items i where i.account_id = p.account_id and i.payment_id = p.id), '[]'::jsonb)`;
  const discounts = sql`coalesce((select jsonb_agg(jsonb_build_object('kind', d.kind, 'monthly_amount', d.monthly_amount, 'name', d.name, 'months', d.months) order by d.position)
                                    from payment_discounts d where d.account_id = p.account_id and d.payment_id = p.id), '[]'::jsonb)`;
  // A payment written before monthly_amount existed has it null: its monthly amount is total / months.
  await sql`create temporary table import_existing on commit drop as
            select s.payment_id,
                   p.deleted_at is not null
                   or (p.customer_id, p.started_at, p.ended_at, p.duration_in_months, p.total_value, p.currency, coalesce(p.invoice_number, ''))
                      is distinct from (s.customer_id, s.started_at, s.ended_at, s.duration_in_months, s.total_value, s.currency, coalesce(s.invoice_number, ''))
                   or coalesce(p.monthly_amount, p.total_value::double precision / p.duration_in_months) is distinct from s.monthly_amount
                   or ${items} is distinct from
                      (case when s.product_key is null then '[]'::jsonb
                            else jsonb_build_array(jsonb_build_object('product_key', s.product_key, 'type', s.item_type, 'quantity', s.quantity)) end)
                   or ${discounts} is distinct from
                      (case when s.discount_kind is null then '[]'::jsonb
                            else jsonb_build_array(jsonb_build_object('kind', s.discount_kind, 'monthly_amount', s.discount_amount, 'name', null, 'months', s.discount_months)) end) as changed
              from import_stage s join payments p on p.account_id = ${accountId} and p.id = s.payment_id`.execute(trx);
  await sql`analyze import_existing`.execute(trx);
  steps.done('check existing payments');

  // Changed payments: the version they had goes to payment_versions, then the row is rewritten.
  await sql`insert into payment_versions (account_id, payment_id, version, customer_id, started_at, ended_at, duration_in_months, total_value,
              monthly_amount, currency, invoice_number, items, discounts, deleted, valid_from, valid_to, recorded_at, recorded_by_user_id)
            select p.account_id, p.id, p.version, p.customer_id, p.started_at, p.ended_at, p.duration_in_months, p.total_value, p.monthly_amount, p.currency,
                   p.invoice_number, ${items}, ${discounts}, p.deleted_at is not null, f.valid_from, greatest(now(), f.valid_from), p.updated_at,
                   (select i.created_by_user_id from imports i where i.account_id = p.account_id and i.id = p.import_id)
              from import_existing e
              join payments p on p.account_id = ${accountId} and p.id = e.payment_id
              cross join lateral (select coalesce((select max(v.valid_to) from payment_versions v where v.account_id = p.account_id and v.payment_id = p.id),
                                                  p.created_at) as valid_from) f
             where e.changed`.execute(trx);
  const updated = await sql`update payments p set customer_id = s.customer_id, version = p.version + 1, started_at = s.started_at, ended_at = s.ended_at,
                   duration_in_months = s.duration_in_months, total_value = s.total_value, monthly_amount = s.monthly_amount,
                   currency = s.currency, invoice_number = s.invoice_number,
                   deleted_at = null, import_id = ${importId}, updated_at = now()
              from import_existing e join import_stage s on s.payment_id = e.payment_id
             where e.changed and p.account_id = ${accountId} and p.id = e.payment_id`.execute(trx);
  await sql`delete from payment_items i using import_existing e where e.changed and i.account_id = ${accountId} and i.payment_id = e.payment_id`.execute(trx);
  await sql`delete from payment_discounts d using import_existing e where e.changed and d.account_id = ${accountId} and d.payment_id = e.payment_id`.execute(trx);
  await sql`insert into payment_items (account_id, payment_id, position, product_key, type, quantity)
            select ${accountId}, s.payment_id, 0, s.product_key, s.item_type, s.quantity
              from import_existing e join import_stage s on s.payment_id = e.payment_id
             where e.changed and s.product_key is not null`.execute(trx);
  await sql`insert into payment_discounts (account_id, payment_id, position, kind, monthly_amount, months)
            select ${accountId}, s.payment_id, 0, s.discount_kind, s.discount_amount, s.discount_months
              from import_existing e join import_stage s on s.payment_id = e.payment_id
             where e.changed and s.discount_kind is not null`.execute(trx);
  steps.done('changed payments');

  return Number(updated.numAffectedRows ?? 0);
}
