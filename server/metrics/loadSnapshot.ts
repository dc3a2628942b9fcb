import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/database';
import type { DB, DiscountKind, ItemType } from '../db/schema';
import { probeStoredCopy, readStoredCopy, writeStoredCopy } from './snapshotStore';
import { DAY_NEVER_AFTER } from './days';
import { ITEM_TYPES, SnapshotError, type CustomerRow } from './snapshot/rows';
import { createSnapshotBuilder, type RawSnapshotSink } from './snapshot/builder';
import { type AccountSnapshot } from './snapshot/columns';

/**
 * Reads one account into an AccountSnapshot: one pass over each table, every tenant query
 * filtered by account_id, all of it inside one read-only REPEATABLE READ transaction, so the
 * tables agree with each other even while an import writes.
 *
 * The large tables (customers, their segment values, payments, items, payment attribute
 * values) do not come back as rows. Each query returns a handful of rows per table (one per
 * group of low-cardinality columns: currency, version, deleted; product, type, position;
 * attribute and value) whose columns are whole columns of the table joined into one text
 * value: keys joined by U+001F (the schema forbids control characters in keys: migration
 * 0003), numbers by commas, free text with its lengths. Both engines build such a value far faster than they send a million rows
 * (PGlite most of all: its per-row protocol decoding was 90% of the old read), and the client
 * reads it in place: numbers parsed from character codes, keys hashed as slices of the big
 * string (server/metrics/keyIndex.ts), no row objects. docs/metrics.md, "Reading the snapshot".
 */
export interface LoadSnapshotOptions {
  /** Currencies to load ECB rates for besides those the account uses (e.g. a report currency). */
  extraCurrencies?: readonly string[];
  /** Called after each step with the milliseconds it took (the benchmark prints them). */
  onStep?: (step: string, ms: number) => void;
  /** 'off' reads the tables and stores nothing (default, with a `Database`: use the stored copy when current, write one after a table read). */
  store?: 'use' | 'off';
  /** Where the snapshot came from. */
  onSource?: (source: 'store' | 'tables') => void;
  /** Receives the background write of the stored copy after a table read (true when written); its failure is already handled. */
  onStoreWrite?: (write: Promise<boolean>) => void;
}

const KEY_SEPARATOR = '\u001f';
const COMMA = 44;
const MINUS = 45;
const ZERO = 48;

/** Positions of `count` keys joined by U+001F in `text`: key k is [starts[k], starts[k + 1] - 1). */
function splitKeys(text: string, count: number, what: string): Int32Array {
  const starts = new Int32Array(count + 1);
  let at = 0;
  for (let k = 0; k < count; k++) {
    starts[k] = at;
    const next = text.indexOf(KEY_SEPARATOR, at);
    at = next < 0 ? text.length + 1 : next + 1;
  }
  starts[count] = at;
  if (count > 0 && at !== text.length + 1) throw new SnapshotError(`${what}: expected ${count} keys`);
  if (count === 0 && text.length > 0) throw new SnapshotError(`${what}: expected no keys`);
  return starts;
}

/** `count` integers joined by commas (the int-to-text output of PostgreSQL). */
function parseIntegers(text: string, count: number, what: string): Float64Array {
  const out = new Float64Array(count);
  let at = 0;
  const end = text.length;
  for (let k = 0; k < count; k++) {
    let negative = false;
    if (text.charCodeAt(at) === MINUS) {
      negative = true;
      at++;
    }
    let value = 0;
    let digits = 0;
    for (; at < end; at++) {
      const c = text.charCodeAt(at) - ZERO;
      if (c < 0 || c > 9) break;
      value = value * 10 + c;
      digits++;
    }
    if (digits === 0 || (at < end && text.charCodeAt(at) !== COMMA)) throw new SnapshotError(`${what}: not a list of ${count} integers`);
    out[k] = negative ? -value : value;
    at++;
  }
  if (count > 0 ? at !== end + 1 : end !== 0) throw new SnapshotError(`${what}: not a list of ${count} integers`);
  return out;
}

/** `count` numbers joined by commas (decimal output, e.g. of a numeric). */
function parseDecimals(text: string, count: number, what: string): Float64Array {
  const parts = count === 0 ? [] : text.split(',');
  if (parts.length !== count) throw new SnapshotError(`${what}: not a list of ${count} numbers`);
  return Float64Array.from(parts, Number);
}

/**
 * `count` numbers joined by commas where an empty entry is a null (NaN); a whole number is
 * parsed in place, anything else (a fraction, an exponent) by Number.
 */
function parseOptionalDecimals(text: string, count: number, what: string): Float64Array {
  const out = new Float64Array(count);
  let at = 0;
  const end = text.length;
  for (let k = 0; k < count; k++) {
    let next = text.indexOf(',', at);
    if (next < 0) next = end;
    if (next === at) out[k] = NaN;
    else {
      let value = 0;
      let whole = true;
      for (let i = at; i < next && whole; i++) {
        const c = text.charCodeAt(i) - ZERO;
        if (c < 0 || c > 9) whole = false;
        else value = value * 10 + c;
      }
      out[k] = whole ? value : Number(text.slice(at, next));
      if (Number.isNaN(out[k])) throw new SnapshotError(`${what}: '${text.slice(at, next)}' is not a number`);
    }
    at = next + 1;
  }
  if (count > 0 ? at !== end + 1 : end !== 0) throw new SnapshotError(`${what}: not a list of ${count} numbers`);
  return out;
}

/**
 * Free text aggregated without separators, cut by its lengths. PostgreSQL counts characters
 * (code points), JavaScript strings count UTF-16 units: a character outside the Basic
 * Multilingual Plane (an emoji) is two units.
 */
function cutByLengths(text: string, lengths: Float64Array, what: string): string[] {
  const out = new Array<string>(lengths.length);
  let at = 0;
  for (let k = 0; k < lengths.length; k++) {
    const from = at;
    for (let left = lengths[k] as number; left > 0 && at < text.length; left--) {
      const unit = text.charCodeAt(at);
      at += unit >= 0xd800 && unit <= 0xdbff ? 2 : 1;
    }
    out[k] = text.slice(from, at);
  }
  if (at !== text.length) throw new SnapshotError(`${what}: lengths do not add up`);
  return out;
}

async function rows(trx: Transaction<DB>, query: ReturnType<typeof sql>): Promise<Row[]> {
  return (await query.execute(trx)).rows as Row[];
}

const text = (row: Row, column: string): string => (row[column] as string | null) ?? '';
const count = (row: Row): number => Number(row.n);

const readOnly = (kysely: Kysely<DB>) => kysely.transaction().setIsolationLevel('repeatable read').setAccessMode('read only');

type LargeResults = Record<LargeQuery, Promise<Row[]>>;
type LargeQuery = 'customers' | 'customer_segment_values' | 'payments' | 'payment_items' | 'payment_discounts' | 'payment_attribute_values';
type Row = Record<string, unknown>;

const isDatabase = (db: Database | Kysely<DB>): db is Database => 'kysely' in db && 'readBytes' in db;

/**
 * With a `Database`, the account's stored copy (snapshotStore.ts) is used when it is current
 * and holds the rates asked for; otherwise the snapshot is read from the tables and a copy is
 * written in the background. A bare Kysely always reads the tables.
 *
 * On PostgreSQL the payments, the largest query, run on a second pooled connection in a
 * transaction that imports the first one's snapshot (`pg_export_snapshot`, `set transaction
 * snapshot`): the server builds both halves at once, on two cores, and both see exactly the
 * same data. (The pool must allow two connections; the server's has ten.)
 */
export async function loadSnapshot(db: Database | Kysely<DB>, accountId: string, options: LoadSnapshotOptions = {}): Promise<AccountSnapshot> {
  const useStore = options.store !== 'off' && isDatabase(db);
  if (useStore) {
    const from = performance.now();
    const probe = await probeStoredCopy(db, accountId, options.extraCurrencies ?? []);
    const stored = probe?.usable ? await readStoredCopy(db, accountId, probe.version) : null;
    if (stored) {
      options.onStep?.('stored copy', performance.now() - from);
      options.onSource?.('store');
      return stored;
    }
  }
  options.onSource?.('tables');
  const kysely = 'kysely' in db ? db.kysely : db;
  const parallel = 'kind' in db && db.kind === 'postgresql';
  const { snapshot, version, currencies: asked } = await readOnly(kysely).execute((trx) =>
    readAccount(trx, accountId, options, () => {
      // The payments query goes to the twin connection as soon as the snapshot is exported.
      const payments = parallel ? paymentsOnTwin(kysely, trx, accountId) : rows(trx, paymentsSql(accountId));
      // Sent in the order they are consumed: the connection runs them one after another.
      return {
        customers: started(rows(trx, customersSql(accountId))),
        customer_segment_values: started(rows(trx, customerSegmentValuesSql(accountId))),
        payments: started(payments),
        payment_items: started(rows(trx, paymentItemsSql(accountId))),
        payment_discounts: started(rows(trx, paymentDiscountsSql(accountId))),
        payment_attribute_values: started(rows(trx, paymentAttributeValuesSql(accountId))),
      };
    }),
  );
  if (useStore) {
    // Every currency the read asked rates for (found or not), so that the same request finds the copy.
    const currencies = [...new Set([...snapshot.currencies.values, ...asked])].sort();
    // A failed write costs only speed: the next read goes to the tables again.
    const write = writeStoredCopy(db, accountId, version, currencies, snapshot).catch(() => false);
    options.onStoreWrite?.(write);
  }
  return snapshot;
}

/** The payments query on a second connection whose transaction imports `trx`'s snapshot. */
async function paymentsOnTwin(kysely: Kysely<DB>, trx: Transaction<DB>, accountId: string): Promise<Row[]> {
  const [exported] = await rows(trx, sql`select pg_export_snapshot() as snapshot`);
  return readOnly(kysely).execute(async (twin) => {
    await sql`set transaction snapshot ${sql.lit(String(exported?.snapshot))}`.execute(twin);
    return rows(twin, paymentsSql(accountId));
  });
}

/** A query started now and awaited later: its failure surfaces where it is awaited, never as an unhandled rejection. */
function started<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

async function readAccount(trx: Transaction<DB>, accountId: string, options: LoadSnapshotOptions, startLarge: () => LargeResults): Promise<{ snapshot: AccountSnapshot; version: number; currencies: string[] }> {
  // Every query is sent at once: the connection runs them one after another while this
  // process turns the earlier results into columns (PostgreSQL works in parallel with us).
  const accountQuery = started(
    trx
      .selectFrom('accounts')
      .select(['id', 'currency', 'churn_window_seconds', 'take_exchange_rates_from', 'match_movements_by_currency', 'corrections_handling', 'include_metered_in_mrr', 'data_version'])
      .where('id', '=', accountId)
      .executeTakeFirst(),
  );
  const currencyQuery = started(trx.selectFrom('currencies').select(['iso', 'minor_unit_digits']).execute());
  const attributeQuery = started(trx.selectFrom('object_attributes').select(['id', 'name', 'object']).where('account_id', '=', accountId).orderBy('id').execute());
  const segmentQuery = started(
    trx.selectFrom('customer_segments').select(['id', 'name', 'object_attribute_id', 'value_source', 'time_sensitive']).where('account_id', '=', accountId).orderBy('id').execute(),
  );
  const productQuery = started(trx.selectFrom('products').select(['key', 'name']).where('account_id', '=', accountId).orderBy('key').execute());
  // Earlier versions only (a partial index finds them): the current one is the payment row itself.
  const versionQuery = started(
    trx
      .selectFrom('payment_versions')
      .select(['payment_id', 'version', 'customer_id', 'started_at', 'ended_at', 'duration_in_months', 'total_value', 'monthly_amount', 'currency', 'items', 'discounts', 'deleted', 'valid_from', 'valid_to'])
      .where('account_id', '=', accountId)
      .where('valid_to', 'is not', null)
      .orderBy('payment_id').orderBy('version')
      .execute(),
  );
  const costQuery = started(trx.selectFrom('costs').select(['id', 'value', 'currency', 'date', 'name', 'invoice_number']).where('account_id', '=', accountId).orderBy('id').execute());
  const costValueQuery = started(
    trx.selectFrom('cost_segment_values').select(['cost_id', 'attribute_id', 'value']).where('account_id', '=', accountId).orderBy('cost_id').orderBy('attribute_id').execute(),
  );
  const dealQuery = started(
    trx
      .selectFrom('deals')
      .select(['id', 'name', 'value', 'currency', 'stage', 'stage_changed_at', 'created_at', 'customer_id', 'public_id', 'owner_name', 'external_url'])
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute(),
  );
  const accountRateQuery = started(trx.selectFrom('account_exchange_rates').select(['since', 'iso', 'rate']).where('account_id', '=', accountId).orderBy('since').orderBy('iso').execute());
  // Currencies a report of this account may be shown in.
  const reportCurrencyQuery = started(
    trx
      .selectFrom('report_settings')
      .select('currency')
      .distinct()
      .where('account_id', '=', accountId)
      .where('currency', 'is not', null)
      .union(trx.selectFrom('business_reports').select('currency').distinct().where('account_id', '=', accountId).where('currency', 'is not', null))
      .execute(),
  );

  const large = startLarge();

  const account = await accountQuery;
  if (!account) throw new SnapshotError(`no account '${accountId}'`);
  let last = performance.now();
  const step = (name: string) => {
    const now = performance.now();
    options.onStep?.(name, now - last);
    last = now;
  };
  const builder = createSnapshotBuilder(account);
  const raw = builder.raw;
  const usedCurrencies = new Set<string>([account.currency, ...(options.extraCurrencies ?? [])]);

  builder.addCurrencies(await currencyQuery);
  builder.addObjectAttributes(await attributeQuery);
  builder.addCustomers(customersOf(await large.customers));
  step('customers');
  builder.addCustomerSegments(await segmentQuery);
  addCustomerSegmentValues(await large.customer_segment_values, raw);
  step('customer segment values');
  builder.addProducts(await productQuery);
  for (const iso of addPayments(await large.payments, raw)) usedCurrencies.add(iso);
  step('payments');
  addPaymentItems(await large.payment_items, raw);
  step('payment items');
  addPaymentDiscounts(await large.payment_discounts, raw);
  addPaymentAttributeValues(await large.payment_attribute_values, raw);
  step('payment attribute values');
  const versions = await versionQuery;
  for (const row of versions) usedCurrencies.add(row.currency);
  builder.addPaymentVersions(versions);
  step('payment versions');
  const costs = await costQuery;
  for (const row of costs) usedCurrencies.add(row.currency);
  builder.addCosts(costs);
  builder.addCostSegmentValues(await costValueQuery);
  const deals = await dealQuery;
  for (const row of deals) usedCurrencies.add(row.currency);
  builder.addDeals(deals);
  const accountRates = await accountRateQuery;
  builder.addAccountExchangeRates(accountRates);
  for (const row of accountRates) usedCurrencies.add(row.iso);
  for (const row of await reportCurrencyQuery) if (row.currency) usedCurrencies.add(row.currency);
  step('costs and deals');

  // ECB rates (a shared reference table) of the currencies this account needs.
  const currencies = [...usedCurrencies].filter((iso) => iso !== 'EUR').sort();
  if (currencies.length > 0) addExchangeRates(await rows(trx, exchangeRatesSql(currencies)), raw);
  step('exchange rates');
  const snapshot = builder.finish();
  step('columns');
  return { snapshot, version: Number(account.data_version), currencies: [...usedCurrencies] };
}

const customersSql = (accountId: string) =>
  sql`select count(*) as n,
          string_agg(id, E'\\x1f') as ids,
          string_agg(coalesce(parent_id, ''), E'\\x1f') as parents,
          string_agg(name, '') as names,
          string_agg(length(name)::text, ',') as name_lengths,
          string_agg((case when include_in_calculations_by_default then '1' else '0' end) || (case when deleted_at is null then '0' else '1' end), '') as flags
        from customers where account_id = ${accountId}`;

function customersOf(result: Row[]): CustomerRow[] {
  const [row] = result;
  if (!row) return [];
  const n = count(row);
  const ids = text(row, 'ids');
  const idStarts = splitKeys(ids, n, 'customer ids');
  const parents = text(row, 'parents');
  const parentStarts = splitKeys(parents, n, 'customer parents');
  const names = cutByLengths(text(row, 'names'), parseIntegers(text(row, 'name_lengths'), n, 'customer name lengths'), 'customer names');
  const flags = text(row, 'flags');
  const customers: CustomerRow[] = new Array(n);
  for (let k = 0; k < n; k++) {
    const parentStart = parentStarts[k] as number;
    const parentEnd = (parentStarts[k + 1] as number) - 1;
    customers[k] = {
      id: ids.slice(idStarts[k], (idStarts[k + 1] as number) - 1),
      name: names[k] as string,
      parent_id: parentEnd > parentStart ? parents.slice(parentStart, parentEnd) : null,
      include_in_calculations_by_default: flags.charCodeAt(2 * k) === 49,
      // The builder only asks whether a customer is deleted, not when.
      deleted_at: flags.charCodeAt(2 * k + 1) === 49 ? 'deleted' : null,
    };
  }
  return customers;
}

/** Resolves keys joined by U+001F to indices with `find`, failing on an unknown one. */
function resolveKeys(keys: string, n: number, what: string, find: (text: string, start: number, end: number, hint: number) => number): Int32Array {
  const starts = splitKeys(keys, n, what);
  const out = new Int32Array(n);
  let found = -1;
  for (let k = 0; k < n; k++) {
    const start = starts[k] as number;
    const end = (starts[k + 1] as number) - 1;
    found = find(keys, start, end, found);
    if (found < 0) throw new SnapshotError(`${what} refers to unknown '${keys.slice(start, end)}'`);
    out[k] = found;
  }
  return out;
}

// Each grouped read is ordered: a hash aggregate's (or a synchronized scan's) order varies from
// read to read on PostgreSQL, and the dictionaries are built in the order the groups come, so an
// unordered read gave two encodings of the same data (a stored copy unequal to a fresh read).
const customerSegmentValuesSql = (accountId: string) =>
  sql`select segment_id, value, count(*) as n,
          string_agg(customer_id, E'\\x1f') as customers,
          string_agg((year * 12 + month - 1)::text, ',') as months
        from customer_segment_values where account_id = ${accountId}
        group by segment_id, value
        order by segment_id, value`;

function addCustomerSegmentValues(groups: Row[], raw: RawSnapshotSink): void {
  for (const group of groups) {
    const n = count(group);
    const segmentId = group.segment_id as string;
    const value = group.value as string | null;
    const customers = resolveKeys(text(group, 'customers'), n, `segment '${segmentId}' value`, raw.customerOf);
    raw.addCustomerSegmentValues(segmentId, value, customers, parseIntegers(text(group, 'months'), n, 'segment value months'));
  }
}

// An open-ended payment (ended_at null) comes with the end day DAY_NEVER_AFTER and an empty
// duration and total; a null monthly amount (total / duration) comes empty.
const paymentsSql = (accountId: string) =>
  sql`select currency, version, deleted_at is not null as deleted, count(*) as n,
          string_agg(id, E'\\x1f') as ids,
          string_agg(customer_id, E'\\x1f') as customers,
          string_agg((started_at - date '1970-01-01')::text, ',') as starts,
          string_agg(coalesce(ended_at - date '1970-01-01', ${sql.lit(DAY_NEVER_AFTER)})::text, ',') as ends,
          string_agg(coalesce(duration_in_months::text, ''), ',') as durations,
          string_agg(coalesce(total_value::text, ''), ',') as totals,
          string_agg(coalesce(monthly_amount::text, ''), ',') as monthlies
        from payments where account_id = ${accountId}
        group by currency, version, deleted_at is not null
        order by currency, version, deleted_at is not null`;

/** Returns the currencies the payments use. */
function addPayments(groups: Row[], raw: RawSnapshotSink): string[] {
  const currencies = new Set<string>();
  raw.reservePayments(groups.reduce((sum, group) => sum + count(group), 0));
  for (const group of groups) {
    const n = count(group);
    const iso = group.currency as string;
    currencies.add(iso);
    const currency = raw.currencyOf(iso);
    const version = Number(group.version);
    const deleted = group.deleted === true;
    const ids = text(group, 'ids');
    const source = raw.paymentIdSource(ids);
    const idStarts = splitKeys(ids, n, 'payment ids');
    const customers = resolveKeys(text(group, 'customers'), n, 'payment customer', raw.customerOf);
    const starts = parseIntegers(text(group, 'starts'), n, 'payment starts');
    const ends = parseIntegers(text(group, 'ends'), n, 'payment ends');
    const durations = parseOptionalDecimals(text(group, 'durations'), n, 'payment durations');
    const totals = parseOptionalDecimals(text(group, 'totals'), n, 'payment totals');
    const monthlies = parseOptionalDecimals(text(group, 'monthlies'), n, 'payment monthly amounts');
    for (let k = 0; k < n; k++) {
      raw.addPayment(
        source,
        idStarts[k] as number,
        (idStarts[k + 1] as number) - 1,
        customers[k] as number,
        starts[k] as number,
        ends[k] as number,
        durations[k] as number,
        totals[k] as number,
        monthlies[k] as number,
        currency,
        version,
        deleted,
      );
    }
  }
  return [...currencies];
}

const paymentItemsSql = (accountId: string) =>
  sql`select product_key, type, position, count(*) as n,
          string_agg(payment_id, E'\\x1f') as payments,
          string_agg(quantity::text, ',') as quantities
        from payment_items where account_id = ${accountId}
        group by product_key, type, position
        order by product_key, type, position`;

function addPaymentItems(groups: Row[], raw: RawSnapshotSink): void {
  for (const group of groups) {
    const n = count(group);
    const product = raw.productOf(group.product_key as string);
    const type = ITEM_TYPES.indexOf(group.type as ItemType);
    if (type < 0) throw new SnapshotError(`unknown item type '${String(group.type)}'`);
    const payments = resolveKeys(text(group, 'payments'), n, 'payment item', raw.paymentOf);
    raw.addPaymentItems(product, type, payments, new Float64Array(n).fill(Number(group.position)), parseIntegers(text(group, 'quantities'), n, 'item quantities'));
  }
}

const paymentDiscountsSql = (accountId: string) =>
  sql`select kind, count(*) as n,
          string_agg(payment_id, E'\\x1f') as payments,
          string_agg(monthly_amount::text, ',') as amounts,
          string_agg(coalesce(months, 0)::text, ',') as months
        from payment_discounts where account_id = ${accountId}
        group by kind
        order by kind`;

function addPaymentDiscounts(groups: Row[], raw: RawSnapshotSink): void {
  for (const group of groups) {
    const n = count(group);
    const kind = group.kind as DiscountKind;
    if (kind !== 'forever' && kind !== 'finite') throw new SnapshotError(`unknown discount kind '${String(kind)}'`);
    const payments = resolveKeys(text(group, 'payments'), n, 'payment discount', raw.paymentOf);
    raw.addPaymentDiscounts(kind, payments, parseIntegers(text(group, 'amounts'), n, 'discount amounts'), parseIntegers(text(group, 'months'), n, 'discount months'));
  }
}

const paymentAttributeValuesSql = (accountId: string) =>
  sql`select attribute_id, value, count(*) as n, string_agg(payment_id, E'\\x1f') as payments
        from payment_segment_values where account_id = ${accountId}
        group by attribute_id, value
        order by attribute_id, value`;

function addPaymentAttributeValues(groups: Row[], raw: RawSnapshotSink): void {
  for (const group of groups) {
    const n = count(group);
    const attributeId = group.attribute_id as string;
    const value = group.value as string | null;
    raw.addPaymentAttributeValues(attributeId, value, resolveKeys(text(group, 'payments'), n, 'payment attribute value', raw.paymentOf));
  }
}

const exchangeRatesSql = (currencies: string[]) =>
  sql`select currency, count(*) as n,
          string_agg((day - date '1970-01-01')::text, ',') as days,
          string_agg(rate_per_eur::text, ',') as rates
        from exchange_rates where currency in (${sql.join(currencies)})
        group by currency
        order by currency`;

function addExchangeRates(groups: Row[], raw: RawSnapshotSink): void {
  for (const group of groups) {
    const n = count(group);
    const currency = raw.currencyOf(group.currency as string);
    const days = parseIntegers(text(group, 'days'), n, 'rate days');
    const rates = parseDecimals(text(group, 'rates'), n, 'rates');
    for (let k = 0; k < n; k++) raw.addExchangeRate(days[k] as number, currency, rates[k] as number);
  }
}
