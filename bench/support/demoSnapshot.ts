import { DEMO_COST_ATTRIBUTE, DEMO_CUSTOMER_SEGMENTS, DEMO_PAYMENT_ATTRIBUTE, type DemoBusiness, type DemoPayment } from '../../server/demo/generate';
import { createSnapshotBuilder } from '../../server/metrics/snapshot/builder';
import { type AccountRow, type ExchangeRateRow } from '../../server/metrics/snapshot/rows';
import { type AccountSnapshot } from '../../server/metrics/snapshot/columns';
import { readEcbHistory } from '../../server/rates/ecbHistory';

/**
 * The engine's snapshot of a generated business, built from the same rows `seedDemoAccount`
 * writes (customers, attribute histories, payments with items, discounts, the payment
 * attribute and the versions of corrected payments, costs) a page at a time, as
 * `loadSnapshot` feeds the builder, so a million payments never exist twice as row objects.
 */

export const DEMO_ACCOUNT_ID = 'acc_bench';
export const PAYMENT_ATTRIBUTE_ID = 'att_channel';
export const COST_ATTRIBUTE_ID = 'att_category';
const PAGE = 50_000;

/** The account's settings at their database defaults (reporting in USD). */
export function demoAccountRow(overrides: Partial<AccountRow> = {}): AccountRow {
  return {
    id: DEMO_ACCOUNT_ID,
    currency: 'USD',
    churn_window_seconds: 0,
    take_exchange_rates_from: 'subscription_started_at',
    match_movements_by_currency: true,
    corrections_handling: 'change_original',
    include_metered_in_mrr: false,
    ...overrides,
  };
}

/** The shipped ECB history of the given currencies (units per euro), as the exchange_rates table holds it. */
export async function ecbRateRows(currencies: readonly string[]): Promise<ExchangeRateRow[]> {
  const wanted = new Set(currencies);
  const rows: ExchangeRateRow[] = [];
  for await (const row of readEcbHistory()) if (wanted.has(row.currency)) rows.push({ day: row.day, currency: row.currency, rate_per_eur: row.ratePerEur });
  return rows;
}

export function segmentId(key: string): string {
  return `seg_${key}`;
}

function pages<T, R>(items: readonly T[], map: (item: T) => readonly R[], add: (rows: R[]) => void): void {
  for (let start = 0; start < items.length; start += PAGE) {
    const rows: R[] = [];
    const end = Math.min(items.length, start + PAGE);
    for (let i = start; i < end; i++) rows.push(...map(items[i] as T));
    add(rows);
  }
}

function utcMidnight(day: string): string {
  return `${day}T00:00:00.000Z`;
}

/**
 * A generated payment, or one whose period a test changed: any end day, open-ended (ended_at,
 * duration and total null, monthly_amount set), an exact monthly amount.
 */
export type PeriodPayment = Omit<DemoPayment, 'ended_at' | 'duration_in_months' | 'total_value'> & {
  ended_at: string | null;
  duration_in_months: number | null;
  total_value: number | null;
  monthly_amount?: number | null;
};
export type PeriodBusiness = Omit<DemoBusiness, 'payments'> & { payments: readonly PeriodPayment[] };

export function buildDemoSnapshot(business: PeriodBusiness, rates: readonly ExchangeRateRow[], account: AccountRow = demoAccountRow()): AccountSnapshot {
  const builder = createSnapshotBuilder(account);
  builder.addCurrencies([
    { iso: 'USD', minor_unit_digits: 2 },
    { iso: 'EUR', minor_unit_digits: 2 },
    { iso: 'PLN', minor_unit_digits: 2 },
  ]);
  builder.addObjectAttributes([
    ...DEMO_CUSTOMER_SEGMENTS.map((segment) => ({ id: `att_${segment.key}`, name: segment.name, object: 'customer' as const })),
    { id: PAYMENT_ATTRIBUTE_ID, name: DEMO_PAYMENT_ATTRIBUTE, object: 'subscription_history' as const },
    { id: COST_ATTRIBUTE_ID, name: DEMO_COST_ATTRIBUTE, object: 'cost' as const },
  ]);
  pages(business.customers, (c) => [{ id: c.id, name: c.name, parent_id: c.parent_id, include_in_calculations_by_default: c.include_in_calculations_by_default }], (rows) =>
    builder.addCustomers(rows),
  );
  builder.addCustomerSegments(
    DEMO_CUSTOMER_SEGMENTS.map((segment) => ({
      id: segmentId(segment.key),
      name: segment.name,
      object_attribute_id: `att_${segment.key}`,
      value_source: 'parent_and_children' as const,
      time_sensitive: segment.time_sensitive,
    })),
  );
  pages(business.segmentValues, (v) => [{ customer_id: v.customer_id, segment_id: segmentId(v.segment), year: v.year, month: v.month, value: v.value }], (rows) =>
    builder.addCustomerSegmentValues(rows),
  );
  builder.addProducts(business.products);
  const { payments } = business;
  pages(
    payments,
    (p) => [
      {
        id: p.id,
        customer_id: p.customer_id,
        started_at: p.started_at,
        ended_at: p.ended_at,
        duration_in_months: p.duration_in_months,
        total_value: p.total_value,
        monthly_amount: p.monthly_amount ?? null,
        currency: p.currency,
        version: p.correction ? 2 : 1,
      },
    ],
    (rows) => builder.addPayments(rows),
  );
  pages(payments, (p) => p.items.map((item, position) => ({ payment_id: p.id, position, product_key: item.product_key, type: item.type, quantity: item.quantity })), (rows) =>
    builder.addPaymentItems(rows),
  );
  pages(payments, (p) => (p.discount ? [{ payment_id: p.id, kind: p.discount.kind, monthly_amount: p.discount.monthly_amount }] : []), (rows) => builder.addPaymentDiscounts(rows));
  pages(payments, (p) => [{ payment_id: p.id, attribute_id: PAYMENT_ATTRIBUTE_ID, value: p.channel }], (rows) => builder.addPaymentSegmentValues(rows));
  // A corrected payment keeps its first recording as version 1 (the payment row is version 2).
  pages(
    payments,
    (p) =>
      p.correction
        ? [
            {
              payment_id: p.id,
              version: 1,
              customer_id: p.customer_id,
              started_at: p.started_at,
              ended_at: p.ended_at,
              duration_in_months: p.duration_in_months,
              total_value: p.correction.original_total_value,
              currency: p.currency,
              items: p.items,
              discounts: p.discount ? [{ ...p.discount }] : [],
              deleted: false,
              valid_from: utcMidnight(p.started_at),
              valid_to: `${p.correction.corrected_on}T12:00:00.000Z`,
            },
          ]
        : [],
    (rows) => builder.addPaymentVersions(rows),
  );
  builder.addCosts(business.costs.map((c) => ({ id: c.id, value: c.value, currency: c.currency, date: c.date })));
  builder.addCostSegmentValues(business.costs.map((c) => ({ cost_id: c.id, attribute_id: COST_ATTRIBUTE_ID, value: c.category })));
  builder.addExchangeRates(rates);
  return builder.finish();
}
