import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { createSnapshotBuilder, SnapshotError, type AccountSnapshot } from './snapshot';

/**
 * Reads one account into an AccountSnapshot. Every tenant query filters by account_id; large
 * tables are read in pages ordered by their primary key (keyset pagination: each page starts
 * after the last key of the one before), so no query returns a giant result and memory holds
 * one page of row objects at a time: the builder keeps only typed columns.
 */
export interface LoadSnapshotOptions {
  /** Rows per query (default 50,000). */
  pageSize?: number;
  /** Currencies to load ECB rates for besides those the account uses (e.g. a report currency). */
  extraCurrencies?: readonly string[];
}

export const DEFAULT_PAGE_SIZE = 50_000;

/** Pages of a keyset-paginated query: `fetch(after)` returns up to pageSize rows after the last row of the previous page. */
async function forEachPage<Key, Row extends Key>(pageSize: number, fetch: (after: Key | undefined) => Promise<Row[]>, onPage: (rows: Row[]) => void): Promise<number> {
  let after: Key | undefined;
  let total = 0;
  for (;;) {
    const rows = await fetch(after);
    if (rows.length > 0) onPage(rows);
    total += rows.length;
    if (rows.length < pageSize) return total;
    after = rows[rows.length - 1];
  }
}

export async function loadSnapshot(db: Kysely<DB>, accountId: string, options: LoadSnapshotOptions = {}): Promise<AccountSnapshot> {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new RangeError('pageSize must be a positive integer');
  const account = await db
    .selectFrom('accounts')
    .select(['id', 'currency', 'churn_window_seconds', 'take_exchange_rates_from', 'match_movements_by_currency', 'corrections_handling', 'include_metered_in_mrr'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!account) throw new SnapshotError(`no account '${accountId}'`);
  const builder = createSnapshotBuilder(account);
  const usedCurrencies = new Set<string>([account.currency, ...(options.extraCurrencies ?? [])]);

  builder.addCurrencies(await db.selectFrom('currencies').select(['iso', 'minor_unit_digits']).execute());
  builder.addObjectAttributes(await db.selectFrom('object_attributes').select(['id', 'name', 'object']).where('account_id', '=', accountId).orderBy('id').execute());

  await forEachPage(
    pageSize,
    (after: { id: string } | undefined) =>
      db
        .selectFrom('customers')
        .select(['id', 'name', 'parent_id', 'include_in_calculations_by_default', 'deleted_at'])
        .where('account_id', '=', accountId)
        .$if(after !== undefined, (q) => q.where('id', '>', after!.id))
        .orderBy('id')
        .limit(pageSize)
        .execute(),
    (rows) => builder.addCustomers(rows),
  );

  builder.addCustomerSegments(
    await db.selectFrom('customer_segments').select(['id', 'name', 'object_attribute_id', 'value_source', 'time_sensitive']).where('account_id', '=', accountId).orderBy('id').execute(),
  );
  await forEachPage(
    pageSize,
    (after: { customer_id: string; segment_id: string; year: number; month: number } | undefined) =>
      db
        .selectFrom('customer_segment_values')
        .select(['customer_id', 'segment_id', 'year', 'month', 'value'])
        .where('account_id', '=', accountId)
        .$if(after !== undefined, (q) =>
          q.where((eb) =>
            eb(eb.refTuple('customer_id', 'segment_id', 'year', 'month'), '>', eb.tuple(after!.customer_id, after!.segment_id, after!.year, after!.month)),
          ),
        )
        .orderBy('customer_id').orderBy('segment_id').orderBy('year').orderBy('month')
        .limit(pageSize)
        .execute(),
    (rows) => builder.addCustomerSegmentValues(rows),
  );

  await forEachPage(
    pageSize,
    (after: { key: string } | undefined) =>
      db
        .selectFrom('products')
        .select(['key', 'name'])
        .where('account_id', '=', accountId)
        .$if(after !== undefined, (q) => q.where('key', '>', after!.key))
        .orderBy('key')
        .limit(pageSize)
        .execute(),
    (rows) => builder.addProducts(rows),
  );

  await forEachPage(
    pageSize,
    (after: { id: string } | undefined) =>
      db
        .selectFrom('payments')
        .select(['id', 'customer_id', 'started_at', 'duration_in_months', 'total_value', 'currency', 'version', 'deleted_at'])
        .where('account_id', '=', accountId)
        .$if(after !== undefined, (q) => q.where('id', '>', after!.id))
        .orderBy('id')
        .limit(pageSize)
        .execute(),
    (rows) => {
      for (const row of rows) usedCurrencies.add(row.currency);
      builder.addPayments(rows);
    },
  );

  await forEachPage(
    pageSize,
    (after: { payment_id: string; position: number } | undefined) =>
      db
        .selectFrom('payment_items')
        .select(['payment_id', 'position', 'product_key', 'type', 'quantity'])
        .where('account_id', '=', accountId)
        .$if(after !== undefined, (q) => q.where((eb) => eb(eb.refTuple('payment_id', 'position'), '>', eb.tuple(after!.payment_id, after!.position))))
        .orderBy('payment_id').orderBy('position')
        .limit(pageSize)
        .execute(),
    (rows) => builder.addPaymentItems(rows),
  );

  await forEachPage(
    pageSize,
    (after: { payment_id: string; position: number } | undefined) =>
      db
        .selectFrom('payment_discounts')
        .select(['payment_id', 'position', 'kind', 'monthly_amount'])
        .where('account_id', '=', accountId)
        .$if(after !== undefined, (q) => q.where((eb) => eb(eb.refTuple('payment_id', 'position'), '>', eb.tuple(after!.payment_id, after!.position))))
        .orderBy('payment_id').orderBy('position')
        .limit(pageSize)
        .execute(),
    (rows) => builder.addPaymentDiscounts(rows),
  );

  await forEachPage(
    pageSize,
    (after: { payment_id: string; attribute_id: string } | undefined) =>
      db
        .selectFrom('payment_segment_values')
        .select(['payment_id', 'attribute_id', 'value'])
        .where('account_id', '=', accountId)
        .$if(after !== undefined, (q) => q.where((eb) => eb(eb.refTuple('payment_id', 'attribute_id'), '>', eb.tuple(after!.payment_id, after!.attribute_id))))
        .orderBy('payment_id').orderBy('attribute_id')
        .limit(pageSize)
        .execute(),
    (rows) => builder.addPaymentSegmentValues(rows),
  );

  // Earlier versions only: the current one is the payment row itself.
  await forEachPage(
    pageSize,
    (after: { payment_id: string; version: number } | undefined) =>
      db
        .selectFrom('payment_versions')
        .select(['payment_id', 'version', 'customer_id', 'started_at', 'duration_in_months', 'total_value', 'currency', 'items', 'discounts', 'deleted', 'valid_from', 'valid_to'])
        .where('account_id', '=', accountId)
        .where('valid_to', 'is not', null)
        .$if(after !== undefined, (q) => q.where((eb) => eb(eb.refTuple('payment_id', 'version'), '>', eb.tuple(after!.payment_id, after!.version))))
        .orderBy('payment_id').orderBy('version')
        .limit(pageSize)
        .execute(),
    (rows) => {
      for (const row of rows) usedCurrencies.add(row.currency);
      builder.addPaymentVersions(rows);
    },
  );

  await forEachPage(
    pageSize,
    (after: { id: string } | undefined) =>
      db
        .selectFrom('costs')
        .select(['id', 'value', 'currency', 'date', 'name', 'invoice_number'])
        .where('account_id', '=', accountId)
        .$if(after !== undefined, (q) => q.where('id', '>', after!.id))
        .orderBy('id')
        .limit(pageSize)
        .execute(),
    (rows) => {
      for (const row of rows) usedCurrencies.add(row.currency);
      builder.addCosts(rows);
    },
  );
  await forEachPage(
    pageSize,
    (after: { cost_id: string; attribute_id: string } | undefined) =>
      db
        .selectFrom('cost_segment_values')
        .select(['cost_id', 'attribute_id', 'value'])
        .where('account_id', '=', accountId)
        .$if(after !== undefined, (q) => q.where((eb) => eb(eb.refTuple('cost_id', 'attribute_id'), '>', eb.tuple(after!.cost_id, after!.attribute_id))))
        .orderBy('cost_id').orderBy('attribute_id')
        .limit(pageSize)
        .execute(),
    (rows) => builder.addCostSegmentValues(rows),
  );

  await forEachPage(
    pageSize,
    (after: { id: string } | undefined) =>
      db
        .selectFrom('deals')
        .select(['id', 'name', 'value', 'currency', 'stage', 'stage_changed_at', 'created_at', 'customer_id', 'public_id', 'owner_name', 'external_url'])
        .where('account_id', '=', accountId)
        .$if(after !== undefined, (q) => q.where('id', '>', after!.id))
        .orderBy('id')
        .limit(pageSize)
        .execute(),
    (rows) => {
      for (const row of rows) usedCurrencies.add(row.currency);
      builder.addDeals(rows);
    },
  );

  const accountRates = await db.selectFrom('account_exchange_rates').select(['since', 'iso', 'rate']).where('account_id', '=', accountId).orderBy('since').orderBy('iso').execute();
  builder.addAccountExchangeRates(accountRates);
  for (const row of accountRates) usedCurrencies.add(row.iso);
  // Currencies a report of this account may be shown in.
  const reportCurrencies = await db
    .selectFrom('report_settings')
    .select('currency')
    .distinct()
    .where('account_id', '=', accountId)
    .where('currency', 'is not', null)
    .union(db.selectFrom('business_reports').select('currency').distinct().where('account_id', '=', accountId).where('currency', 'is not', null))
    .execute();
  for (const row of reportCurrencies) if (row.currency) usedCurrencies.add(row.currency);

  // ECB rates (a shared reference table) of the currencies this account needs.
  const currencies = [...usedCurrencies].filter((iso) => iso !== 'EUR').sort();
  if (currencies.length > 0) {
    await forEachPage(
      pageSize,
      (after: { day: string; currency: string } | undefined) =>
        db
          .selectFrom('exchange_rates')
          .select(['day', 'currency', 'rate_per_eur'])
          .where('currency', 'in', currencies)
          .$if(after !== undefined, (q) => q.where((eb) => eb(eb.refTuple('day', 'currency'), '>', eb.tuple(after!.day, after!.currency))))
          .orderBy('day').orderBy('currency')
          .limit(pageSize)
          .execute(),
      (rows) => builder.addExchangeRates(rows),
    );
  }
  return builder.finish();
}
