import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeSection } from '../../../server/metrics/definitions/computeSection';
import { customerSegmenterId, PRODUCT_SEGMENTER_ID, TOTAL_SEGMENTER_ID } from '../../../server/metrics/definitions/segmenters';
import type { DataCategory } from '../../../server/db/schema';
import type { SectionRequest } from '../../../server/metrics/definitions/types';
import { computeDetails, type DetailsPayload } from '../../../server/metrics/details';
import type { Resolution } from '../../../server/metrics/periods';
import { business, type BusinessSpec, type PaymentSpec } from './support';

/**
 * Drill-down adds up (METRICS.md section 9): over random histories, for every period and
 * every series of MRR, each movement class, customers and two rates, the listed customers
 * (top + rest) add up to the details' totals, and the totals are the number on the chart.
 */

const DAY_MS = 86_400_000;
const ORIGIN = Date.UTC(2023, 0, 1);
const isoOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

interface GenPayment {
  customer: number;
  startOffset: number;
  months: number;
  monthly: number;
  currency: 'USD' | 'EUR' | 'PLN';
  product: 'A' | 'B';
  discount: number | null;
}

interface History {
  customers: { parent: boolean; country: 'DE' | 'PL' | null }[];
  payments: GenPayment[];
  windowDays: number;
  match: boolean;
  hierarchy: boolean;
  todayBack: number;
}

const historyArb: fc.Arbitrary<History> = fc.integer({ min: 1, max: 5 }).chain((count) =>
  fc.record({
    customers: fc.array(fc.record({ parent: fc.boolean(), country: fc.constantFrom('DE' as const, 'PL' as const, null) }), { minLength: count, maxLength: count }),
    payments: fc.array(
      fc.record({
        customer: fc.integer({ min: 0, max: count - 1 }),
        startOffset: fc.integer({ min: 0, max: 700 }),
        months: fc.constantFrom(1, 1, 2, 3, 12),
        monthly: fc.integer({ min: 0, max: 40_000 }),
        currency: fc.constantFrom('USD' as const, 'USD' as const, 'EUR' as const, 'PLN' as const),
        product: fc.constantFrom('A' as const, 'B' as const),
        discount: fc.option(fc.integer({ min: 0, max: 30_000 }), { freq: 4 }),
      }),
      { maxLength: 10 },
    ),
    windowDays: fc.constantFrom(0, 0, 10, 40),
    match: fc.boolean(),
    hierarchy: fc.boolean(),
    todayBack: fc.integer({ min: 0, max: 40 }),
  }),
);

function toBusiness(h: History): BusinessSpec {
  const rates = Array.from({ length: 26 }, (_, m) => {
    const day = isoOf(Date.UTC(2022, 11 + m, 2));
    return [
      { day, currency: 'USD', rate_per_eur: String(1 + ((m * 37) % 20) / 100) },
      { day, currency: 'PLN', rate_per_eur: String(4.2 + ((m * 13) % 10) / 10) },
    ];
  }).flat();
  return {
    account: { churn_window_seconds: h.windowDays * 86_400, match_movements_by_currency: h.match },
    customers: h.customers.map((c, i) => ({ id: `c${i}`, parent_id: c.parent && i > 0 ? 'c0' : null })),
    payments: h.payments.map(
      (p): PaymentSpec => ({
        customer: `c${p.customer}`,
        start: isoOf(ORIGIN + p.startOffset * DAY_MS),
        months: p.months,
        total: p.monthly * p.months,
        currency: p.currency,
        product: p.product,
        discounts: p.discount === null ? [] : [{ kind: 'forever', monthly: p.discount }],
      }),
    ),
    segments: [{ id: 'country', name: 'Country', value_source: 'parent_and_children', time_sensitive: false }],
    segmentValues: h.customers.flatMap((c, i) => (c.country ? [{ customer_id: `c${i}`, segment_id: 'country', year: 2023, month: 1, value: c.country }] : [])),
    rates,
  };
}

function expectPartsAddUp(details: DetailsPayload): void {
  expect(details.top_customers.length + details.rest.count).toBe(details.total_count);
  expect(details.top_customers.reduce((sum, row) => sum + row.value, 0) + details.rest.value).toBe(details.total_value);
}

const calc = (details: DetailsPayload, name: string) => details.calculation_details.find((c) => c.name === name)?.value;

interface Case {
  definition: string;
  category?: DataCategory;
  check: (point: number | null, details: DetailsPayload, component: string | undefined) => void;
}

const CASES: Case[] = [
  { definition: 'mrr', check: (point, d) => expect(d.total_value).toBe(point) },
  { definition: 'mrr', category: 'counts', check: (point, d) => expect(d.total_count).toBe(point) },
  { definition: 'customers', check: (point, d) => expect(d.total_count).toBe(point) },
  {
    definition: 'mrr_movements',
    check: (point, d, component) => {
      expect(d.total_value).toBe(point);
      if (component === 'net') expect(calc(d, 'Net')).toBe(point);
    },
  },
  {
    definition: 'mrr_movements',
    category: 'counts',
    check: (point, d, component) => {
      if (component === 'net') expect(calc(d, 'Net customers')).toBe(point);
      else expect(d.total_count).toBe(point);
    },
  },
  {
    definition: 'customer_churn_rate',
    check: (point, d) => {
      const [numerator, denominator, result] = d.calculation_details;
      expect(result?.value).toBe(point);
      expect(numerator?.value).toBe(d.total_count);
      expect(d.additional_lists[0]?.total_count).toBe(denominator?.value);
    },
  },
  {
    definition: 'gross_mrr_churn_rate',
    check: (point, d) => {
      expect(calc(d, 'Gross MRR churn rate')).toBe(point);
      expect(d.total_value).toBe((calc(d, 'Churn') ?? 0) + (calc(d, 'Contraction') ?? 0));
    },
  },
];

describe('drill-down adds up to the chart over random histories', () => {
  it.each(CASES.map((c) => [`${c.definition}${c.category ? ` (${c.category})` : ''}`, c] as const))('%s: top + rest = total = the charted number, in every period, series and segment', (_name, testCase) => {
    fc.assert(
      fc.property(historyArb, fc.constantFrom<Resolution>('month', 'quarter'), fc.constantFrom(TOTAL_SEGMENTER_ID, customerSegmenterId('country'), PRODUCT_SEGMENTER_ID), fc.integer({ min: 0, max: 3 }), (h, resolution, segmenter, limit) => {
        const snapshot = business(toBusiness(h));
        const today = isoOf(Date.UTC(2024, 11, 31) - h.todayBack * DAY_MS);
        const request: SectionRequest = {
          definition_id: testCase.definition,
          range: { start_year: 2024, start_month: 1, end_year: 2024, end_month: Number(today.slice(5, 7)) },
          resolution,
          today,
          use_hierarchy: h.hierarchy,
          segmenters: segmenter === TOTAL_SEGMENTER_ID ? [] : [segmenter],
          ...(testCase.category ? { data_category: testCase.category } : {}),
        };
        const section = computeSection(snapshot, request);
        const segment = section.segments.find((s) => s.id === segmenter);
        expect(segment).toBeDefined();
        section.periods.forEach((period, i) => {
          const details = computeDetails(snapshot, { ...request, date: period.first_day, segment_id: segmenter, limit });
          expect(details.items.map((item) => item.name)).toEqual(segment?.series.map((s) => s.name));
          details.items.forEach((item, k) => {
            const point = segment?.series[k]?.data_points[i]?.value ?? null;
            expect(item.value).toBe(point);
            expectPartsAddUp(item.details);
            testCase.check(point, item.details, item.component);
          });
        });
      }),
      { numRuns: 100 },
    );
  });
});
