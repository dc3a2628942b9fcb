import { describe, expect, it } from 'vitest';
import { generateBusiness } from '../../../server/demo/generate';
import { dayFromIso } from '../../../server/metrics/days';
import { DEFAULT_REPORT_DEFINITIONS } from '../../../server/metrics/definitions/catalogue';
import { computeSections } from '../../../server/metrics/definitions/computeSection';
import { PRODUCT_SEGMENTER_ID } from '../../../server/metrics/definitions/segmenters';
import type { SectionRequest } from '../../../server/metrics/definitions/types';
import { computeMrrSeries } from '../../../server/metrics/mrrSeries';
import { createSnapshotBuilder } from '../../../server/metrics/snapshot/builder';
import { type AccountSnapshot } from '../../../server/metrics/snapshot/columns';
import { readEcbHistory } from '../../../server/rates/ecbHistory';
import { accountRow } from './support';

/**
 * A default report of 20 sections at 100,000 customers over 72 months, against the core's MRR
 * and movements (total and by product) on the same snapshot. Timings are printed: CI machines
 * vary, so only a loose bound is asserted.
 */
const CUSTOMERS = 100_000;
const MONTHS = 72;
const PAGE = 50_000;
const RANGE = { start_year: 2019, start_month: 5, end_year: 2025, end_month: 4 };
const TODAY = '2025-04-30';

/** The twenty subscription sections, monthly over the whole history; MRR and its movements also by product. */
const DEFAULT_REPORT: readonly SectionRequest[] = DEFAULT_REPORT_DEFINITIONS.map((definition_id) => ({ definition_id, range: RANGE, resolution: 'month', today: TODAY, segmenters: definition_id === 'mrr' || definition_id === 'mrr_movements' ? [PRODUCT_SEGMENTER_ID] : [] }));

async function demoSnapshot(): Promise<AccountSnapshot> {
  const rates = [];
  for await (const row of readEcbHistory()) {
    if ((row.currency === 'USD' || row.currency === 'PLN') && row.day >= '2018-01-01') rates.push({ day: row.day, currency: row.currency, rate_per_eur: row.ratePerEur });
  }
  const business = generateBusiness({ customers: CUSTOMERS, months: MONTHS, endMonth: '2025-04', today: TODAY });
  const builder = createSnapshotBuilder(accountRow());
  const pages = <T, R>(items: readonly T[], map: (item: T) => R[], add: (rows: R[]) => void) => {
    for (let i = 0; i < items.length; i += PAGE) add(items.slice(i, i + PAGE).flatMap(map));
  };
  pages(business.customers, (c) => [{ id: c.id, name: c.name, parent_id: c.parent_id, include_in_calculations_by_default: c.include_in_calculations_by_default }], (rows) => builder.addCustomers(rows));
  pages(
    business.payments,
    (p) => [{ id: p.id, customer_id: p.customer_id, started_at: p.started_at, duration_in_months: p.duration_in_months, total_value: p.total_value, currency: p.currency }],
    (rows) => builder.addPayments(rows),
  );
  pages(business.payments, (p) => p.items.map((item, position) => ({ payment_id: p.id, position, ...item })), (rows) => builder.addPaymentItems(rows));
  pages(business.payments, (p) => (p.discount ? [{ payment_id: p.id, ...p.discount }] : []), (rows) => builder.addPaymentDiscounts(rows));
  builder.addCosts(business.costs.map((c) => ({ id: c.id, value: c.value, currency: c.currency, date: c.date, name: c.name })));
  builder.addExchangeRates(rates);
  return builder.finish();
}

function bestOf<T>(runs: number, run: () => T): { result: T; best: number; all: number[] } {
  const all: number[] = [];
  let result: T | undefined;
  for (let k = 0; k < runs; k++) {
    const start = performance.now();
    result = run();
    all.push(performance.now() - start);
  }
  return { result: result as T, best: Math.min(...all.slice(1)), all };
}

describe('the section catalogue at scale', () => {
  it(
    `computes a 20-section report for ${CUSTOMERS.toLocaleString('en')} customers over ${MONTHS} months`,
    async () => {
      const snapshot = await demoSnapshot();
      const core = bestOf(4, () =>
        computeMrrSeries(snapshot, { resolution: 'month', range: { startYear: 2019, startMonth: 5, endYear: 2025, endMonth: 4 }, today: dayFromIso(TODAY), segmenters: [{ kind: 'product' }] }),
      );
      const report = bestOf(4, () => computeSections(snapshot, DEFAULT_REPORT));
      console.log(
        `section catalogue at ${CUSTOMERS} customers x ${MONTHS} months:\n` +
          `  core MRR + movements (total and by product): ${core.all.map((ms) => ms.toFixed(0)).join(', ')} ms, best ${core.best.toFixed(0)} ms\n` +
          `  computeSections, ${DEFAULT_REPORT.length} sections: ${report.all.map((ms) => ms.toFixed(0)).join(', ')} ms, best ${report.best.toFixed(0)} ms (${(report.best / core.best).toFixed(2)}x the core)`,
      );
      expect(report.result).toHaveLength(DEFAULT_REPORT.length);
      expect(report.result[0]?.segments[0]?.series[0]?.data_points.at(-1)?.value).toBe(core.result.total.mrr.at(-1));
      expect(report.best).toBeLessThan(10_000);
    },
    300_000,
  );
});
