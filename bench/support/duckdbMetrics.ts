import { fileURLToPath } from 'node:url';
import { BOOLEAN, DOUBLE, DuckDBDataChunk, DuckDBInstance, INTEGER, VARCHAR, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';

/**
 * A second, independent implementation of MRR and its movements (METRICS.md sections 2-5 with
 * the decisions of docs/metrics.md), in DuckDB SQL. It reads the generator's plain rows, never
 * the engine's snapshot, and shares no code with `server/metrics`: the parity test and the
 * benchmark compare the two month by month, cent by cent.
 *
 * What it implements (the engine's defaults):
 * - change_original (the current payment rows; deleted payments are not loaded), no churn
 *   window, use_hierarchy off, metered items outside MRR, both discount kinds subtracted;
 * - a payment covers [started_at, ended_at): ended_at any later day (without one given, started_at
 *   + months, months added with the day clamped), or every day from started_at when open-ended;
 * - monthly amount = round_half_even(monthly_amount, else total / months) in the payment's currency, split evenly
 *   between its items (the first items take the odd minor units), the recurring items' parts
 *   summed, minus the payment's discounts; nothing when that is not above 0; with several
 *   recurring items the result is spread over them in proportion to their parts (largest
 *   remainder, ties to the earlier item);
 * - each such piece converted into the report currency at the ECB rates of its start day
 *   (subscription_started_at): units per euro, cross rates through EUR, the latest rate on
 *   or before the day (before a currency's first publication, its first), and rounded half
 *   to even once; the engine counts a product within 1e-7 of .5 as a tie, and so does this;
 * - customers left out when they or any ancestor have include_in_calculations_by_default false;
 * - a month's stock measured on its last day, the current month on today;
 * - movements from each unit's MRR at consecutive month ends; "paid before" = held MRR at an
 *   earlier month end of the whole history (the first month-end with MRR is new business,
 *   a later return after a month-end without MRR is reactivation); with
 *   match_movements_by_currency, a unit paying in one and the same currency (not the report
 *   currency) at both ends moves by round_half_even((orig_after - orig_before) x after / orig_after)
 *   and the rest is fx_adjustment.
 * - the product segmenter: a unit's MRR inside each product ('Other' for an item without a
 *   product), each (customer, product) classified on its own, "paid before" inside the product.
 *
 * - a report filter (optional): criteria on products (payment lines), on a payment attribute
 *   (the payment's value) and on customer segments (the value in force at each month end,
 *   parent_and_children), negated or not, `and` / `or`, applied to each piece at each month end
 *   it covers;
 * - instead of products, a split by a customer segment (a custom section's group): each customer
 *   in the group of its value at each month end, moving between groups (`DuckSplit`).
 *
 * Not implemented (the generated data stays away from them): finite discounts limited to some
 * months (every discount lasts the whole payment here), corrections handled
 * when_occurred, churn windows, use_hierarchy, metered items in MRR, the other FX modes,
 * currencies whose minor unit is not 2 digits (the generator uses USD, EUR, PLN), a converted
 * piece that rounds to 0, segmenters other than product and customer segment, and filter criteria
 * other than product, payment attribute and customer segment (with value_source parent_and_children).
 */

export const ECB_HISTORY_CSV = fileURLToPath(new URL('../../server/rates/ecb-eurofxref-hist.csv', import.meta.url));

/** The rows the loader reads (the generator's DemoCustomer and DemoPayment fit). */
export interface DuckCustomerRow {
  readonly id: string;
  readonly parent_id: string | null;
  readonly include_in_calculations_by_default: boolean;
}

export interface DuckPaymentRow {
  readonly id: string;
  readonly customer_id: string;
  /** 'YYYY-MM-DD'. */
  readonly started_at: string;
  /** 'YYYY-MM-DD', the first day after the period; null: open-ended; left out: started_at + duration_in_months (whole months). */
  readonly ended_at?: string | null;
  /** Null when open-ended. */
  readonly duration_in_months: number | null;
  /** Minor units of `currency`; null when open-ended. */
  readonly total_value: number | null;
  /** The exact monthly amount (null or left out: total / months). */
  readonly monthly_amount?: number | null;
  readonly currency: string;
  readonly items: readonly { readonly product_key: string | null; readonly type: string; readonly quantity: number }[];
  readonly discount: { readonly kind: 'forever' | 'finite'; readonly monthly_amount: number } | null;
}

export interface DuckMrrRequest {
  /** 'YYYY-MM': the report range's first and last months. */
  from: string;
  to: string;
  /** 'YYYY-MM-DD': the current month is measured on it. */
  today: string;
  reportCurrency: string;
  matchMovementsByCurrency: boolean;
  /** A report filter (METRICS.md section 8; customer segments need `loadCustomerSegments` first). None: every customer and line. */
  filter?: DuckFilter | null;
  /**
   * What the result is split by besides the total (default: products): `null` for the total
   * only, or a customer segment (loaded with `loadCustomerSegments`) as a custom section's group
   * splits it.
   */
  split?: DuckSplit | null;
}

/**
 * A split of the total:
 * - `product`: a unit's MRR inside each product ('Other' for an item without a product), each
 *   (customer, product) classified on its own, "paid before" inside the product;
 * - `customer_segment`: each customer in the group of its segment value at each month end (own
 *   value in force, else its nearest ancestor's; none: 'Other'). A customer whose value changes
 *   between two month ends with MRR at both leaves the old group (churn) and arrives in the new
 *   one (reactivation when it had MRR at an earlier month end while in that group, else new
 *   business); expansion, contraction and fx happen inside one group only.
 */
export type DuckSplit = { kind: 'product' } | { kind: 'customer_segment'; segment: string };

/**
 * A report filter as this implementation reads it: criteria on a customer segment (by the
 * key `loadCustomerSegments` loaded it under; the value that applies month by month) and on
 * products (payment lines; a line without a product matches no list). A criterion can be
 * negated; `and` needs every criterion at a month end, `or` one.
 */
export type DuckFilterCriterion =
  | { kind: 'customer_segment'; segment: string; values: readonly string[]; negated?: boolean }
  | { kind: 'product'; productKeys: readonly string[]; negated?: boolean }
  | { kind: 'payment_attribute'; attribute: string; values: readonly string[]; negated?: boolean };

export interface DuckFilter {
  operator: 'and' | 'or';
  criteria: readonly DuckFilterCriterion[];
}

/** A customer segment as `loadCustomerSegments` reads it (only parent_and_children values are implemented). */
export interface DuckSegmentSpec {
  readonly key: string;
  readonly time_sensitive: boolean;
}

/** One row of a customer's attribute history: in force from its month (1-12) until the customer's next row. */
export interface DuckSegmentValueRow {
  readonly customer_id: string;
  readonly segment: string;
  readonly year: number;
  readonly month: number;
  readonly value: string;
}

/** One series per field, one number per month of the range; money in minor units of the report currency. */
export interface DuckSeries {
  mrr: number[];
  customers: number[];
  newBusiness: number[];
  expansion: number[];
  reactivation: number[];
  contraction: number[];
  churn: number[];
  fxAdjustment: number[];
  newCustomers: number[];
  expansionCustomers: number[];
  reactivatedCustomers: number[];
  contractionCustomers: number[];
  churnedCustomers: number[];
}

export const SERIES_FIELDS = [
  'mrr',
  'customers',
  'newBusiness',
  'expansion',
  'reactivation',
  'contraction',
  'churn',
  'fxAdjustment',
  'newCustomers',
  'expansionCustomers',
  'reactivatedCustomers',
  'contractionCustomers',
  'churnedCustomers',
] as const satisfies readonly (keyof DuckSeries)[];

export interface DuckMrrResult {
  /** 'YYYY-MM' of every month of the range, up to today's month. */
  periods: string[];
  total: DuckSeries;
  /** By product ('Other' for items without one); products without MRR are absent. Empty unless split by product. */
  products: Map<string, DuckSeries>;
  /** By a customer segment's value ('Other' for none). Empty unless split by a customer segment. */
  groups: Map<string, DuckSeries>;
}

/** One row of a payment attribute: the payment (by id) and its value. */
export interface DuckPaymentAttributeRow {
  readonly payment_id: string;
  readonly value: string;
}

export interface DuckLoadCounts {
  customers: number;
  payments: number;
  items: number;
  discounts: number;
  rates: number;
}

const CHUNK_ROWS = 2_048;
const MONTH_RE = /^\d{4}-(0[1-9]|1[0-2])$/;
const DAY_RE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const CURRENCY_RE = /^[A-Z]{3}$/;

/** Appends columns (one JS array per column) to a table, a DuckDB vector (2,048 rows) at a time. */
async function appendColumns(connection: DuckDBConnection, table: string, types: readonly DuckDBType[], columns: readonly (readonly DuckDBValue[])[]): Promise<void> {
  const appender = await connection.createAppender(table);
  const rows = columns[0]?.length ?? 0;
  for (let start = 0; start < rows; start += CHUNK_ROWS) {
    const end = Math.min(rows, start + CHUNK_ROWS);
    const chunk = DuckDBDataChunk.create(types, end - start);
    chunk.setColumns(columns.map((column) => column.slice(start, end)));
    appender.appendDataChunk(chunk);
  }
  appender.closeSync();
}

/** An in-memory DuckDB holding one business. */
export class DuckMetrics {
  private constructor(
    private readonly instance: DuckDBInstance,
    readonly connection: DuckDBConnection,
  ) {}

  static async open(options: { threads?: number } = {}): Promise<DuckMetrics> {
    const instance = await DuckDBInstance.create(':memory:', { threads: String(options.threads ?? 2) });
    const connection = await instance.connect();
    // The engine's tie rule: a value within 1e-7 of .5 is a tie, which goes to the even neighbour.
    await connection.run(`
      create macro round_half_even(x) as (
        case
          when x - floor(x) > 0.5::double + 1e-7::double then floor(x) + 1
          when x - floor(x) < 0.5::double - 1e-7::double then floor(x)
          when floor(x) % 2 = 0 then floor(x)
          else floor(x) + 1
        end)`);
    return new DuckMetrics(instance, connection);
  }

  /** Loads customers, payments (with items and discounts) and the ECB history CSV; replaces what was loaded before. */
  async load(data: { customers: readonly DuckCustomerRow[]; payments: readonly DuckPaymentRow[] }, ratesCsv: string = ECB_HISTORY_CSV): Promise<DuckLoadCounts> {
    const c = this.connection;
    const { customers, payments } = data;
    // Dense integer keys, as a warehouse schema would have them; ids stay as columns.
    const customerKey = new Map<string, number>();
    customers.forEach((row, key) => customerKey.set(row.id, key));
    const keyOf = (id: string | null, what: string): number | null => {
      if (id === null) return null;
      const key = customerKey.get(id);
      if (key === undefined) throw new Error(`${what} refers to unknown customer '${id}'`);
      return key;
    };
    await c.run(`
      create or replace table customers (key integer primary key, id varchar not null, parent_key integer, included boolean not null);
      create or replace table payments_raw (key integer, id varchar, customer_key integer, started_at varchar, ended_at varchar, open boolean, months double, total_value double, monthly_amount double, currency varchar);
      create or replace table payment_items (payment_key integer, position integer, product_key varchar, type varchar, quantity integer);
      create or replace table payment_discounts (payment_key integer, kind varchar, monthly_amount double);
      -- Attribute values of the payments loaded before refer to their keys.
      drop table if exists payment_attribute_values;`);
    await appendColumns(c, 'customers', [INTEGER, VARCHAR, INTEGER, BOOLEAN], [
      customers.map((_, key) => key),
      customers.map((row) => row.id),
      customers.map((row) => keyOf(row.parent_id, `customer '${row.id}'`)),
      customers.map((row) => row.include_in_calculations_by_default),
    ]);
    await appendColumns(c, 'payments_raw', [INTEGER, VARCHAR, INTEGER, VARCHAR, VARCHAR, BOOLEAN, DOUBLE, DOUBLE, DOUBLE, VARCHAR], [
      payments.map((_, key) => key),
      payments.map((row) => row.id),
      payments.map((row) => keyOf(row.customer_id, `payment '${row.id}'`)),
      payments.map((row) => row.started_at),
      payments.map((row) => row.ended_at ?? null),
      payments.map((row) => row.ended_at === null || (row.ended_at === undefined && row.duration_in_months === null)),
      payments.map((row) => row.duration_in_months),
      payments.map((row) => row.total_value),
      payments.map((row) => row.monthly_amount ?? null),
      payments.map((row) => row.currency),
    ]);
    const itemColumns: [number[], number[], (string | null)[], string[], number[]] = [[], [], [], [], []];
    const discountColumns: [number[], string[], number[]] = [[], [], []];
    payments.forEach((payment, key) => {
      payment.items.forEach((item, position) => {
        itemColumns[0].push(key);
        itemColumns[1].push(position);
        itemColumns[2].push(item.product_key);
        itemColumns[3].push(item.type);
        itemColumns[4].push(item.quantity);
      });
      if (payment.discount) {
        discountColumns[0].push(key);
        discountColumns[1].push(payment.discount.kind);
        discountColumns[2].push(payment.discount.monthly_amount);
      }
    });
    await appendColumns(c, 'payment_items', [INTEGER, INTEGER, VARCHAR, VARCHAR, INTEGER], itemColumns);
    await appendColumns(c, 'payment_discounts', [INTEGER, VARCHAR, DOUBLE], discountColumns);
    await c.run(`
      create or replace table payments as
        select key, id, customer_key, started_at::date as started_at,
               -- The first day after the period; null: open-ended.
               case when open then null
                    when ended_at is not null then ended_at::date
                    else (started_at::date + to_months(months::integer))::date end as end_day,
               months, total_value::bigint as total_value, monthly_amount, currency
        from payments_raw;
      drop table payments_raw;
      create or replace table ecb_rates as
        select "Date"::date as day, currency, rate::double as rate_per_eur
        from (unpivot (select * from read_csv(${sqlString(ratesCsv)}, header = true, all_varchar = true, nullstr = 'N/A'))
              on columns(* exclude ("Date")) into name currency value rate)
        where currency similar to '[A-Z]{3}'
        order by currency, day;`);
    const counts = await c.runAndReadAll(`
      select (select count(*) from customers)::integer as customers, (select count(*) from payments)::integer as payments,
             (select count(*) from payment_items)::integer as items, (select count(*) from payment_discounts)::integer as discounts,
             (select count(*) from ecb_rates)::integer as rates`);
    const row = counts.getRowObjectsJS()[0];
    return {
      customers: Number(row?.customers),
      payments: Number(row?.payments),
      items: Number(row?.items),
      discounts: Number(row?.discounts),
      rates: Number(row?.rates),
    };
  }

  /**
   * Loads customer segments and their values (after `load`: customers are matched by id), for
   * filters on them; replaces what was loaded before. Values follow parent_and_children: a
   * customer's own value in force, else its nearest ancestor's; a segment that is not
   * time-sensitive uses each customer's latest row for all time; of two rows of one customer
   * and month, the later one.
   */
  async loadCustomerSegments(segments: readonly DuckSegmentSpec[], values: readonly DuckSegmentValueRow[]): Promise<number> {
    const c = this.connection;
    await c.run(`
      create or replace table customer_segments (segment varchar primary key, time_sensitive boolean not null);
      create or replace table segment_values_raw (seq integer, customer_id varchar, segment varchar, month_idx integer, value varchar);`);
    await appendColumns(c, 'customer_segments', [VARCHAR, BOOLEAN], [segments.map((s) => s.key), segments.map((s) => s.time_sensitive)]);
    await appendColumns(c, 'segment_values_raw', [INTEGER, VARCHAR, VARCHAR, INTEGER, VARCHAR], [
      values.map((_, seq) => seq),
      values.map((row) => row.customer_id),
      values.map((row) => row.segment),
      values.map((row) => row.year * 12 + row.month - 1),
      values.map((row) => row.value),
    ]);
    const reader = await c.runAndReadAll(`
      create or replace table customer_segment_values as
        select c.key as customer_key, v.segment, v.month_idx, v.seq, v.value
        from segment_values_raw v join customers c on c.id = v.customer_id;
      drop table segment_values_raw;
      select (select count(*) from customer_segment_values)::integer as n`);
    const loaded = Number(reader.getRowObjectsJS()[0]?.n);
    if (loaded !== values.length) throw new Error(`${values.length - loaded} segment values refer to unknown customers`);
    return loaded;
  }

  /**
   * Loads one payment attribute's values (after `load`: payments are matched by id), for filters
   * on it; replaces that attribute's values loaded before. A payment without a row has no value.
   */
  async loadPaymentAttribute(attribute: string, values: readonly DuckPaymentAttributeRow[]): Promise<number> {
    const c = this.connection;
    await c.run(`
      create table if not exists payment_attribute_values (attribute varchar, payment_key integer, value varchar);
      delete from payment_attribute_values where attribute = ${sqlString(attribute)};
      create or replace table payment_attribute_raw (payment_id varchar, value varchar);`);
    await appendColumns(c, 'payment_attribute_raw', [VARCHAR, VARCHAR], [values.map((row) => row.payment_id), values.map((row) => row.value)]);
    const reader = await c.runAndReadAll(`
      insert into payment_attribute_values
        select ${sqlString(attribute)}, p.key, r.value from payment_attribute_raw r join payments p on p.id = r.payment_id;
      drop table payment_attribute_raw;
      select count(*)::integer as n from payment_attribute_values where attribute = ${sqlString(attribute)}`);
    const loaded = Number(reader.getRowObjectsJS()[0]?.n);
    if (loaded !== values.length) throw new Error(`${values.length - loaded} payment attribute values refer to unknown payments`);
    return loaded;
  }

  /** MRR and movements of the total and of every product (or customer segment value), month by month over the request's range. */
  async computeMrr(request: DuckMrrRequest): Promise<DuckMrrResult> {
    if (!MONTH_RE.test(request.from) || !MONTH_RE.test(request.to)) throw new RangeError(`months must be 'YYYY-MM': ${request.from}, ${request.to}`);
    if (!DAY_RE.test(request.today)) throw new RangeError(`today must be 'YYYY-MM-DD': ${request.today}`);
    if (!CURRENCY_RE.test(request.reportCurrency)) throw new RangeError(`not a currency: ${request.reportCurrency}`);
    const reader = await this.connection.runAndReadAll(mrrSql(request));
    const columns = reader.getColumnsObjectJS();
    const kind = columns.kind as string[];
    const segment = columns.segment as string[];
    const label = columns.label as string[];
    const periods: string[] = [];
    const total = emptySeries();
    const products = new Map<string, DuckSeries>();
    const groups = new Map<string, DuckSeries>();
    for (let i = 0; i < kind.length; i++) {
      if (kind[i] === 'total') periods.push(label[i] as string);
      let series = total;
      if (kind[i] !== 'total') {
        const name = segment[i] as string;
        const map = kind[i] === 'group' ? groups : products;
        series = map.get(name) ?? emptySeries();
        map.set(name, series);
      }
      for (const field of SERIES_FIELDS) series[field].push(Number(columns[field]?.[i]));
    }
    return { periods, total, products, groups };
  }

  close(): void {
    this.connection.closeSync();
    this.instance.closeSync();
  }
}

function emptySeries(): DuckSeries {
  return {
    mrr: [],
    customers: [],
    newBusiness: [],
    expansion: [],
    reactivation: [],
    contraction: [],
    churn: [],
    fxAdjustment: [],
    newCustomers: [],
    expansionCustomers: [],
    reactivatedCustomers: [],
    contractionCustomers: [],
    churnedCustomers: [],
  };
}

function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * CTEs with a customer segment's value per customer from each month it may change (own row in
 * force, else the nearest ancestor's; one row per customer for all time when the segment is not
 * time-sensitive; of two rows of one customer and month, the later one): `seg_values_${suffix}`
 * (customer_key, month_idx, value), to asof-join month ends to.
 */
function segmentValueCtes(suffix: string, segmentKey: string): string {
  const segment = sqlString(segmentKey);
  return `
  -- Segment ${segment}: its rows, the months a customer's value may change, and the value from each.
  seg_rows_${suffix} as (
    select customer_key, month_idx, arg_max(value, month_idx::bigint * 4294967296 + seq) as value
    from (
      select customer_key, value, seq,
             case when (select time_sensitive from customer_segments where segment = ${segment}) then month_idx else -2147483648 end as month_idx
      from customer_segment_values where segment = ${segment}
    )
    group by customer_key, month_idx
  ),
  seg_changes_${suffix} as (
    select distinct a.customer_key, r.month_idx from ancestry a join seg_rows_${suffix} r on r.customer_key = a.ancestor_key
  ),
  seg_values_${suffix} as (
    select customer_key, month_idx, arg_min(value, depth) as value
    from (
      select ch.customer_key, ch.month_idx, a.depth, own.value
      from seg_changes_${suffix} ch
      join ancestry a on a.customer_key = ch.customer_key
      asof join seg_rows_${suffix} own on own.customer_key = a.ancestor_key and own.month_idx <= ch.month_idx
    )
    group by customer_key, month_idx
  ),`;
}

/**
 * The filter's pieces of SQL: CTEs with each filtered segment's values, asof joins of the covered
 * month ends to them, joins and columns that give each piece its payment's attribute values, and
 * the condition on a covered month end. Null without criteria.
 */
function filterSql(filter: DuckFilter | null): { ctes: string; joins: string; pieceJoins: string; pieceColumns: string; condition: string } | null {
  if (!filter || filter.criteria.length === 0) return null;
  const ctes: string[] = [];
  const joins: string[] = [];
  const pieceJoins: string[] = [];
  const pieceColumns: string[] = [];
  const tests: string[] = [];
  const inList = (column: string, values: readonly string[]) => (values.length === 0 ? 'false' : `coalesce(${column} in (${values.map(sqlString).join(', ')}), false)`);
  filter.criteria.forEach((criterion, j) => {
    const not = criterion.negated === true ? 'not ' : '';
    if (criterion.kind === 'product') {
      tests.push(`${not}${inList('c.line_product', criterion.productKeys)}`);
      return;
    }
    if (criterion.kind === 'payment_attribute') {
      pieceJoins.push(`left join payment_attribute_values pa${j} on pa${j}.payment_key = sh.payment_key and pa${j}.attribute = ${sqlString(criterion.attribute)}`);
      pieceColumns.push(` pa${j}.value as payment_value_${j},`);
      tests.push(`${not}${inList(`c.payment_value_${j}`, criterion.values)}`);
      return;
    }
    ctes.push(segmentValueCtes(String(j), criterion.segment));
    joins.push(`asof left join seg_values_${j} s${j} on s${j}.customer_key = c.customer_key and s${j}.month_idx <= c.idx`);
    tests.push(`${not}${inList(`s${j}.value`, criterion.values)}`);
  });
  return {
    ctes: ctes.join(''),
    joins: joins.join('\n    '),
    pieceJoins: pieceJoins.join('\n    '),
    pieceColumns: pieceColumns.join(''),
    condition: tests.map((t) => `(${t})`).join(filter.operator === 'and' ? ' and ' : ' or '),
  };
}

/**
 * MRR of each unit at each month end, as rows (part, segment_key, customer_key, idx, value, orig,
 * currency_min, currency_max): the customer (part 0, segment 0: the total), and either the
 * customer inside each product (part and segment: the product) or the customer in its customer
 * segment group at that month end (part -1, segment: the group).
 */
function unitMonthsSql(split: DuckSplit | null): { ctes: string; segments: string } {
  const columns = 'sum(value)::bigint as value, sum(orig)::bigint as orig, min(currency_key) as currency_min, max(currency_key) as currency_max';
  if (split === null) {
    return {
      ctes: `
  unit_months as (
    select 0 as part, 0 as segment_key, customer_key, idx, ${columns} from coverage group by customer_key, idx
  ),`,
      segments: `select 'total' as kind, 'Total' as segment, 0 as segment_key`,
    };
  }
  if (split.kind === 'product') {
    return {
      ctes: `
  unit_months as (
    select case when grouping(segment_key) = 1 then 0 else segment_key end as part,
           case when grouping(segment_key) = 1 then 0 else segment_key end as segment_key, customer_key, idx, ${columns}
    from coverage
    group by grouping sets ((customer_key, idx), (customer_key, segment_key, idx))
  ),`,
      segments: `select 'total' as kind, 'Total' as segment, 0 as segment_key
    union all
    select 'product', product, segment_key from products`,
    };
  }
  const segment = sqlString(split.segment);
  return {
    ctes: `${segmentValueCtes('g', split.segment)}
  -- The groups: the segment's values by name, then 'Other' (no value), numbered from 1.
  split_groups as (
    select name, row_number() over (order by name = 'Other', name)::integer as segment_key
    from (select distinct value as name from customer_segment_values where segment = ${segment} union select 'Other')
  ),
  customer_months as (
    select customer_key, idx, ${columns} from coverage group by customer_key, idx
  ),
  unit_months as (
    select 0 as part, 0 as segment_key, * from customer_months
    union all
    select -1 as part, g.segment_key, m.*
    from customer_months m
    asof left join seg_values_g v on v.customer_key = m.customer_key and v.month_idx <= m.idx
    join split_groups g on g.name = coalesce(v.value, 'Other')
  ),`,
    segments: `select 'total' as kind, 'Total' as segment, 0 as segment_key
    union all
    select 'group', name, segment_key from split_groups`,
  };
}

/** The whole computation as one statement: rows (kind, segment, label, one column per series field), the total first, then the split's segments in order, each month by month. */
export function mrrSql(request: DuckMrrRequest): string {
  const today = `date ${sqlString(request.today)}`;
  const reportCurrency = sqlString(request.reportCurrency);
  const rangeStart = `date ${sqlString(`${request.from}-01`)}`;
  const rangeEnd = `date ${sqlString(`${request.to}-01`)}`;
  const matching = request.matchMovementsByCurrency ? 'true' : 'false';
  const filter = filterSql(request.filter ?? null);
  const splitBy = request.split === undefined ? { kind: 'product' as const } : request.split;
  const split = unitMonthsSql(splitBy);
  // Only a customer-attribute split moves a unit between segments inside its part; elsewhere a
  // part is one segment, and the window over segments (a second sort) is left out.
  const moving = splitBy?.kind === 'customer_segment';
  return `
with recursive
  -- Customers counted: neither they nor any ancestor has include_in_calculations_by_default false.
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
  -- round_half_even(monthly_amount, else total / months) in whole minor units of the payment's currency.
  monthly_amounts as (
    select p.key, p.customer_key, p.started_at, p.end_day, p.currency,
           round_half_even(coalesce(p.monthly_amount, p.total_value::double / p.months))::bigint as monthly_amount
    from payments p semi join counted_customers k on k.customer_key = p.customer_key
  ),
  -- Per payment: its items (none = one recurring item without a product) and discounts.
  item_summary as (
    select payment_key, count(*) as n, count(*) filter (where type = 'recurring') as recurring_items,
           any_value(product_key) filter (where type = 'recurring') as recurring_product
    from payment_items group by payment_key
  ),
  discounts as (select payment_key, sum(monthly_amount)::bigint as discount from payment_discounts group by payment_key),
  payment_base as (
    select m.*, coalesce(s.n, 0) as n, coalesce(s.recurring_items, 1) as recurring_items, s.recurring_product,
           coalesce(d.discount, 0) as discount
    from monthly_amounts m
    left join item_summary s on s.payment_key = m.key
    left join discounts d on d.payment_key = m.key
  ),
  -- One item (or none) that is recurring: it carries the payment's MRR after discounts.
  single_item_shares as (
    select customer_key, started_at, end_day, currency, recurring_product as product_key, monthly_amount - discount as share, key as payment_key
    from payment_base
    where n <= 1 and recurring_items = 1 and monthly_amount - discount > 0
  ),
  -- Several items split the monthly amount evenly, the first ones taking the odd minor units.
  multi_item_lines as (
    select b.key as payment_key, b.customer_key, b.started_at, b.end_day, b.currency, b.discount,
           i.position as k, i.product_key,
           b.monthly_amount // b.n + case when i.position < b.monthly_amount % b.n then 1 else 0 end as part
    from payment_base b join payment_items i on i.payment_key = b.key
    where b.n > 1 and b.recurring_items >= 1 and i.type = 'recurring'
  ),
  -- Their MRR after discounts is spread over the recurring items by their parts (largest remainder, ties to the earlier item).
  multi_item_exact as (
    select *, mrr::double * part::double / recurring::double as exact
    from (
      select *, sum(part) over (partition by payment_key) as recurring,
             sum(part) over (partition by payment_key) - discount as mrr
      from multi_item_lines
    )
    where mrr > 0
  ),
  multi_item_floors as (
    select *, floor(exact + 1e-9::double) as base, exact - floor(exact + 1e-9::double) as remainder from multi_item_exact
  ),
  multi_item_shares as (
    select customer_key, started_at, end_day, currency, product_key,
           (base + case when rank <= left_over then 1 else 0 end)::bigint as share, payment_key
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
  -- ECB rates: units per euro; the latest rate on or before a day, else the currency's first.
  first_rates as (select currency, arg_min(rate_per_eur, day) as rate_per_eur from ecb_rates group by currency),
  start_days as (select distinct currency, started_at from shares),
  start_rates as (
    select s.currency, s.started_at,
           case
             when s.currency = ${reportCurrency} then 1::double
             else (case when ${reportCurrency} = 'EUR' then 1::double else coalesce(rr.rate_per_eur, rf.rate_per_eur) end)
                  / (case when s.currency = 'EUR' then 1::double else coalesce(pr.rate_per_eur, pf.rate_per_eur) end)
           end as factor
    from start_days s
    asof left join ecb_rates pr on pr.currency = s.currency and pr.day <= s.started_at
    left join first_rates pf on pf.currency = s.currency
    asof left join (select * from ecb_rates where currency = ${reportCurrency}) rr on rr.day <= s.started_at
    left join first_rates rf on rf.currency = ${reportCurrency}
  ),
  -- Products numbered from 1 (0 is the total).
  products as (
    select product, row_number() over (order by product)::integer as segment_key
    from (select distinct coalesce(product_key, 'Other') as product from shares)
  ),
  currencies as (
    select currency, row_number() over (order by currency)::integer as currency_key from (select distinct currency from shares)
  ),
  pieces as (
    select sh.customer_key, pr.segment_key, cu.currency_key,
           sh.started_at as start_day, coalesce(sh.end_day, date '9999-12-31') as end_day,
           sh.share as orig,${filter ? ` sh.product_key as line_product,${filter.pieceColumns}` : ''}
           case when sr.factor is null then error('no ECB rate for ' || sh.currency || ' or ' || ${reportCurrency})
                else round_half_even(sh.share::double * sr.factor)::bigint end as value
    from shares sh
    join start_rates sr on sr.currency = sh.currency and sr.started_at = sh.started_at
    join products pr on pr.product = coalesce(sh.product_key, 'Other')
    join currencies cu on cu.currency = sh.currency
    ${filter ? filter.pieceJoins : ''}
  ),
  -- Month ends from the first piece (or the month before the range) to today's month; the current month is measured on today.
  months as (
    select month_start::date as month_start,
           (year(month_start) * 12 + month(month_start) - 1)::integer as idx,
           least(last_day(month_start), ${today}) as measure_day,
           strftime(month_start, '%Y-%m') as label
    from generate_series(
      least(date_trunc('month', (select min(start_day) from pieces)), ${rangeStart} - interval 1 month),
      date_trunc('month', ${today}),
      interval 1 month) as t(month_start)
  ),
  ${
    filter
      ? `${filter.ctes}
  -- The filter, month end by month end: a piece counts at a month end where its line, its payment and its customer's values then match.
  coverage as (
    select c.* from (
      select p.*, mo.idx from pieces p join months mo on mo.measure_day >= p.start_day and mo.measure_day < p.end_day
    ) c
    ${filter.joins}
    where ${filter.condition}
  ),`
      : `coverage as (
    select p.*, mo.idx from pieces p join months mo on mo.measure_day >= p.start_day and mo.measure_day < p.end_day
  ),`
  }${split.ctes}
  -- Within a part, a unit moves from one month end to the next inside one segment, or leaves one segment for another.
  sequenced as (
    select *,
           lag(idx) over w as prev_idx, lag(value) over w as prev_value, lag(orig) over w as prev_orig,
           lag(currency_min) over w as prev_currency_min, lag(currency_max) over w as prev_currency_max,
           lead(idx) over w as next_idx,${
             moving
               ? `
           lag(segment_key) over w as prev_segment, lead(segment_key) over w as next_segment,
           -- Paid before inside this segment: MRR at an earlier month end while in it.
           lag(idx) over (partition by part, customer_key, segment_key order by idx) is not null as paid_before`
               : `
           lag(idx) over w is not null as paid_before`
           }
    from unit_months
    window w as (partition by part, customer_key order by idx)
  ),
  stays as (
    select *,
           prev_idx = idx - 1${moving ? ' and prev_segment = segment_key' : ''} as stayed,
           ${matching} and prev_idx = idx - 1${moving ? ' and prev_segment = segment_key' : ''} and currency_min = currency_max and prev_currency_min = prev_currency_max
             and currency_min = prev_currency_min
             and currency_min is distinct from (select currency_key from currencies where currency = ${reportCurrency}) as same_currency
    from sequenced
  ),
  moves as (
    select *,
           case when stayed then
             case when same_currency then round_half_even((orig - prev_orig)::double * (value::double / orig::double))::bigint
                  else value - prev_value end
           end as movement
    from stays
  ),
  events as (
    select segment_key, idx, value as stock,
           case when stayed is not true and not paid_before then value end as new_business,
           case when stayed is not true and paid_before then value end as reactivation,
           case when movement > 0 then movement end as expansion,
           case when movement < 0 then -movement end as contraction,
           case when same_currency then value - prev_value - movement end as fx,
           null::bigint as churn
    from moves
    union all
    select segment_key, idx + 1, null, null, null, null, null, null, value
    from sequenced where next_idx is null or next_idx > idx + 1${moving ? ' or next_segment <> segment_key' : ''}
  ),
  per_month as (
    select segment_key, idx,
           coalesce(sum(stock), 0) as mrr, count(stock) as customers,
           coalesce(sum(new_business), 0) as new_business, count(new_business) as new_customers,
           coalesce(sum(expansion), 0) as expansion, count(expansion) as expansion_customers,
           coalesce(sum(reactivation), 0) as reactivation, count(reactivation) as reactivated_customers,
           coalesce(sum(contraction), 0) as contraction, count(contraction) as contraction_customers,
           coalesce(sum(churn), 0) as churn, count(churn) as churned_customers,
           coalesce(sum(fx), 0) as fx
    from events
    group by segment_key, idx
  ),
  segments as (
    ${split.segments}
  )
select s.kind, s.segment, mo.label,
       coalesce(pm.mrr, 0)::double as mrr, coalesce(pm.customers, 0)::double as customers,
       coalesce(pm.new_business, 0)::double as newBusiness, coalesce(pm.expansion, 0)::double as expansion,
       coalesce(pm.reactivation, 0)::double as reactivation, coalesce(pm.contraction, 0)::double as contraction,
       coalesce(pm.churn, 0)::double as churn,
       case when ${matching} then coalesce(pm.fx, 0) else 0 end::double as fxAdjustment,
       coalesce(pm.new_customers, 0)::double as newCustomers, coalesce(pm.expansion_customers, 0)::double as expansionCustomers,
       coalesce(pm.reactivated_customers, 0)::double as reactivatedCustomers, coalesce(pm.contraction_customers, 0)::double as contractionCustomers,
       coalesce(pm.churned_customers, 0)::double as churnedCustomers
from segments s
cross join months mo
left join per_month pm on pm.segment_key = s.segment_key and pm.idx = mo.idx
where mo.month_start between ${rangeStart} and ${rangeEnd}
order by s.segment_key, mo.idx`;
}
