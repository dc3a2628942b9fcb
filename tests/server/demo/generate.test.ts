import { beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_DEMO_CUSTOMERS,
  DEFAULT_DEMO_MONTHS,
  generateBusiness,
  type DemoBusiness,
  type DemoPayment,
} from '../../../server/demo/generate';
import { createIdFactory, createRandom } from '../../../server/demo/random';

const END_MONTH = '2026-11';
const TODAY = '2026-11-21';
const options = { seed: 7, customers: DEFAULT_DEMO_CUSTOMERS, months: DEFAULT_DEMO_MONTHS, endMonth: END_MONTH, today: TODAY };

/** Independent month arithmetic: the day is clamped to the target month's length. */
function addMonths(day: string, months: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const last = new Date(Date.UTC(y, m - 1 + months + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, m - 1 + months, Math.min(d, last))).toISOString().slice(0, 10);
}

function lastDayOf(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}

function monthsBack(month: string, count: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 1 - count, 1)).toISOString().slice(0, 7);
}

const isRecurring = (p: DemoPayment) => p.items.some((item) => item.type === 'recurring');
const RATE_TO_USD: Record<string, number> = { USD: 1, EUR: 1.1, PLN: 0.25 };

/** Paying customers and approximate MRR (USD) at the end of each month, excluded customers left out. */
function monthEnds(business: DemoBusiness, months: string[]) {
  const excluded = new Set(business.customers.filter((c) => !c.include_in_calculations_by_default).map((c) => c.id));
  const ends = months.map(lastDayOf);
  const paying = ends.map(() => new Set<string>());
  const mrr = ends.map(() => 0);
  for (const p of business.payments) {
    if (!isRecurring(p) || excluded.has(p.customer_id)) continue;
    ends.forEach((end, i) => {
      if (p.started_at <= end && end < p.ended_at) {
        paying[i]?.add(p.customer_id);
        mrr[i] = (mrr[i] as number) + ((p.total_value / p.duration_in_months - (p.discount?.monthly_amount ?? 0)) * (RATE_TO_USD[p.currency] as number)) / 100;
      }
    });
  }
  return { paying, mrr };
}

describe('demo business generator', () => {
  let business: DemoBusiness;
  beforeAll(() => {
    business = generateBusiness(options);
  });

  it('is deterministic: the same seed gives the same business, another seed another one', () => {
    expect(generateBusiness(options)).toEqual(business);
    const other = generateBusiness({ ...options, seed: 8 });
    expect(other.payments.length).toBeGreaterThan(0);
    expect(other.payments.slice(0, 50)).not.toEqual(business.payments.slice(0, 50));
    expect(new Set(other.payments.map((p) => p.id))).not.toEqual(new Set(business.payments.map((p) => p.id)));
  });

  it('covers the requested range, ending today at the latest', () => {
    expect(business.startMonth).toBe(monthsBack(END_MONTH, DEFAULT_DEMO_MONTHS - 1));
    expect(business.endMonth).toBe(END_MONTH);
    expect(business.today).toBe(TODAY);
    const starts = business.payments.map((p) => p.started_at).sort();
    expect(starts[0]?.slice(0, 7)).toBe(business.startMonth);
    expect(starts.at(-1)?.slice(0, 7)).toBe(END_MONTH);
    expect(starts.at(-1)! <= TODAY).toBe(true);
    expect(business.costs.every((c) => c.date >= `${business.startMonth}-01` && c.date <= TODAY)).toBe(true);
  });

  it('has the default size and variety of a real subscription business', () => {
    expect(business.customers.length).toBeGreaterThanOrEqual(1_500);
    const currencies = new Set(business.payments.map((p) => p.currency));
    expect([...currencies].sort()).toEqual(['EUR', 'PLN', 'USD']);
    const durations = new Set(business.payments.filter(isRecurring).map((p) => p.duration_in_months));
    expect([...durations].sort((a, b) => a - b)).toEqual([1, 3, 12]);
    const types = new Set(business.payments.flatMap((p) => p.items.map((item) => item.type)));
    expect([...types].sort()).toEqual(['freemium', 'metered', 'one_time', 'recurring']);
    expect(new Set(business.payments.flatMap((p) => (p.discount ? [p.discount.kind] : [])))).toEqual(new Set(['finite', 'forever']));
    expect(business.payments.filter((p) => p.correction !== null).length).toBeGreaterThan(5);
    for (const key of ['country', 'plan', 'industry', 'company_size'] as const) {
      expect(new Set(business.customers.map((c) => c.attributes[key])).size, key).toBeGreaterThanOrEqual(4);
    }
    expect(new Set(business.costs.map((c) => c.category))).toEqual(new Set(['Office', 'Hosting', 'Marketing', 'Software', 'Salaries']));
    expect(new Set(business.costs.map((c) => c.currency))).toEqual(new Set(['USD', 'EUR', 'PLN']));
    // Every month of the range has costs.
    expect(new Set(business.costs.map((c) => c.date.slice(0, 7))).size).toBe(DEFAULT_DEMO_MONTHS);
  });

  it('has free trials that convert, upgrades and downgrades, churn and reactivations', () => {
    const byCustomer = new Map<string, DemoPayment[]>();
    for (const p of business.payments) {
      const list = byCustomer.get(p.customer_id) ?? [];
      list.push(p);
      byCustomer.set(p.customer_id, list);
    }
    let freeToPaid = 0;
    let freeOnly = 0;
    let reactivated = 0;
    let churned = 0;
    let upgrades = 0;
    let downgrades = 0;
    for (const payments of byCustomer.values()) {
      const recurring = payments.filter(isRecurring).sort((a, b) => a.started_at.localeCompare(b.started_at));
      const free = payments.filter((p) => p.items.some((item) => item.type === 'freemium'));
      if (free.length > 0 && recurring.length > 0) {
        freeToPaid++;
        expect(free.every((f) => f.started_at < (recurring[0] as DemoPayment).started_at)).toBe(true);
      }
      if (free.length > 0 && recurring.length === 0) freeOnly++;
      for (let i = 1; i < recurring.length; i++) {
        const previous = recurring[i - 1] as DemoPayment;
        const current = recurring[i] as DemoPayment;
        expect(current.started_at >= previous.ended_at, 'recurring payments of a customer do not overlap').toBe(true);
        if (current.started_at > previous.ended_at) reactivated++;
        const before = previous.total_value / previous.duration_in_months;
        const after = current.total_value / current.duration_in_months;
        if (previous.duration_in_months === current.duration_in_months && after > before) upgrades++;
        if (previous.duration_in_months === current.duration_in_months && after < before) downgrades++;
      }
      const last = recurring.at(-1);
      if (last && last.ended_at <= TODAY) churned++;
    }
    expect(freeToPaid).toBeGreaterThan(50);
    expect(freeOnly).toBeGreaterThan(20);
    expect(reactivated).toBeGreaterThan(10);
    expect(churned).toBeGreaterThan(200);
    expect(upgrades).toBeGreaterThan(50);
    expect(downgrades).toBeGreaterThan(20);
  });

  it('grows MRR with monthly logo churn around 2-4%', () => {
    // Full months only: the current month is still in progress.
    const months = Array.from({ length: 37 }, (_, i) => monthsBack(END_MONTH, 37 - i));
    const { paying, mrr } = monthEnds(business, months);
    expect(mrr.at(-1)!).toBeGreaterThan(2 * (mrr[12] as number));
    expect(mrr.at(-1)!).toBeGreaterThan(mrr.at(-13)!);
    const churnRates: number[] = [];
    for (let i = 13; i < months.length; i++) {
      const before = paying[i - 1] as Set<string>;
      const after = paying[i] as Set<string>;
      let lost = 0;
      for (const id of before) if (!after.has(id)) lost++;
      churnRates.push(lost / before.size);
    }
    const mean = churnRates.reduce((a, b) => a + b, 0) / churnRates.length;
    expect(mean).toBeGreaterThan(0.015);
    expect(mean).toBeLessThan(0.045);
  });

  it('builds company groups and a few excluded customers', () => {
    const index = new Map(business.customers.map((c, i) => [c.id, i]));
    const children = business.customers.filter((c) => c.parent_id !== null);
    const parentIds = new Set(children.map((c) => c.parent_id as string));
    expect(parentIds.size).toBeGreaterThanOrEqual(3);
    for (const child of children) {
      const parentIndex = index.get(child.parent_id as string);
      expect(parentIndex, 'parent exists').toBeDefined();
      expect(parentIndex! < index.get(child.id)!, 'parent comes before its child').toBe(true);
      expect(business.customers[parentIndex!]?.parent_id, 'one level of hierarchy').toBeNull();
    }
    const payers = new Set(business.payments.map((p) => p.customer_id));
    for (const parentId of parentIds) {
      expect(children.filter((c) => c.parent_id === parentId).length).toBeGreaterThanOrEqual(2);
    }
    const excluded = business.customers.filter((c) => !c.include_in_calculations_by_default);
    expect(excluded.length).toBeGreaterThanOrEqual(3);
    expect(excluded.every((c) => payers.has(c.id))).toBe(true);
  });

  it('gives well-formed, unique ids, integer money and consistent dates', () => {
    const paymentIds = new Set<string>();
    const customerIds = new Set(business.customers.map((c) => c.id));
    expect(customerIds.size).toBe(business.customers.length);
    expect(new Set(business.customers.map((c) => c.public_id)).size).toBe(business.customers.length);
    for (const p of business.payments) {
      expect(p.id).toMatch(/^subh[A-Za-z0-9]{12}$/);
      paymentIds.add(p.id);
      expect(customerIds.has(p.customer_id)).toBe(true);
      expect(Number.isSafeInteger(p.total_value) && p.total_value >= 0).toBe(true);
      expect(p.started_at).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(p.ended_at).toBe(addMonths(p.started_at, p.duration_in_months));
      expect(p.ended_at > p.started_at).toBe(true);
      expect(p.items.length).toBeGreaterThan(0);
      for (const item of p.items) expect(Number.isSafeInteger(item.quantity) && item.quantity >= 1).toBe(true);
      if (p.discount) {
        expect(Number.isSafeInteger(p.discount.monthly_amount)).toBe(true);
        expect(p.discount.monthly_amount).toBeGreaterThan(0);
        expect(p.discount.monthly_amount).toBeLessThan(p.total_value / p.duration_in_months);
      }
      if (p.correction) {
        expect(Number.isSafeInteger(p.correction.original_total_value)).toBe(true);
        expect(p.correction.original_total_value).not.toBe(p.total_value);
        expect(p.correction.corrected_on > p.started_at && p.correction.corrected_on <= TODAY).toBe(true);
      }
      if (p.items.some((item) => item.type === 'freemium')) expect(p.total_value).toBe(0);
    }
    expect(paymentIds.size).toBe(business.payments.length);
    expect(new Set(business.payments.map((p) => p.invoice_number)).size).toBe(business.payments.length);
    for (const c of business.costs) {
      expect(Number.isSafeInteger(c.value) && c.value > 0).toBe(true);
      expect(c.due_date > c.date).toBe(true);
    }
    expect(new Set(business.costs.map((c) => c.id)).size).toBe(business.costs.length);
  });

  it('keeps attribute histories by month, with plan changes over time', () => {
    const keys = new Set<string>();
    const planEntries = new Map<string, number>();
    for (const value of business.segmentValues) {
      const key = `${value.customer_id}|${value.segment}|${value.year}|${value.month}`;
      expect(keys.has(key), key).toBe(false);
      keys.add(key);
      expect(value.month >= 1 && value.month <= 12).toBe(true);
      if (value.segment === 'plan') planEntries.set(value.customer_id, (planEntries.get(value.customer_id) ?? 0) + 1);
    }
    for (const customer of business.customers) {
      for (const segment of ['country', 'industry', 'company_size']) {
        expect(
          business.segmentValues.some((v) => v.customer_id === customer.id && v.segment === segment),
          `${customer.id} ${segment}`,
        ).toBe(true);
      }
    }
    expect([...planEntries.values()].filter((n) => n >= 2).length).toBeGreaterThan(100);
    expect(generateBusiness({ ...options, segmentValues: false }).segmentValues).toEqual([]);
  });

  it('never depends on the local clock or time zone for its dates', () => {
    const endOfYear = generateBusiness({ seed: 3, customers: 200, months: 12, endMonth: '2024-12', today: '2024-12-31' });
    expect(endOfYear.startMonth).toBe('2024-01');
    expect(endOfYear.payments.every((p) => p.started_at >= '2024-01-01' && p.started_at <= '2024-12-31')).toBe(true);
    const defaultToday = generateBusiness({ seed: 3, customers: 200, months: 12, endMonth: '2024-02' });
    expect(defaultToday.today).toBe('2024-02-29');
  });

  it('rejects malformed options', () => {
    expect(() => generateBusiness({ ...options, endMonth: '2026-13' })).toThrow(/endMonth/);
    expect(() => generateBusiness({ ...options, today: '2026-10-21' })).toThrow(/today/);
    expect(() => generateBusiness({ ...options, customers: 0 })).toThrow(/customers/);
    expect(() => generateBusiness({ ...options, months: 1 })).toThrow(/months/);
  });

  it('scales linearly: 20,000 customers take about 12.5 times as long as 1,600', () => {
    const timed = (customers: number) => {
      const started = performance.now();
      const generated = generateBusiness({ seed: 11, customers, months: 48, endMonth: END_MONTH, today: TODAY, segmentValues: false });
      return { generated, elapsed: performance.now() - started };
    };
    // The best of a few runs each (the first also pays for JIT compilation), so one pause of a
    // loaded machine does not decide the ratio.
    const best = (customers: number, runs: number) =>
      Array.from({ length: runs }, () => timed(customers)).reduce((a, b) => (b.elapsed < a.elapsed ? b : a));
    const small = best(1_600, 4);
    const large = best(20_000, 2);
    expect(large.generated.customers.length).toBe(20_000);
    const ratio = large.generated.payments.length / business.payments.length;
    expect(ratio).toBeGreaterThan(10);
    expect(ratio).toBeLessThan(15);
    // Linear work is about 12.5x; a quadratic step would be about 150x. The wide bound leaves
    // room for a machine loaded by parallel test files, which a fixed number of seconds does not.
    expect(large.elapsed / small.elapsed).toBeLessThan(60);
  });
});

describe('seeded random helpers', () => {
  it('repeats a sequence for a seed and spreads values uniformly', () => {
    const a = createRandom(42);
    const b = createRandom(42);
    const c = createRandom(43);
    const seqA = Array.from({ length: 1000 }, () => a.next());
    expect(Array.from({ length: 1000 }, () => b.next())).toEqual(seqA);
    expect(Array.from({ length: 1000 }, () => c.next())).not.toEqual(seqA);
    expect(seqA.every((x) => x >= 0 && x < 1)).toBe(true);
    const buckets = new Array<number>(10).fill(0);
    const r = createRandom(1);
    for (let i = 0; i < 100_000; i++) buckets[Math.floor(r.next() * 10)]!++;
    for (const count of buckets) expect(Math.abs(count - 10_000)).toBeLessThan(500);
    const ints = new Set(Array.from({ length: 1000 }, () => r.int(3, 5)));
    expect([...ints].sort()).toEqual([3, 4, 5]);
  });

  it('makes ids that never repeat within a factory', () => {
    const next = createIdFactory(createRandom(5), 'subh');
    const ids = new Set(Array.from({ length: 200_000 }, next));
    expect(ids.size).toBe(200_000);
    for (const id of [...ids].slice(0, 100)) expect(id).toMatch(/^subh[A-Za-z0-9]{12}$/);
  });
});
