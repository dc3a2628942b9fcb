import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_DEMO_CUSTOMERS, DEFAULT_DEMO_MONTHS, DEFAULT_DEMO_SEED, generateBusiness, type DemoBusiness } from '../../server/demo/generate';

/**
 * The demo account's numbers worked out apart from the product: the demo generator's business
 * (server/demo/generate.ts is pure and deterministic: the same seed and day give the same
 * payments; the server seeds it with its defaults and the day it starts on), and a plain
 * reading of /work/shared/METRICS.md over its payments, without any of server/metrics:
 *
 * - a customer's MRR on day t: the monthly amounts of its recurring payments covering t
 *   ([started_at, ended_at)), less their discounts (both kinds are subtracted by default),
 *   never below zero; customers not included in calculations count for nothing; no hierarchy
 *   (a section's `use_hierarchy` is off by default);
 * - a month's MRR: the sum at the month's last day;
 * - new business of month p: MRR at the end of p of the customers with none at the end of p-1
 *   and none at any earlier month end;
 * - currency: each payment converts at the ECB rates of its start day (the default
 *   `subscription_started_at`), the latest published on or before it, crossing through EUR;
 *   the rates are read from the CSV the product ships (server/rates/ecb-eurofxref-hist.csv);
 * - rounding (docs/metrics.md "Money and rounding"): half to even, at the payment's monthly
 *   amount in its own currency and at each payment's conversion.
 */

const RATES_FILE = path.resolve(import.meta.dirname, '../../server/rates/ecb-eurofxref-hist.csv');

/** Half to even, a float within 1e-7 of .5 counting as a tie (as docs/metrics.md says). */
function roundHalfEven(value: number): number {
  const floor = Math.floor(value);
  const fraction = value - floor;
  if (fraction > 0.5 + 1e-7) return floor + 1;
  if (fraction < 0.5 - 1e-7) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

interface RateTable {
  /** Days ascending. */
  days: string[];
  /** Units per euro, by currency, aligned with `days` (NaN where none was published). */
  perEur: Map<string, number[]>;
}

let rateTable: RateTable | undefined;

function rates(): RateTable {
  if (rateTable) return rateTable;
  const [head, ...lines] = readFileSync(RATES_FILE, 'utf8').trim().split('\n');
  const currencies = (head ?? '').split(',').map((cell) => cell.trim());
  const rows = lines.map((line) => line.split(',').map((cell) => cell.trim())).sort((a, b) => ((a[0] ?? '') < (b[0] ?? '') ? -1 : 1));
  const perEur = new Map<string, number[]>();
  currencies.forEach((currency, column) => {
    if (column > 0 && currency) perEur.set(currency, rows.map((row) => Number(row[column] === 'N/A' ? NaN : row[column])));
  });
  rateTable = { days: rows.map((row) => row[0] ?? ''), perEur };
  return rateTable;
}

/** Units of `currency` per euro on `day`: the latest rate published on or before it. */
function unitsPerEur(currency: string, day: string): number {
  if (currency === 'EUR') return 1;
  const { days, perEur } = rates();
  const series = perEur.get(currency);
  if (!series) throw new Error(`no ECB rates for ${currency}`);
  for (let i = days.length - 1; i >= 0; i--) {
    const rate = series[i] as number;
    if ((days[i] as string) <= day && rate > 0) return rate;
  }
  throw new Error(`no ECB rate for ${currency} on or before ${day}`);
}

/** The last day of month 'YYYY-MM'. */
function lastDayOf(month: string): string {
  const [year, monthNumber] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, monthNumber, 0)).toISOString().slice(0, 10);
}

/** 'YYYY-MM' `offset` months from `month`. */
export function addMonths(month: string, offset: number): string {
  const [year, monthNumber] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, monthNumber - 1 + offset, 1)).toISOString().slice(0, 7);
}

export interface DemoNumbers {
  business: DemoBusiness;
  /** Minor units of `currency` (2 digits for USD, EUR and PLN). */
  mrr(month: string, currency: string): number;
  newBusiness(month: string, currency: string): number;
}

/** The demo business the server seeded on `today` ('YYYY-MM-DD', UTC), and its numbers. */
export function demoNumbers(today: string): DemoNumbers {
  const business = generateBusiness({
    seed: DEFAULT_DEMO_SEED,
    customers: DEFAULT_DEMO_CUSTOMERS,
    months: DEFAULT_DEMO_MONTHS,
    endMonth: today.slice(0, 7),
    today,
  });
  const excluded = new Set(business.customers.filter((customer) => !customer.include_in_calculations_by_default).map((customer) => customer.id));
  const recurring = business.payments.filter((payment) => {
    if (excluded.has(payment.customer_id)) return false;
    if (payment.items.length !== 1) throw new Error(`demo payment ${payment.id} has ${payment.items.length} items: this reading expects one`);
    return payment.items[0]?.type === 'recurring';
  });

  const byCustomerAt = (day: string, currency: string): Map<string, number> => {
    const mrr = new Map<string, number>();
    for (const payment of recurring) {
      if (!(payment.started_at <= day && day < payment.ended_at)) continue;
      const monthly = roundHalfEven(payment.total_value / payment.duration_in_months) - (payment.discount?.monthly_amount ?? 0);
      const factor = unitsPerEur(currency, payment.started_at) / unitsPerEur(payment.currency, payment.started_at);
      mrr.set(payment.customer_id, (mrr.get(payment.customer_id) ?? 0) + roundHalfEven(monthly * factor));
    }
    for (const [customer, value] of mrr) if (value < 0) mrr.set(customer, 0);
    return mrr;
  };
  const sum = (values: Iterable<number>) => [...values].reduce((total, value) => total + value, 0);

  return {
    business,
    mrr: (month, currency) => sum(byCustomerAt(lastDayOf(month), currency).values()),
    newBusiness: (month, currency) => {
      const paidBefore = new Set<string>();
      for (let earlier = business.startMonth; earlier < month; earlier = addMonths(earlier, 1)) {
        for (const [customer, value] of byCustomerAt(lastDayOf(earlier), currency)) if (value > 0) paidBefore.add(customer);
      }
      let total = 0;
      for (const [customer, value] of byCustomerAt(lastDayOf(month), currency)) if (value > 0 && !paidBefore.has(customer)) total += value;
      return total;
    },
  };
}

/** Money as the report page shows it (src/reports/charts/format.ts: en-US, the currency's symbol, 0 decimals). */
export function shownMoney(minorUnits: number, currency: string): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency, minimumFractionDigits: 0, maximumFractionDigits: 0 }).format(minorUnits / 100);
}
