import { describe, expect, it } from 'vitest';
import { generateBusiness } from '../../../server/demo/generate';
import { dayFromIso } from '../../../server/metrics/days';
import { computeMrrSeries, type MrrSeriesRequest } from '../../../server/metrics/mrrSeries';
import { createSnapshotBuilder } from '../../../server/metrics/snapshot/builder';
import { type AccountSnapshot } from '../../../server/metrics/snapshot/columns';
import { readEcbHistory } from '../../../server/rates/ecbHistory';
import { accountRow } from './support';

/**
 * A smoke at the size the engine is built for: 100,000 customers over 72 months (about 1.1
 * million payments). Timings are printed, not asserted tightly: CI machines vary.
 */
const CUSTOMERS = 100_000;
const MONTHS = 72;
const PAGE = 50_000;

async function ecbRows() {
  const rows = [];
  for await (const row of readEcbHistory()) {
    if ((row.currency === 'USD' || row.currency === 'PLN') && row.day >= '2018-01-01') rows.push({ day: row.day, currency: row.currency, rate_per_eur: row.ratePerEur });
  }
  return rows;
}

/** The generated business fed to the builder a page at a time, as loadSnapshot does; the rows are garbage afterwards. */
function buildDemoSnapshot(rates: Awaited<ReturnType<typeof ecbRows>>): { snapshot: AccountSnapshot; payments: number } {
  const business = generateBusiness({ customers: CUSTOMERS, months: MONTHS, endMonth: '2025-04', today: '2025-04-30' });
  const builder = createSnapshotBuilder(accountRow());
  const pages = <T, R>(items: readonly T[], map: (item: T) => R[], add: (rows: R[]) => void) => {
    for (let i = 0; i < items.length; i += PAGE) add(items.slice(i, i + PAGE).flatMap(map));
  };
  pages(business.customers, (c) => [{ id: c.id, parent_id: c.parent_id, include_in_calculations_by_default: c.include_in_calculations_by_default }], (rows) => builder.addCustomers(rows));
  builder.addCustomerSegments([{ id: 'plan', name: 'Plan', value_source: 'parent_and_children', time_sensitive: true }]);
  pages(
    business.segmentValues.filter((v) => v.segment === 'plan'),
    (v) => [{ customer_id: v.customer_id, segment_id: 'plan', year: v.year, month: v.month, value: v.value }],
    (rows) => builder.addCustomerSegmentValues(rows),
  );
  pages(
    business.payments,
    (p) => [{ id: p.id, customer_id: p.customer_id, started_at: p.started_at, duration_in_months: p.duration_in_months, total_value: p.total_value, currency: p.currency }],
    (rows) => builder.addPayments(rows),
  );
  pages(business.payments, (p) => p.items.map((item, position) => ({ payment_id: p.id, position, ...item })), (rows) => builder.addPaymentItems(rows));
  pages(business.payments, (p) => (p.discount ? [{ payment_id: p.id, ...p.discount }] : []), (rows) => builder.addPaymentDiscounts(rows));
  builder.addExchangeRates(rates);
  return { snapshot: builder.finish(), payments: business.payments.length };
}

function time<T>(run: () => T): [T, number] {
  const start = performance.now();
  const result = run();
  return [result, performance.now() - start];
}

describe('the metrics engine at scale', () => {
  it(
    `computes MRR and movements for ${CUSTOMERS.toLocaleString('en')} customers over ${MONTHS} months`,
    async () => {
      const rates = await ecbRows();
      const [{ snapshot, payments }, buildMs] = time(() => buildDemoSnapshot(rates));
      const request: MrrSeriesRequest = { resolution: 'month', range: { startYear: 2019, startMonth: 5, endYear: 2025, endMonth: 4 }, today: dayFromIso('2025-04-30') };
      const runs: [string, MrrSeriesRequest][] = [
        ['total', request],
        ['total + product', { ...request, segmenters: [{ kind: 'product' }] }],
        ['total + Plan (time-sensitive)', { ...request, segmenters: [{ kind: 'customer_segment', segmentId: 'plan' }] }],
        ['total, weekly', { ...request, resolution: 'week' }],
      ];
      const lines = [`snapshot of ${payments.toLocaleString('en')} payments built in ${buildMs.toFixed(0)} ms`];
      for (const [name, req] of runs) {
        const [result, first] = time(() => computeMrrSeries(snapshot, req));
        const best = Math.min(...[0, 1, 2].map(() => time(() => computeMrrSeries(snapshot, req))[1]));
        lines.push(`${name}: first ${first.toFixed(0)} ms, best of 3 ${best.toFixed(0)} ms`);
        expect(first).toBeLessThan(10_000);
        expect(result.periods.length).toBeGreaterThanOrEqual(MONTHS);
        expect(result.total.mrr.at(-1)).toBeGreaterThan(0);
        const t = result.total;
        t.mrr.forEach((_, i) => expect(t.newBusiness[i]! + t.expansion[i]! + t.reactivation[i]! - t.contraction[i]! - t.churn[i]! + t.fxAdjustment![i]!).toBe(t.netChange[i]));
        for (const { segments } of result.segmentations) {
          t.mrr.forEach((mrr, i) => expect(segments.reduce((sum, s) => sum + s.mrr[i]!, 0)).toBe(mrr));
        }
      }
      console.log(`metrics engine at ${CUSTOMERS} customers x ${MONTHS} months:\n  ${lines.join('\n  ')}`);
    },
    180_000,
  );
});
