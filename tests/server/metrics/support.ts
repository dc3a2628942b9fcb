import type { DiscountKind, ItemType } from '../../../server/db/schema';
import { dayFromIso, durationInMonths } from '../../../server/metrics/days';
import type { ReportFilter } from '../../../server/metrics/filters';
import { computeMrrSeries, type MrrSeriesResult, type SegmentSeries } from '../../../server/metrics/mrrSeries';
import type { Resolution } from '../../../server/metrics/periods';
import type { Segmenter } from '../../../server/metrics/segments';
import type { ReportSettingsInput } from '../../../server/metrics/settings';
import { buildSnapshot } from '../../../server/metrics/snapshot/builder';
import { type AccountRow, type CostRow, type CustomerRow, type CustomerSegmentRow, type CustomerSegmentValueRow, type DealRow, type ExchangeRateRow, type PaymentVersionRow } from '../../../server/metrics/snapshot/rows';
import { type AccountSnapshot } from '../../../server/metrics/snapshot/columns';

/** Compact fixtures for the metrics engine: a business described in a few lines. */

export function accountRow(overrides: Partial<AccountRow> = {}): AccountRow {
  return {
    id: 'acc1',
    currency: 'USD',
    churn_window_seconds: 0,
    take_exchange_rates_from: 'subscription_started_at',
    match_movements_by_currency: true,
    corrections_handling: 'change_original',
    include_metered_in_mrr: false,
    ...overrides,
  };
}

export interface PaymentSpec {
  id?: string;
  customer: string;
  /** 'YYYY-MM-DD'. */
  start: string;
  months?: number;
  /** 'YYYY-MM-DD', the first day after the period (any later day; duration: days / (365 / 12) unless whole months); null: open-ended (needs `monthly`). */
  end?: string | null;
  /** Minor units, before discounts; null when open-ended. */
  total: number | null;
  /** The exact monthly amount (default: total / months). */
  monthly?: number;
  currency?: string;
  type?: ItemType;
  product?: string;
  quantity?: number;
  /** Several items (the value is split evenly between them). */
  items?: { product: string; type?: ItemType; quantity?: number }[];
  discounts?: { kind: DiscountKind; monthly: number; months?: number }[];
  /** Payment attributes by attribute id. */
  attributes?: Record<string, string>;
  deleted?: boolean;
}

export interface BusinessSpec {
  account?: Partial<AccountRow>;
  /** Customers by id (default: every customer a payment names, no parent, included). */
  customers?: (string | Partial<CustomerRow> & { id: string })[];
  payments: PaymentSpec[];
  segments?: CustomerSegmentRow[];
  segmentValues?: CustomerSegmentValueRow[];
  versions?: PaymentVersionRow[];
  /** Payment attributes to declare besides those the payments use. */
  paymentAttributes?: string[];
  rates?: ExchangeRateRow[];
  accountRates?: { since: string; iso: string; rate: number }[];
  /** CRM deals (the deals section, the deal owner filter). */
  deals?: DealRow[];
  /** Costs, each with its cost attributes by attribute id. */
  costs?: (CostRow & { attributes?: Record<string, string> })[];
}

export function business(spec: BusinessSpec): AccountSnapshot {
  const customers = new Map<string, CustomerRow>();
  for (const entry of spec.customers ?? []) {
    const row = typeof entry === 'string' ? { id: entry } : entry;
    customers.set(row.id, { parent_id: null, include_in_calculations_by_default: true, name: row.id, ...row });
  }
  for (const p of spec.payments) {
    if (!customers.has(p.customer)) customers.set(p.customer, { id: p.customer, name: p.customer, parent_id: null, include_in_calculations_by_default: true });
  }
  const payments = spec.payments.map((p, index) => ({ ...p, id: p.id ?? `pay${String(index + 1).padStart(4, '0')}` }));
  const attributeIds = [...new Set([...(spec.paymentAttributes ?? []), ...payments.flatMap((p) => Object.keys(p.attributes ?? {}))])];
  return buildSnapshot({
    account: accountRow(spec.account),
    currencies: [
      { iso: 'USD', minor_unit_digits: 2 },
      { iso: 'EUR', minor_unit_digits: 2 },
      { iso: 'PLN', minor_unit_digits: 2 },
      { iso: 'GBP', minor_unit_digits: 2 },
      { iso: 'JPY', minor_unit_digits: 0 },
    ],
    objectAttributes: [
      ...attributeIds.map((id) => ({ id, name: id, object: 'subscription_history' as const })),
      ...[...new Set((spec.costs ?? []).flatMap((c) => Object.keys(c.attributes ?? {})))].map((id) => ({ id, name: id, object: 'cost' as const })),
    ],
    customers: [...customers.values()],
    customerSegments: spec.segments ?? [],
    customerSegmentValues: spec.segmentValues ?? [],
    payments: payments.map((p) => ({
      id: p.id,
      customer_id: p.customer,
      started_at: p.start,
      ...(p.end === undefined ? { duration_in_months: p.months ?? 1 } : { ended_at: p.end, duration_in_months: p.end === null ? null : (p.months ?? durationInMonths(dayFromIso(p.start), dayFromIso(p.end))) }),
      total_value: p.total,
      monthly_amount: p.monthly ?? null,
      currency: p.currency ?? 'USD',
      deleted_at: p.deleted ? '2030-01-01T00:00:00Z' : null,
    })),
    paymentItems: payments.flatMap((p) =>
      (p.items ?? [{ product: p.product ?? 'plan', type: p.type, quantity: p.quantity }]).map((item, position) => ({
        payment_id: p.id,
        position,
        product_key: item.product,
        type: item.type ?? 'recurring',
        quantity: item.quantity ?? 1,
      })),
    ),
    paymentDiscounts: payments.flatMap((p) => (p.discounts ?? []).map((d) => ({ payment_id: p.id, kind: d.kind, monthly_amount: d.monthly, months: d.months ?? null }))),
    paymentSegmentValues: payments.flatMap((p) => Object.entries(p.attributes ?? {}).map(([attribute_id, value]) => ({ payment_id: p.id, attribute_id, value }))),
    paymentVersions: spec.versions ?? [],
    exchangeRates: spec.rates ?? [],
    accountExchangeRates: spec.accountRates ?? [],
    deals: spec.deals ?? [],
    costs: (spec.costs ?? []).map(({ attributes: _attributes, ...cost }) => cost),
    costSegmentValues: (spec.costs ?? []).flatMap((c) => Object.entries(c.attributes ?? {}).map(([attribute_id, value]) => ({ cost_id: c.id, attribute_id, value }))),
  });
}

export interface SeriesSpec {
  /** 'YYYY-MM'. */
  from: string;
  to: string;
  /** 'YYYY-MM-DD'; default: the last day of `to`. */
  today?: string;
  resolution?: Resolution;
  reportSettings?: ReportSettingsInput;
  useHierarchy?: boolean;
  filter?: ReportFilter;
  segmenters?: Segmenter[];
  lookback?: number;
  keepMatrix?: boolean;
}

function lastDayOfMonth(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}

export function series(snapshot: AccountSnapshot, spec: SeriesSpec): MrrSeriesResult {
  const [startYear, startMonth] = spec.from.split('-').map(Number) as [number, number];
  const [endYear, endMonth] = spec.to.split('-').map(Number) as [number, number];
  return computeMrrSeries(snapshot, {
    resolution: spec.resolution ?? 'month',
    range: { startYear, startMonth, endYear, endMonth },
    today: dayFromIso(spec.today ?? lastDayOfMonth(spec.to)),
    reportSettings: spec.reportSettings,
    useHierarchy: spec.useHierarchy,
    filter: spec.filter,
    segmenters: spec.segmenters,
    lookback: spec.lookback,
    keepMatrix: spec.keepMatrix,
  });
}

/** The total's series keyed by period label, for readable assertions. */
export function byPeriod(result: MrrSeriesResult, pick: (s: SegmentSeries) => (number | null)[] | null, segment: SegmentSeries = result.total): Record<string, number | null> {
  const values = pick(segment) ?? [];
  return Object.fromEntries(result.periods.map((p, i) => [p.label, values[i] ?? null]));
}

/** A segment of the first segmentation by name. */
export function segment(result: MrrSeriesResult, name: string, segmentation = 0): SegmentSeries {
  const found = result.segmentations[segmentation]?.segments.find((s) => s.name === name);
  if (!found) throw new Error(`no segment '${name}' (have ${result.segmentations[segmentation]?.segments.map((s) => s.name).join(', ')})`);
  return found;
}

/** ECB-like rates, units per euro: [day, {currency: rate}]. */
export function ecb(days: [string, Record<string, number>][]): ExchangeRateRow[] {
  return days.flatMap(([day, rates]) => Object.entries(rates).map(([currency, rate]) => ({ day, currency, rate_per_eur: String(rate) })));
}

/** The movements of one period of the total (or a segment). */
export function movementsAt(result: MrrSeriesResult, label: string, segmentSeries: SegmentSeries = result.total) {
  const i = result.periods.findIndex((p) => p.label === label);
  if (i < 0) throw new Error(`no period ${label}`);
  const at = (values: number[] | null) => (values ? (values[i] as number) : null);
  return {
    mrr: at(segmentSeries.mrr),
    customers: at(segmentSeries.customers),
    newBusiness: at(segmentSeries.newBusiness),
    expansion: at(segmentSeries.expansion),
    reactivation: at(segmentSeries.reactivation),
    contraction: at(segmentSeries.contraction),
    churn: at(segmentSeries.churn),
    fx: at(segmentSeries.fxAdjustment),
  };
}
