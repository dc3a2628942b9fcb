import type { FastifyInstance } from 'fastify';
import { sql, type Kysely, type Transaction } from 'kysely';
import { COST_ATTRIBUTE_NOT_FOUND, COST_MAPPING_DATE_REQUIRED, COST_MAPPING_VALUE_REQUIRED, COST_TEXT_MAX, newCostId } from '../../models/costs';
import { currencyDigits } from '../../models/money';
import type { DB } from '../db/schema';
import { ApiError } from '../http/errors';
import { auditImport } from '../imports/auditLog';
import { decimalMarkEvidence, parseDate, parseMoney, slashOrderEvidence, type DateOrder, type DecimalMark } from '../imports/csv/values';
import { expired, NO_DATA_ROWS, UPLOAD_EXPIRED } from '../imports/messages';
import { extraCellsMessage } from '../imports/rowWidth';
import { listFailures } from '../imports/subscriptionImport';
import { discard } from '../imports/upload';
import { afterChange } from '../customers/changes';
import { costAttributes } from './costs';

/**
 * The cost CSV import (docs/costs.md "Import"): an upload staged row by row (`import_rows`,
 * server/imports/staging.ts), then a mapping of its columns, then the import itself, run inside
 * the finalize request: every staged row read in batches (never the whole file in memory), each
 * checked with its row number, and every valid one written, in ONE transaction that also marks
 * the import done, so a crash leaves nothing of it (the import still waits for its mapping and
 * can be finalized again). Refused rows are listed with their number and why.
 */

export const COST_IMPORT_NOT_FOUND = 'Import not found';
export const COST_IMPORT_NOT_WAITING = 'This import is not waiting for its mapping';
export const COST_MAPPING_BEYOND = 'The file has no such column';

/** Rows read and written at a time. */
const BATCH = 1_000;

export interface CostMapping {
  skip_headers: boolean;
  value?: number | null;
  currency?: number | null;
  date?: number | null;
  due_date?: number | null;
  invoice_number?: number | null;
  name?: number | null;
  /** Attribute id -> column. */
  attributes?: Record<string, number>;
}

interface Columns {
  value: number;
  date: number;
  currency: number | null;
  due_date: number | null;
  invoice_number: number | null;
  name: number | null;
  attributes: [string, number][];
}

interface Context {
  accountCurrency: string;
  known: Set<string>;
  slashOrder: DateOrder | null;
  decimalMark: DecimalMark | null;
}

interface CostRow {
  id: string;
  value: number;
  currency: string;
  date: string;
  due_date: string | null;
  invoice_number: string | null;
  name: string | null;
  attributes: [string, string][];
}

const cellAt = (cells: readonly string[], column: number | null) => (column === null ? '' : (cells[column] ?? '').replaceAll('\u0000', '').trim());

/** One row as a cost, or why it is refused ("Row 3: Date '31/31/2024' is not a date"). */
export function costOfRow(number: number, cells: readonly string[], columns: Columns, context: Context): CostRow | string {
  const problems: string[] = [];
  let currency = cellAt(cells, columns.currency).toUpperCase();
  if (currency === '') currency = context.accountCurrency;
  else if (!context.known.has(currency)) problems.push(`Currency '${currency}' is not a known currency`);
  const valueText = cellAt(cells, columns.value);
  let value = 0;
  if (valueText === '') problems.push('Cost value is required');
  else {
    const money = parseMoney(valueText, currencyDigits(currency), context.decimalMark);
    if (!money.ok) problems.push(`Value '${valueText}' ${money.reason}`);
    else if (money.minor < 0) problems.push(`Value '${valueText}' is negative`);
    else value = money.minor;
  }
  const dateText = cellAt(cells, columns.date);
  let date = '';
  if (dateText === '') problems.push('Date is required');
  else {
    const parsed = parseDate(dateText, context.slashOrder);
    if (parsed.ok) date = parsed.iso;
    else problems.push(`Date '${dateText}' ${parsed.reason}`);
  }
  const dueText = cellAt(cells, columns.due_date);
  let dueDate: string | null = null;
  if (dueText !== '') {
    const parsed = parseDate(dueText, context.slashOrder);
    if (parsed.ok) dueDate = parsed.iso;
    else problems.push(`Due date '${dueText}' ${parsed.reason}`);
  }
  const text = (label: string, column: number | null) => {
    const cell = cellAt(cells, column);
    if (cell.length > COST_TEXT_MAX) problems.push(`${label} is longer than ${COST_TEXT_MAX} characters`);
    return cell === '' ? null : cell;
  };
  const invoiceNumber = text('Invoice number', columns.invoice_number);
  const name = text('Name', columns.name);
  const attributes: [string, string][] = [];
  for (const [id, column] of columns.attributes) {
    const cell = text('An attribute value', column);
    if (cell !== null) attributes.push([id, cell]);
  }
  if (problems.length > 0) return `Row ${number}: ${problems.join('; ')}`;
  return { id: newCostId(), value, currency, date, due_date: dueDate, invoice_number: invoiceNumber, name, attributes };
}

/** The staged rows after `after`, in row order, at most BATCH. */
function batchAfter(trx: Kysely<DB>, accountId: string, importId: string, after: number) {
  return trx
    .selectFrom('import_rows')
    .select(['row_number', 'cells'])
    .where('account_id', '=', accountId)
    .where('import_id', '=', importId)
    .where('row_number', '>', after)
    .orderBy('row_number')
    .limit(BATCH)
    .execute();
}

/** What the file's own cells prove about its slash dates and decimal separator (one each, or none). */
async function evidence(trx: Kysely<DB>, accountId: string, importId: string, columns: Columns, first: number): Promise<{ slashOrder: DateOrder | null; decimalMark: DecimalMark | null }> {
  const orders = new Set<DateOrder>();
  const marks = new Set<DecimalMark>();
  for (let after = first; ; ) {
    const rows = await batchAfter(trx, accountId, importId, after);
    if (rows.length === 0) break;
    for (const row of rows) {
      for (const column of [columns.date, columns.due_date]) {
        const order = slashOrderEvidence(cellAt(row.cells, column));
        if (order) orders.add(order);
      }
      const mark = decimalMarkEvidence(cellAt(row.cells, columns.value));
      if (mark) marks.add(mark);
    }
    after = (rows.at(-1) as { row_number: number }).row_number;
  }
  return { slashOrder: orders.size === 1 ? ([...orders][0] as DateOrder) : null, decimalMark: marks.size === 1 ? ([...marks][0] as DecimalMark) : null };
}

export interface CostImportResult {
  status: 'done';
  success_count: number;
  failure_count: number;
  failures: { row_number: number; row: string; message: string }[];
}

/** Checks the mapping against the import and the account (422/404 with pointers into the body). */
async function columnsOf(db: Kysely<DB>, accountId: string, mapping: CostMapping, width: number): Promise<Columns> {
  if (typeof mapping.value !== 'number') throw ApiError.of(422, COST_MAPPING_VALUE_REQUIRED, '/body/value');
  if (typeof mapping.date !== 'number') throw ApiError.of(422, COST_MAPPING_DATE_REQUIRED, '/body/date');
  const optional = (field: 'currency' | 'due_date' | 'invoice_number' | 'name') => (typeof mapping[field] === 'number' ? (mapping[field] as number) : null);
  const columns: Columns = {
    value: mapping.value,
    date: mapping.date,
    currency: optional('currency'),
    due_date: optional('due_date'),
    invoice_number: optional('invoice_number'),
    name: optional('name'),
    attributes: Object.entries(mapping.attributes ?? {}),
  };
  for (const field of ['value', 'date', 'currency', 'due_date', 'invoice_number', 'name'] as const) {
    const column = columns[field];
    if (column !== null && column >= width) throw ApiError.of(422, COST_MAPPING_BEYOND, `/body/${field}`);
  }
  const known = new Set((await costAttributes(db, accountId)).map((attribute) => attribute.id));
  for (const [id, column] of columns.attributes) {
    if (!known.has(id)) throw ApiError.of(404, COST_ATTRIBUTE_NOT_FOUND, `/body/attributes/${id.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    if (column >= width) throw ApiError.of(422, COST_MAPPING_BEYOND, `/body/attributes/${id}`);
  }
  return columns;
}

/**
 * Finalizes the import `importId` of the account with `mapping` and runs it (see above).
 * 404 for an import the account has not (of costs), 422 for one not waiting for its mapping or
 * a mapping without the value or the date column.
 */
export async function finalizeCostImport(app: FastifyInstance, accountId: string, importId: string, mapping: CostMapping): Promise<CostImportResult> {
  const db = app.db.kysely;
  const found = await db.selectFrom('imports').select(['id', 'status', 'total_rows', 'result']).where('account_id', '=', accountId).where('id', '=', importId).where('kind', '=', 'costs').executeTakeFirst();
  if (!found) throw ApiError.of(404, COST_IMPORT_NOT_FOUND, '/params/id');
  if (found.status !== 'preview') throw ApiError.of(422, expired(found.result) ? UPLOAD_EXPIRED : COST_IMPORT_NOT_WAITING, '/params/id');
  const widest = await db
    .selectFrom('import_rows')
    .select(sql<number>`coalesce(max(cardinality(cells)), 0)`.as('width'))
    .where('account_id', '=', accountId)
    .where('import_id', '=', importId)
    .executeTakeFirstOrThrow();
  const columns = await columnsOf(db, accountId, mapping, Number(widest.width));
  if (found.total_rows <= (mapping.skip_headers ? 1 : 0)) {
    await discard(db, accountId, importId, new Error(NO_DATA_ROWS));
    throw ApiError.of(422, NO_DATA_ROWS, '/body/skip_headers', 'no_rows');
  }
  const result = await db.transaction().execute((trx) => commit(trx, accountId, importId, mapping, columns));
  if (!result) throw ApiError.of(422, COST_IMPORT_NOT_WAITING, '/params/id');
  if (result.success_count > 0) await afterChange(app, accountId);
  return result;
}

async function commit(trx: Transaction<DB>, accountId: string, importId: string, mapping: CostMapping, columns: Columns): Promise<CostImportResult | null> {
  // The import's row locked: a second finalize (or the hourly expiry) waits, then finds it done.
  const current = await trx.selectFrom('imports').select(['status', 'delimiter']).where('account_id', '=', accountId).where('id', '=', importId).forUpdate().executeTakeFirst();
  if (!current || current.status !== 'preview') return null;
  const delimiter = current.delimiter ?? ',';
  await trx
    .updateTable('imports')
    .set({ column_mapping: JSON.stringify(mapping), skip_headers: mapping.skip_headers, status: 'finalizing', updated_at: new Date() })
    .where('account_id', '=', accountId)
    .where('id', '=', importId)
    .execute();
  await auditImport(trx, accountId, importId, 'commit started', 'finalizing', { mapping: JSON.parse(JSON.stringify(mapping)) as Record<string, never> });

  const head = await trx.selectFrom('import_rows').select(['row_number', 'cells']).where('account_id', '=', accountId).where('import_id', '=', importId).orderBy('row_number').limit(1).executeTakeFirst();
  const width = head?.cells.length ?? 0;
  // A header row is not a cost: reading starts after it.
  const start = mapping.skip_headers && head ? head.row_number : 0;
  const account = await trx.selectFrom('accounts').select('currency').where('id', '=', accountId).executeTakeFirstOrThrow();
  const known = new Set((await trx.selectFrom('currencies').select('iso').execute()).map((row) => row.iso));
  const context: Context = { accountCurrency: account.currency, known, ...(await evidence(trx, accountId, importId, columns, start)) };

  let written = 0;
  for (let after = start; ; ) {
    const rows = await batchAfter(trx, accountId, importId, after);
    if (rows.length === 0) break;
    after = (rows.at(-1) as { row_number: number }).row_number;
    const costs: CostRow[] = [];
    const refused: { n: number; e: string }[] = [];
    for (const row of rows) {
      const wide = extraCellsMessage(row.row_number, row.cells, width, mapping.skip_headers, delimiter);
      const cost = wide ?? costOfRow(row.row_number, row.cells, columns, context);
      if (typeof cost === 'string') refused.push({ n: row.row_number, e: cost });
      else costs.push(cost);
    }
    if (costs.length > 0) {
      await trx
        .insertInto('costs')
        .values(costs.map((cost) => ({ account_id: accountId, id: cost.id, name: cost.name, value: cost.value, currency: cost.currency, date: cost.date, due_date: cost.due_date, invoice_number: cost.invoice_number, source: 'csv', import_id: importId })))
        .execute();
      const values = costs.flatMap((cost) => cost.attributes.map(([attribute, value]) => ({ account_id: accountId, cost_id: cost.id, attribute_id: attribute, value })));
      for (let at = 0; at < values.length; at += BATCH) await trx.insertInto('cost_segment_values').values(values.slice(at, at + BATCH)).execute();
      written += costs.length;
    }
    if (refused.length > 0) {
      await sql`update import_rows r set error = t.e
                  from unnest(${refused.map((row) => row.n)}::int[], ${refused.map((row) => row.e)}::text[]) as t(n, e)
                 where r.account_id = ${accountId} and r.import_id = ${importId} and r.row_number = t.n`.execute(trx);
    }
  }

  const failed = await listFailures(trx, accountId, importId, delimiter);
  const result: CostImportResult = { status: 'done', success_count: written, failure_count: failed.count, failures: failed.listed };
  await trx
    .updateTable('imports')
    .set({ status: 'done', progress: 100, success_count: written, failure_count: failed.count, result: JSON.stringify(result), finished_at: new Date(), updated_at: new Date() })
    .where('account_id', '=', accountId)
    .where('id', '=', importId)
    .execute();
  await auditImport(trx, accountId, importId, 'committed', 'done', { written, failed: failed.count });
  await trx.deleteFrom('import_rows').where('account_id', '=', accountId).where('import_id', '=', importId).execute();
  return result;
}
