import { sql, type Kysely, type Selectable } from 'kysely';
import type { ColumnFetcher } from '../../models/customerColumns';
import type { compileFormula } from '../../models/customerFormula';
import { copyText } from '../db/copyText';
import type { Database } from '../db/database';
import type { CustomerColumnDefinitionsTable, DB } from '../db/schema';
import { createConverter, type Converter } from '../metrics/currency';
import { customerPieces } from '../metrics/customerMetrics';
import { absoluteMonth, dayFromIso, firstDayOfMonth, lastDayOfAbsoluteMonth, monthOfDay } from '../metrics/days';
import { mrrOnDay } from '../metrics/definitions/unitFigures';
import { roundHalfEven } from '../metrics/money';
import type { MetricsService } from '../metrics/service';
import { resolveMetricsSettings, type MetricsSettings } from '../metrics/settings';
import type { AccountSnapshot } from '../metrics/snapshot/columns';

/**
 * Calculated customer columns (docs/customer-columns.md): the stored definitions, the value of
 * each variable for every customer computed in one pass over the account's metrics snapshot,
 * the formula evaluated per customer, and the definition's rows in `customer_column_values`
 * brought to the new values in one transaction: only the rows that change are deleted and
 * written (COPY, so 100,000 customers are one statement); a null value has no row.
 */

/** A variable as stored (validated: every field set; an Mrr variable's end is its start). */
export interface ColumnVariable {
  fetcher: ColumnFetcher;
  name: string;
  start_month: number;
  start_year: number;
  end_month: number;
  end_year: number;
}

/** What the API answers for a definition (ColumnDefinition of the contract). */
export interface ColumnDefinitionView {
  id: string;
  name: string;
  formula: string;
  variables: ColumnVariable[];
  recalculation_status: 'in_progress' | 'finished';
  created_at: string;
  updated_at: string;
}

export type ColumnDefinitionRow = Selectable<CustomerColumnDefinitionsTable>;

export const COLUMN_DEFINITION_NOT_FOUND = 'Column not found';

export function definitionView(row: ColumnDefinitionRow): ColumnDefinitionView {
  return {
    id: row.id,
    name: row.name,
    formula: row.formula,
    variables: storedVariables(row.variables),
    recalculation_status: row.recalculation_status,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The stored variables (entries that are not variables left out: the column then has no value). */
export function storedVariables(value: unknown): ColumnVariable[] {
  if (!Array.isArray(value)) return [];
  return value.filter((entry): entry is ColumnVariable => {
    if (typeof entry !== 'object' || entry === null) return false;
    const v = entry as Record<string, unknown>;
    return (v.fetcher === 'BookedTotalContractValue' || v.fetcher === 'Mrr') && typeof v.name === 'string' && ['start_month', 'start_year', 'end_month', 'end_year'].every((key) => Number.isInteger(v[key]));
  });
}

export async function listDefinitions(db: Kysely<DB>, accountId: string): Promise<ColumnDefinitionRow[]> {
  return db.selectFrom('customer_column_definitions').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
}

export async function findDefinition(db: Kysely<DB>, accountId: string, id: string): Promise<ColumnDefinitionRow | undefined> {
  return db.selectFrom('customer_column_definitions').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

// ---------------------------------------------------------------------------------------
// Values

/** The day on which an Mrr variable of (year, month) is measured: the month's last day, today in the current month. */
export function mrrMeasureDay(year: number, month: number, today: number): number {
  const m = absoluteMonth(year, month);
  return m === monthOfDay(today) ? today : lastDayOfAbsoluteMonth(m);
}

/** Whether a definition's values depend on today (an Mrr variable of the current month). */
export function dependsOnToday(variables: readonly ColumnVariable[], today: number): boolean {
  const current = monthOfDay(today);
  return variables.some((v) => v.fetcher === 'Mrr' && absoluteMonth(v.start_year, v.start_month) === current);
}

/**
 * One variable for every customer of the snapshot (NaN: no value, e.g. no exchange rate). An
 * excluded customer (it or an ancestor has include_in_calculations_by_default false) counts
 * 0, as in its drawer; a customer is counted alone, not with its children.
 */
export function variableValues(snapshot: AccountSnapshot, variable: ColumnVariable, today: number, context: { settings: MetricsSettings; converter: Converter }): Float64Array {
  const { customers, records } = snapshot;
  const out = new Float64Array(customers.count);
  const { converter, settings } = context;
  if (variable.fetcher === 'Mrr') {
    const day = mrrMeasureDay(variable.start_year, variable.start_month, today);
    const pieces = customerPieces(snapshot, settings, today);
    for (let c = 0; c < customers.count; c++) {
      if (pieces.unitStart[c] === pieces.unitStart[c + 1]) continue;
      try {
        out[c] = mrrOnDay(snapshot, pieces, converter, c, day);
      } catch {
        out[c] = NaN;
      }
    }
    return out;
  }
  // BookedTotalContractValue: current, not deleted payment rows started in [first day of the start month, last day of the end month].
  const from = firstDayOfMonth(absoluteMonth(variable.start_year, variable.start_month));
  const to = lastDayOfAbsoluteMonth(absoluteMonth(variable.end_year, variable.end_month));
  const { customer: customerOf, startDay, totalValue, currency, current, deleted } = records;
  const { included } = customers;
  for (let r = 0; r < records.count; r++) {
    const day = startDay[r] as number;
    if (day < from || day > to || current[r] !== 1 || deleted[r] === 1) continue;
    const c = customerOf[r] as number;
    if (included[c] !== 1) continue;
    const k = currency[r] as number;
    let value: number;
    try {
      value = k === converter.reportCurrency ? (totalValue[r] as number) : roundHalfEven((totalValue[r] as number) * converter.factor(k, converter.rateDay(day, day)));
    } catch {
      value = NaN;
    }
    out[c] = (out[c] as number) + value;
  }
  return out;
}

export interface ColumnValues {
  /** Snapshot indices of the customers valued (not deleted). */
  customers: Int32Array;
  /** Their values; null: none (a variable without a value, a non-finite result). */
  values: (number | null)[];
}

/** Every (not deleted) customer's value of the formula over the variables, in one pass per variable. */
export function computeColumnValues(snapshot: AccountSnapshot, definition: { formula: string; variables: readonly ColumnVariable[] }, todayIso: string, compile: typeof compileFormula): ColumnValues {
  const today = dayFromIso(todayIso);
  const { customers } = snapshot;
  const settings = resolveMetricsSettings(snapshot.account);
  const converter = createConverter(snapshot, settings);
  const compiled = compile(definition.formula, definition.variables.map((v) => v.name));
  const ids = new Int32Array(customers.count);
  const values: (number | null)[] = [];
  let n = 0;
  if (!compiled.ok || definition.variables.length === 0) {
    for (let c = 0; c < customers.count; c++) {
      if (customers.deleted[c] === 1) continue;
      ids[n++] = c;
      values.push(null);
    }
    return { customers: ids.slice(0, n), values };
  }
  // Variables of one fetcher and range share their column.
  const byKey = new Map<string, Float64Array>();
  const columns = definition.variables.map((variable) => {
    const key = JSON.stringify([variable.fetcher, variable.start_year, variable.start_month, variable.end_year, variable.end_month]);
    let column = byKey.get(key);
    if (!column) {
      column = variableValues(snapshot, variable, today, { settings, converter });
      byKey.set(key, column);
    }
    return { name: variable.name, column };
  });
  const scope: Record<string, number> = {};
  for (let c = 0; c < customers.count; c++) {
    if (customers.deleted[c] === 1) continue;
    ids[n++] = c;
    let known = true;
    for (const { name, column } of columns) {
      const value = column[c] as number;
      if (Number.isNaN(value)) known = false;
      scope[name] = value;
    }
    values.push(known ? compiled.evaluate(scope) : null);
  }
  return { customers: ids.slice(0, n), values };
}

/** A value as stored (numeric text), or null. */
const storedValue = (value: number | null): string | null => (value === null ? null : String(value));

/**
 * What changes in a definition's stored rows: the customers whose row goes (changed, now
 * null, or no longer valued) and the COPY text (customer_column_values: account_id,
 * definition_id, customer_id, value) of the rows to write. A null value has no row (a missing
 * row reads as null), so only the values that differ from the stored ones are written.
 */
export function valueChanges(snapshot: AccountSnapshot, accountId: string, definitionId: string, computed: ColumnValues, stored: ReadonlyMap<string, number>): { remove: string[]; copy: string; written: number } {
  const prefix = `${copyText(accountId)}\t${copyText(definitionId)}\t`;
  const parts: string[] = [];
  const remove: string[] = [];
  const valued = new Set<string>();
  const { ids } = snapshot.customers;
  for (let i = 0; i < computed.customers.length; i++) {
    const id = ids[computed.customers[i] as number] as string;
    const value = computed.values[i] ?? null;
    const before = stored.get(id);
    if (value === null) continue;
    valued.add(id);
    if (before === value) continue;
    if (before !== undefined) remove.push(id);
    parts.push(`${prefix}${copyText(id)}\t${storedValue(value)}\n`);
  }
  for (const id of stored.keys()) if (!valued.has(id)) remove.push(id);
  return { remove, copy: parts.join(''), written: parts.length };
}

/** Where a recalculation's time went (the benchmark reports it), ms. */
export interface ColumnTimings {
  snapshotMs?: number;
  computeMs?: number;
  writeMs?: number;
}

/**
 * Recomputes one definition's values and replaces its rows, then marks it finished unless
 * `keepInProgress()` says another run follows (asked as the rows are written). False when the definition is gone.
 */
export async function recalculateColumn(database: Database, metrics: MetricsService, accountId: string, definitionId: string, now: Date, options: { keepInProgress?: () => boolean; timings?: ColumnTimings } = {}): Promise<boolean> {
  const db = database.kysely;
  const definition = await findDefinition(db, accountId, definitionId);
  if (!definition) return false;
  // Read before the snapshot: the snapshot is at this version or later, so a write in between makes the values stale, never wrongly fresh.
  const account = await db.selectFrom('accounts').select('data_version').where('id', '=', accountId).executeTakeFirst();
  if (!account) return false;
  const version = Number(account.data_version);
  let mark = performance.now();
  const lap = (phase: keyof ColumnTimings) => {
    const at = performance.now();
    if (options.timings) options.timings[phase] = at - mark;
    mark = at;
  };
  const snapshot = await metrics.getSnapshot(accountId);
  lap('snapshotMs');
  const today = now.toISOString().slice(0, 10);
  // The formula parser (mathjs) loads with the first column computed, not with the server.
  const { compileFormula: compile } = await import('../../models/customerFormula');
  const computed = computeColumnValues(snapshot, { formula: definition.formula, variables: storedVariables(definition.variables) }, today, compile);
  lap('computeMs');
  const write = (keep: ((customerId: string) => boolean) | null) =>
    database.session((session) =>
      session.kysely.transaction().execute(async (trx) => {
        const locked = await trx.selectFrom('customer_column_definitions').select('id').where('account_id', '=', accountId).where('id', '=', definitionId).forUpdate().executeTakeFirst();
        if (!locked) return false;
        const rows = await trx.selectFrom('customer_column_values').select(['customer_id', 'value']).where('account_id', '=', accountId).where('definition_id', '=', definitionId).execute();
        const stored = new Map<string, number>();
        for (const row of rows) if (row.value !== null) stored.set(row.customer_id, Number(row.value));
        const changes = valueChanges(snapshot, accountId, definitionId, computed, stored);
        if (changes.remove.length > 0) {
          // Most rows go: delete the column's rows at once (and write every value again) rather than by id.
          if (changes.remove.length * 2 > rows.length) {
            await trx.deleteFrom('customer_column_values').where('account_id', '=', accountId).where('definition_id', '=', definitionId).execute();
            changes.copy = valueChanges(snapshot, accountId, definitionId, computed, new Map()).copy;
          } else {
            await sql`delete from customer_column_values where account_id = ${accountId} and definition_id = ${definitionId} and customer_id = any(${changes.remove}::text[])`.execute(trx);
          }
        }
        const copy = keep ? filterRows(changes.copy, keep) : changes.copy;
        if (copy.length > 0) await session.copyIn('customer_column_values', ['account_id', 'definition_id', 'customer_id', 'value'], copy);
        await trx
          .updateTable('customer_column_definitions')
          .set({ computed_data_version: version, computed_on: today, ...(options.keepInProgress?.() ? {} : { recalculation_status: 'finished' as const }) })
          .where('account_id', '=', accountId)
          .where('id', '=', definitionId)
          .execute();
        return true;
      }),
    );
  try {
    const found = await write(null);
    lap('writeMs');
    return found;
  } catch (error) {
    // A customer removed for good since the snapshot was read (its row deleted) fails the
    // foreign key: write again without the customers that are gone (rare, so not checked first).
    if ((error as { code?: unknown }).code !== FOREIGN_KEY_VIOLATION) throw error;
    const existing = new Set((await db.selectFrom('customers').select('id').where('account_id', '=', accountId).execute()).map((row) => row.id));
    return write((id) => existing.has(id));
  }
}

const FOREIGN_KEY_VIOLATION = '23503';

/** The COPY rows whose customer (third field) `keep` keeps. */
function filterRows(copy: string, keep: (customerId: string) => boolean): string {
  return copy
    .split('\n')
    .filter((line) => line.length > 0 && keep(line.split('\t')[2] ?? ''))
    .map((line) => `${line}\n`)
    .join('');
}
