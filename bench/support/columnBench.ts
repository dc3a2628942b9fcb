import type { Database } from '../../server/db/database';
import type { DemoBusiness } from '../../server/demo/generate';
import { recalculateColumn, type ColumnTimings, type ColumnVariable } from '../../server/customers/columns';
import { createMetricsService, type MetricsService } from '../../server/metrics/service';
import { DuckMetrics } from './duckdbMetrics';
import { alternateRounds, roundTo, roundedSpread, spread, type LoadRecorder, type Spread } from './rounds';

/**
 * The recalculation of a calculated customer column for every customer of a seeded account
 * (server/customers/columns.ts `recalculateColumn`: the account's metrics snapshot read, both
 * variables computed in one pass each, the formula evaluated per customer, and the column's
 * rows written with COPY in one transaction; the rows are cleared before each timed run, untimed,
 * so every value is written each time) against DuckDB computing the same values from the
 * same generated rows (one SQL statement on 2 threads over tables already loaded, its result
 * read into JS). The column is `tcv / mrr`: bookings (BookedTotalContractValue) over the last
 * complete calendar year before today, per MRR at the end of the last complete month.
 *
 * DuckDB's side implements the column's definition on its own (docs/customer-columns.md):
 * bookings = the customer's payments started in the range, each total converted at the ECB
 * rates of its start day and rounded half to even; MRR = the customer's pieces paying on the
 * month's last day (the same arithmetic as bench/support/duckdbMetrics.ts); a customer excluded
 * from calculations (or under an excluded parent) counts 0 for both; no value where the MRR is 0.
 * After the rounds the values the recalculation stored are compared with DuckDB's, customer by
 * customer (equal to 1e-9 relative; both null where one is).
 */

export interface ColumnBenchOptions {
  /** The opened, migrated database holding the seeded account (bench/support/bulkSeed.ts). */
  db: Database;
  accountId: string;
  /** The business the account was seeded with: DuckDB loads the same rows. */
  business: DemoBusiness;
  /** 'YYYY-MM-DD': today of both sides (default the business's). */
  today?: string;
  /** Measured rounds after one warm-up round (default 6). */
  rounds?: number;
  log?: (line: string) => void;
  load?: LoadRecorder;
  /** The metrics service the recalculation reads the snapshot through (default a new one over `db`; the snapshot is cached from the warm-up round on, as in a running server). */
  metrics?: MetricsService;
}

export interface ColumnBenchResult {
  /** Medians over the measured rounds, ms. */
  ours_ms: number;
  duckdb_ms: number;
  /** Median of the rounds' ours / duckdb (target <= 1). */
  ratio: number;
  ratio_spread: Spread;
  ours_spread: Spread;
  duckdb_spread: Spread;
  /** Our side's phases (medians, ms): the cached snapshot's lookup, the values' computation, the rows' write (COPY with the table's keys and foreign keys). */
  snapshot_ms: number;
  compute_ms: number;
  write_ms: number;
  /** Every customer's value agrees with DuckDB's. */
  equal: boolean;
  /** Up to 10 differences, when not equal. */
  differences: string[];
  /** Customers valued (not deleted) and of them with a value (not null). */
  customers: number;
  with_value: number;
  formula: string;
  variables: ColumnVariable[];
  rounds: number;
  orders: string[];
}

const DEFINITION_ID = 'ccdbenchratio';

/** The column: bookings over the last complete year before `today` per MRR at the end of the last complete month. */
export function benchColumn(today: string): { formula: string; variables: ColumnVariable[] } {
  const year = Number(today.slice(0, 4));
  const month = Number(today.slice(5, 7));
  const last = month === 1 ? { year: year - 1, month: 12 } : { year, month: month - 1 };
  return {
    formula: 'tcv / mrr',
    variables: [
      { fetcher: 'BookedTotalContractValue', name: 'tcv', start_month: 1, start_year: year - 1, end_month: 12, end_year: year - 1 },
      { fetcher: 'Mrr', name: 'mrr', start_month: last.month, start_year: last.year, end_month: last.month, end_year: last.year },
    ],
  };
}

export async function runColumnBench(options: ColumnBenchOptions): Promise<ColumnBenchResult> {
  const { db, accountId, business } = options;
  const log = options.log ?? (() => {});
  const today = options.today ?? business.today;
  const now = new Date(`${today}T12:00:00.000Z`);
  const rounds = options.rounds ?? 6;
  const column = benchColumn(today);
  const account = await db.kysely.selectFrom('accounts').select('currency').where('id', '=', accountId).executeTakeFirstOrThrow();

  await db.kysely.deleteFrom('customer_column_definitions').where('account_id', '=', accountId).where('id', '=', DEFINITION_ID).execute();
  await db.kysely
    .insertInto('customer_column_definitions')
    .values({ account_id: accountId, id: DEFINITION_ID, name: 'Bookings per MRR', formula: column.formula, variables: JSON.stringify(column.variables), recalculation_status: 'finished' })
    .execute();
  const ownMetrics = options.metrics ? null : createMetricsService(db, { now: () => now });
  const metrics = options.metrics ?? (ownMetrics as MetricsService);

  const duck = await DuckMetrics.open({ threads: 2 });
  try {
    let start = performance.now();
    const counts = await duck.load(business);
    log(`column bench: duckdb loaded ${counts.customers.toLocaleString('en')} customers, ${counts.payments.toLocaleString('en')} payments in ${((performance.now() - start) / 1000).toFixed(2)} s`);
    const sql = columnSql(column.variables, today, account.currency);
    let duckValues = new Map<string, number | null>();
    const phases: ColumnTimings[] = [];

    const result = await alternateRounds<'column' | 'duckdb_column'>({
      contenders: [
        {
          name: 'column',
          run: async (round) => {
            // Every value written each round (untimed: the column's rows cleared first), as after a change of the column; a
            // recalculation that finds its values unchanged writes nothing.
            await db.kysely.deleteFrom('customer_column_values').where('account_id', '=', accountId).where('definition_id', '=', DEFINITION_ID).execute();
            start = performance.now();
            const timings: ColumnTimings = {};
            const found = await recalculateColumn(db, metrics, accountId, DEFINITION_ID, now, { timings });
            if (!found) throw new Error('the bench column is gone');
            const ms = performance.now() - start;
            if (round >= 1) phases.push(timings);
            return ms;
          },
        },
        {
          name: 'duckdb_column',
          run: async () => {
            start = performance.now();
            const reader = await duck.connection.runAndReadAll(sql);
            const columns = reader.getColumnsObjectJS();
            const ms = performance.now() - start;
            const ids = columns.id as string[];
            const values = columns.value as (number | null)[];
            duckValues = new Map(ids.map((id, i) => [id, values[i] ?? null]));
            return ms;
          },
        },
      ],
      ratios: { column_duckdb_ratio: ['column', 'duckdb_column'] },
      rounds,
      load: options.load,
      log,
      digits: 0,
    });

    // Parity (untimed): what the last recalculation stored against DuckDB's values.
    const rows = await db.kysely.selectFrom('customer_column_values').select(['customer_id', 'value']).where('account_id', '=', accountId).where('definition_id', '=', DEFINITION_ID).execute();
    // A customer without a row has no value (null).
    const stored = new Map(rows.map((row) => [row.customer_id, row.value === null ? null : Number(row.value)]));
    const deleted = new Set(business.customers.filter((customer) => (customer as { deleted_at?: string | null }).deleted_at).map((customer) => customer.id));
    const ours = new Map(business.customers.filter((customer) => !deleted.has(customer.id)).map((customer) => [customer.id, stored.get(customer.id) ?? null]));
    for (const id of stored.keys()) if (!ours.has(id)) ours.set(id, stored.get(id) ?? null);
    const differences = compareValues(ours, duckValues);
    const withValue = rows.filter((row) => row.value !== null).length;
    log(
      differences.length === 0
        ? `column equal: ${ours.size.toLocaleString('en')} customers (${withValue.toLocaleString('en')} with a value) agree with DuckDB's`
        : `column NOT EQUAL:\n  ${differences.join('\n  ')}`,
    );
    const ratio = result.ratios.column_duckdb_ratio as Spread;
    const phase = (name: keyof ColumnTimings) => roundTo(spread(phases.map((t) => t[name] ?? 0)).median, 1);
    log(`column phases (medians): snapshot lookup ${phase('snapshotMs')} ms, compute ${phase('computeMs')} ms, write ${phase('writeMs')} ms`);
    return {
      ours_ms: roundTo(result.figures.column.median, 1),
      duckdb_ms: roundTo(result.figures.duckdb_column.median, 1),
      ratio: roundTo(ratio.median, 3),
      ratio_spread: roundedSpread(ratio, 3),
      ours_spread: roundedSpread(result.figures.column, 1),
      duckdb_spread: roundedSpread(result.figures.duckdb_column, 1),
      snapshot_ms: phase('snapshotMs'),
      compute_ms: phase('computeMs'),
      write_ms: phase('writeMs'),
      equal: differences.length === 0,
      differences,
      customers: ours.size,
      with_value: withValue,
      formula: column.formula,
      variables: column.variables,
      rounds: result.rounds,
      orders: result.orders.map((order) => order.join(',')),
    };
  } finally {
    duck.close();
    await ownMetrics?.close();
  }
}

/** Differences (at most `limit`) between two customer → value maps: a customer missing on one side, null on one side, or values apart by more than 1e-9 relative. */
export function compareValues(ours: ReadonlyMap<string, number | null>, theirs: ReadonlyMap<string, number | null>, limit = 10): string[] {
  const out: string[] = [];
  const add = (line: string) => {
    if (out.length < limit) out.push(line);
  };
  if (ours.size !== theirs.size) add(`customers: ours ${ours.size}, duckdb ${theirs.size}`);
  for (const [id, value] of ours) {
    if (!theirs.has(id)) {
      add(`${id}: ours ${String(value)}, duckdb has no row`);
      continue;
    }
    const other = theirs.get(id) ?? null;
    if (value === null || other === null) {
      if (value !== other) add(`${id}: ours ${String(value)}, duckdb ${String(other)}`);
      continue;
    }
    if (Math.abs(value - other) > 1e-9 * Math.max(1, Math.abs(value), Math.abs(other))) add(`${id}: ours ${value}, duckdb ${other}`);
  }
  return out;
}

const sqlString = (value: string) => `'${value.replaceAll("'", "''")}'`;
const pad = (n: number) => String(n).padStart(2, '0');

/** The column's value of every customer as one DuckDB statement over the tables DuckMetrics.load made: rows (id, value). */
export function columnSql(variables: readonly ColumnVariable[], today: string, reportCurrency: string): string {
  const [tcv, mrr] = variables;
  if (!tcv || !mrr || tcv.fetcher !== 'BookedTotalContractValue' || mrr.fetcher !== 'Mrr') throw new Error('the bench column is tcv / mrr');
  const currency = sqlString(reportCurrency);
  const from = `date '${tcv.start_year}-${pad(tcv.start_month)}-01'`;
  const to = `last_day(date '${tcv.end_year}-${pad(tcv.end_month)}-01')`;
  const monthStart = `date '${mrr.start_year}-${pad(mrr.start_month)}-01'`;
  // The month's last day; today in the current month.
  const measure = `least(last_day(${monthStart}), date ${sqlString(today)})`;
  return `
with recursive
  ancestry (customer_key, ancestor_key, depth) as (
    select key, key, 0 from customers
    union all
    select a.customer_key, c.parent_key, a.depth + 1
    from ancestry a join customers c on c.key = a.ancestor_key
    where c.parent_key is not null and a.depth < 64
  ),
  counted_customers as (
    select a.customer_key from ancestry a join customers c on c.key = a.ancestor_key
    group by a.customer_key having bool_and(c.included)
  ),
  counted_payments as (select p.* from payments p semi join counted_customers k on k.customer_key = p.customer_key),
  first_rates as (select currency, arg_min(rate_per_eur, day) as rate_per_eur from ecb_rates group by currency),
  -- Conversion factors of the payments' start days (units per euro, cross rates through EUR; before a currency's first rate, its first).
  start_days as (select distinct currency, started_at from counted_payments where currency <> ${currency}),
  start_rates as (
    select s.currency, s.started_at,
           (case when ${currency} = 'EUR' then 1::double else coalesce(rr.rate_per_eur, rf.rate_per_eur) end)
           / (case when s.currency = 'EUR' then 1::double else coalesce(pr.rate_per_eur, pf.rate_per_eur) end) as factor
    from start_days s
    asof left join ecb_rates pr on pr.currency = s.currency and pr.day <= s.started_at
    left join first_rates pf on pf.currency = s.currency
    asof left join (select * from ecb_rates where currency = ${currency}) rr on rr.day <= s.started_at
    left join first_rates rf on rf.currency = ${currency}
  ),
  -- Bookings: payments started in the range, each converted on its own.
  bookings as (
    select p.customer_key,
           sum(case when p.currency = ${currency} then p.total_value::double else round_half_even(p.total_value::double * sr.factor) end) as tcv
    from counted_payments p
    left join start_rates sr on sr.currency = p.currency and sr.started_at = p.started_at
    where p.started_at between ${from} and ${to}
    group by p.customer_key
  ),
  -- MRR on the measure day: the payments paying then, their monthly amount split over the items, discounts off.
  paying as (
    select p.* exclude (monthly_amount), round_half_even(coalesce(p.monthly_amount, p.total_value::double / p.months))::bigint as monthly_amount
    from counted_payments p
    where p.started_at <= ${measure} and (p.end_day is null or ${measure} < p.end_day)
  ),
  monthly_amounts as (
    select key, customer_key, started_at, months, currency, monthly_amount
    from paying
  ),
  item_summary as (
    select payment_key, count(*) as n, count(*) filter (where type = 'recurring') as recurring_items
    from payment_items semi join paying on paying.key = payment_items.payment_key
    group by payment_key
  ),
  discounts as (select payment_key, sum(monthly_amount)::bigint as discount from payment_discounts group by payment_key),
  payment_base as (
    select m.*, coalesce(s.n, 0) as n, coalesce(s.recurring_items, 1) as recurring_items, coalesce(d.discount, 0) as discount
    from monthly_amounts m
    left join item_summary s on s.payment_key = m.key
    left join discounts d on d.payment_key = m.key
  ),
  single_item_shares as (
    select customer_key, started_at, currency, monthly_amount - discount as share
    from payment_base
    where n <= 1 and recurring_items = 1 and monthly_amount - discount > 0
  ),
  multi_item_lines as (
    select b.key as payment_key, b.customer_key, b.started_at, b.currency, b.discount, i.position as k,
           b.monthly_amount // b.n + case when i.position < b.monthly_amount % b.n then 1 else 0 end as part
    from payment_base b join payment_items i on i.payment_key = b.key
    where b.n > 1 and b.recurring_items >= 1 and i.type = 'recurring'
  ),
  multi_item_exact as (
    select *, mrr::double * part::double / recurring::double as exact
    from (
      select *, sum(part) over (partition by payment_key) as recurring, sum(part) over (partition by payment_key) - discount as mrr
      from multi_item_lines
    )
    where mrr > 0
  ),
  multi_item_floors as (
    select *, floor(exact + 1e-9::double) as base, exact - floor(exact + 1e-9::double) as remainder from multi_item_exact
  ),
  multi_item_shares as (
    select customer_key, started_at, currency, (base + case when rank <= left_over then 1 else 0 end)::bigint as share
    from (
      select *, mrr - sum(base) over (partition by payment_key) as left_over,
             row_number() over (partition by payment_key order by remainder desc, k) as rank
      from multi_item_floors
    )
  ),
  shares as (
    select * from single_item_shares
    union all
    select * from multi_item_shares where share > 0
  ),
  share_days as (select distinct currency, started_at from shares where currency <> ${currency}),
  share_rates as (
    select s.currency, s.started_at,
           (case when ${currency} = 'EUR' then 1::double else coalesce(rr.rate_per_eur, rf.rate_per_eur) end)
           / (case when s.currency = 'EUR' then 1::double else coalesce(pr.rate_per_eur, pf.rate_per_eur) end) as factor
    from share_days s
    asof left join ecb_rates pr on pr.currency = s.currency and pr.day <= s.started_at
    left join first_rates pf on pf.currency = s.currency
    asof left join (select * from ecb_rates where currency = ${currency}) rr on rr.day <= s.started_at
    left join first_rates rf on rf.currency = ${currency}
  ),
  mrr as (
    select sh.customer_key,
           sum(case when sh.currency = ${currency} then sh.share::double else round_half_even(sh.share::double * sr.factor) end) as mrr
    from shares sh
    left join share_rates sr on sr.currency = sh.currency and sr.started_at = sh.started_at
    group by sh.customer_key
  )
select c.id, case when coalesce(m.mrr, 0) = 0 then null else coalesce(b.tcv, 0) / m.mrr end as value
from customers c
left join bookings b on b.customer_key = c.key
left join mrr m on m.customer_key = c.key`;
}
