import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateBusiness } from '../../../server/demo/generate';
import { seedDemoAccount, type SeedDemoResult } from '../../../server/demo/seed';
import { dayFromIso } from '../../../server/metrics/days';
import { loadSnapshot } from '../../../server/metrics/loadSnapshot';
import { computeMrrSeries } from '../../../server/metrics/mrrSeries';
import { buildSnapshot } from '../../../server/metrics/snapshot/builder';
import { SnapshotError, type ExchangeRateRow } from '../../../server/metrics/snapshot/rows';
import { type AccountSnapshot } from '../../../server/metrics/snapshot/columns';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/database';
import { accountRow } from './support';

const NOW = new Date('2025-04-20T10:00:00Z');
const OPTIONS = { customers: 60, months: 6, seed: 11 };
const OTHER = { customers: 40, months: 4, seed: 12 };

/** A rate on the first business days of the seeded months. */
const RATES: ExchangeRateRow[] = ['2024-10-01', '2024-11-01', '2024-12-02', '2025-01-02', '2025-02-03', '2025-03-03', '2025-04-01'].flatMap((day, k) => [
  { day, currency: 'USD', rate_per_eur: (1.05 + k * 0.01).toFixed(4) },
  { day, currency: 'PLN', rate_per_eur: (4.2 + k * 0.02).toFixed(4) },
  { day, currency: 'GBP', rate_per_eur: '0.8500' },
]);

describe(`loadSnapshot on ${testEngine}`, () => {
  let db: TestDatabase;
  let mine: SeedDemoResult;
  let theirs: SeedDemoResult;
  let snapshot: AccountSnapshot;

  beforeAll(async () => {
    db = await createTestDatabase();
    mine = await seedDemoAccount(db.kysely, { email: 'mine@example.com', password: 'pw-mine', now: NOW, ...OPTIONS });
    theirs = await seedDemoAccount(db.kysely, { email: 'theirs@example.com', password: 'pw-theirs', now: NOW, ...OTHER });
    await db.kysely.insertInto('exchange_rates').values(RATES).execute();
    snapshot = await loadSnapshot(db, mine.accountId);
  });
  afterAll(() => db?.close());

  it('loads every customer, payment, version and cost of the account', async () => {
    const business = generateBusiness({ ...OPTIONS, endMonth: '2025-04', today: '2025-04-20' });
    const corrected = business.payments.filter((p) => p.correction !== null).length;
    expect(snapshot.account.id).toBe(mine.accountId);
    expect(snapshot.customers.count).toBe(mine.counts.customers);
    expect(snapshot.payments.count).toBe(mine.counts.payments);
    expect(snapshot.records.count).toBe(mine.counts.payments + corrected);
    expect(snapshot.lines.count).toBe(business.payments.reduce((sum, p) => sum + p.items.length, 0) + corrected);
    expect(snapshot.costs.count).toBe(mine.counts.costs);
    expect(snapshot.products.values).toEqual(expect.arrayContaining(business.products.map((p) => p.key)));
    expect(snapshot.customerSegments.map((s) => s.name).sort()).toEqual(['Company size', 'Country', 'Industry', 'Plan']);
    const plan = snapshot.customerSegments.find((s) => s.name === 'Plan')!;
    expect(plan.timeSensitive).toBe(true);
    expect(plan.month.length).toBe(business.segmentValues.filter((v) => v.segment === 'plan').length);
    const channel = snapshot.payments.attributes.find((a) => a.name === 'Channel')!;
    expect(Array.from(channel.valueOf).every((v) => v >= 0)).toBe(true);
    expect(snapshot.costs.attributes[0]?.name).toBe('Category');
    expect(snapshot.currencies.digits[snapshot.currencies.index.get('USD')!]).toBe(2);
  });

  it('never loads another account’s rows', async () => {
    const other = generateBusiness({ ...OTHER, endMonth: '2025-04', today: '2025-04-20' });
    const theirCustomers = new Set(other.customers.map((c) => c.id));
    const theirPayments = new Set(other.payments.map((p) => p.id));
    expect(snapshot.customers.ids.some((id) => theirCustomers.has(id))).toBe(false);
    for (let p = 0; p < snapshot.payments.count; p++) expect(theirPayments.has(snapshot.payments.ids.get(p))).toBe(false);
    const theirSnapshot = await loadSnapshot(db, theirs.accountId);
    expect(theirSnapshot.customers.count).toBe(theirs.counts.customers);
    expect(theirSnapshot.payments.count).toBe(theirs.counts.payments);
  });

  it('computes the same numbers as the snapshot of the generated rows', () => {
    const business = generateBusiness({ ...OPTIONS, endMonth: '2025-04', today: '2025-04-20' });
    const fromRows = buildSnapshot({
      account: accountRow({ id: mine.accountId }),
      customers: business.customers.map((c) => ({ id: c.id, parent_id: c.parent_id, include_in_calculations_by_default: c.include_in_calculations_by_default })),
      payments: business.payments.map((p) => ({ id: p.id, customer_id: p.customer_id, started_at: p.started_at, duration_in_months: p.duration_in_months, total_value: p.total_value, currency: p.currency })),
      paymentItems: business.payments.flatMap((p) => p.items.map((item, position) => ({ payment_id: p.id, position, ...item }))),
      paymentDiscounts: business.payments.flatMap((p) => (p.discount ? [{ payment_id: p.id, ...p.discount }] : [])),
      exchangeRates: RATES,
    });
    const request = { resolution: 'month' as const, range: { startYear: 2024, startMonth: 11, endYear: 2025, endMonth: 4 }, today: dayFromIso('2025-04-20'), segmenters: [{ kind: 'product' as const }] };
    const loaded = computeMrrSeries(snapshot, request);
    const built = computeMrrSeries(fromRows, request);
    expect(loaded.total).toEqual(built.total);
    expect(loaded.segmentations).toEqual(built.segmentations);
    expect(loaded.total.mrr.at(-1)).toBeGreaterThan(0);
  });

  it('loads the rates of currencies a report is shown in, and the account’s manual table', async () => {
    const report = 'rep0000000001';
    await db.kysely
      .insertInto('business_reports')
      .values({ account_id: mine.accountId, id: report, secret: 'secret-secret-secret-0001', start_year: 2025, start_month: 1, end_year: 2025, end_month: 4 })
      .execute();
    await db.kysely.insertInto('report_settings').values({ account_id: mine.accountId, report_id: report, currency: 'GBP' }).execute();
    await db.kysely.insertInto('account_exchange_rates').values({ account_id: mine.accountId, since: '2025-01-01', iso: 'EUR', rate: '0.9300000000' }).execute();
    const reloaded = await loadSnapshot(db, mine.accountId);
    const gbp = reloaded.currencies.index.get('GBP')!;
    expect(reloaded.rates.perEur[gbp]?.[0]).toBe(0.85);
    expect(reloaded.accountRates.count).toBe(1);
    expect(reloaded.accountRates.rate[0]).toBe(0.93);
    const inPounds = computeMrrSeries(reloaded, { resolution: 'month', range: { startYear: 2025, startMonth: 1, endYear: 2025, endMonth: 4 }, today: dayFromIso('2025-04-20'), reportSettings: { currency: 'GBP' } });
    expect(inPounds.total.mrr.every((v) => v > 0)).toBe(true);
  });

  it('reads names in any script, parents, deletions, discounts and several items per payment exactly', async () => {
    const edge = await seedDemoAccount(db.kysely, { email: 'edge@example.com', password: 'pw-edge', now: NOW, customers: 10, months: 3, seed: 13 });
    const account = edge.accountId;
    const names = ['Żółta Łódź sp. z o.o.', 'Émoji 😀 Inc.', '', 'Comma, "quotes" and \\ backslash', '日本語の顧客'];
    await db.kysely
      .insertInto('customers')
      .values(names.map((name, i) => ({ account_id: account, id: `cus-edge-${i}`, name, parent_id: i === 4 ? 'cus-edge-0' : null, deleted_at: i === 2 ? new Date() : null })))
      .execute();
    await db.kysely.insertInto('products').values({ account_id: account, key: 'prod-edge', name: 'Edge' }).onConflict((oc) => oc.doNothing()).execute();
    await db.kysely
      .insertInto('payments')
      .values([
        { account_id: account, id: 'subh-edge-1', customer_id: 'cus-edge-1', started_at: '2025-03-05', ended_at: '2025-04-05', duration_in_months: 1, total_value: 1001, currency: 'PLN' },
        { account_id: account, id: 'subh-edge-2', customer_id: 'cus-edge-4', started_at: '2025-01-31', ended_at: '2025-04-30', duration_in_months: 3, total_value: -300, currency: 'USD', version: 2 },
      ])
      .execute();
    await db.kysely
      .insertInto('payment_items')
      .values([
        { account_id: account, payment_id: 'subh-edge-1', position: 1, product_key: 'prod-edge', type: 'metered', quantity: 7 },
        { account_id: account, payment_id: 'subh-edge-1', position: 0, product_key: 'prod-edge', type: 'recurring', quantity: 2 },
      ])
      .execute();
    await db.kysely
      .insertInto('payment_discounts')
      .values([
        { account_id: account, payment_id: 'subh-edge-1', position: 0, kind: 'forever', monthly_amount: 100 },
        { account_id: account, payment_id: 'subh-edge-1', position: 1, kind: 'finite', monthly_amount: 30 },
        { account_id: account, payment_id: 'subh-edge-1', position: 2, kind: 'finite', monthly_amount: 20 },
      ])
      .execute();
    const loaded = await loadSnapshot(db, account);
    const customer = (id: string) => loaded.customers.index.get(id)!;
    names.forEach((name, i) => expect(loaded.customers.names[customer(`cus-edge-${i}`)]).toBe(name));
    expect(loaded.customers.parent[customer('cus-edge-4')]).toBe(customer('cus-edge-0'));
    expect(loaded.customers.parent[customer('cus-edge-1')]).toBe(-1);
    expect(loaded.customers.deleted[customer('cus-edge-2')]).toBe(1);
    expect(loaded.customers.deleted[customer('cus-edge-3')]).toBe(0);
    const payment = loaded.payments.ids.indexOf('subh-edge-1');
    const record = Array.from(loaded.records.payment).indexOf(payment);
    expect(loaded.records.customer[record]).toBe(customer('cus-edge-1'));
    expect(loaded.records.startDay[record]).toBe(dayFromIso('2025-03-05'));
    expect(loaded.records.totalValue[record]).toBe(1001);
    expect(loaded.currencies.values[loaded.records.currency[record]!]).toBe('PLN');
    // Items in position order: the recurring one first, then the metered one.
    const first = loaded.records.lineStart[record]!;
    expect(Array.from(loaded.lines.quantity.subarray(first, first + 2))).toEqual([2, 7]);
    expect(loaded.records.recurringMonthly[record]! + loaded.records.meteredMonthly[record]!).toBe(1001);
    expect(loaded.records.discountForeverMonthly[record]).toBe(100);
    expect(loaded.records.discountFiniteMonthly[record]).toBe(50);
    const refund = Array.from(loaded.records.payment).indexOf(loaded.payments.ids.indexOf('subh-edge-2'));
    expect(loaded.records.totalValue[refund]).toBe(-300);
    expect(loaded.records.version[refund]).toBe(2);
  });

  it('reads open-ended and prorated payments, exact monthly amounts, discount months and such versions', async () => {
    const periods = await seedDemoAccount(db.kysely, { email: 'periods@example.com', password: 'pw-periods', now: NOW, customers: 10, months: 3, seed: 14 });
    const account = periods.accountId;
    await db.kysely.insertInto('customers').values({ account_id: account, id: 'cus-period', name: 'Periods' }).execute();
    const prorated = 36 / (365 / 12);
    await db.kysely
      .insertInto('payments')
      .values([
        { account_id: account, id: 'subh-open', customer_id: 'cus-period', started_at: '2025-02-10', ended_at: null, duration_in_months: null, total_value: null, monthly_amount: 10_000 / 3, currency: 'USD' },
        { account_id: account, id: 'subh-prorated', customer_id: 'cus-period', started_at: '2025-01-15', ended_at: '2025-02-20', duration_in_months: prorated, total_value: 6_000, currency: 'USD', version: 2 },
      ])
      .execute();
    await db.kysely.insertInto('payment_discounts').values({ account_id: account, payment_id: 'subh-open', position: 0, kind: 'finite', monthly_amount: 500, months: 2 }).execute();
    await db.kysely
      .insertInto('payment_versions')
      .values({
        account_id: account,
        payment_id: 'subh-prorated',
        version: 1,
        customer_id: 'cus-period',
        started_at: '2025-01-15',
        ended_at: null,
        duration_in_months: null,
        total_value: null,
        monthly_amount: 4_000.5,
        currency: 'USD',
        invoice_number: null,
        items: JSON.stringify([{ product_key: 'plan', type: 'recurring', quantity: 1 }]),
        discounts: JSON.stringify([{ kind: 'finite', monthly_amount: 100, months: 1 }]),
        valid_from: new Date('2025-01-15T00:00:00Z'),
        valid_to: new Date('2025-03-01T12:00:00Z'),
      })
      .execute();
    const loaded = await loadSnapshot(db, account);
    const recordOf = (id: string, current: boolean) => Array.from(loaded.records.payment).findIndex((p, r) => p === loaded.payments.ids.indexOf(id) && loaded.records.current[r] === (current ? 1 : 0));
    const open = recordOf('subh-open', true);
    expect(loaded.records.openEnded[open]).toBe(1);
    expect(Number.isNaN(loaded.records.durationMonths[open])).toBe(true);
    expect(loaded.records.totalValue[open]).toBe(0);
    expect(loaded.records.monthlyAmount[open]).toBe(3_333);
    expect(loaded.records.discountFiniteMonthly[open]).toBe(500);
    expect(loaded.records.discountFiniteEndDay[open]).toBe(dayFromIso('2025-04-10'));
    const current = recordOf('subh-prorated', true);
    expect(loaded.records.openEnded[current]).toBe(0);
    expect(loaded.records.endDay[current]).toBe(dayFromIso('2025-02-20'));
    expect(loaded.records.durationMonths[current]).toBe(prorated);
    expect(loaded.records.monthlyAmount[current]).toBe(5_069);
    const earlier = recordOf('subh-prorated', false);
    expect(loaded.records.openEnded[earlier]).toBe(1);
    expect(loaded.records.monthlyAmount[earlier]).toBe(4_000);
    expect(loaded.records.discountFiniteEndDay[earlier]).toBe(dayFromIso('2025-02-15'));
    // The stored copy keeps every new column.
    const again = await loadSnapshot(db, account);
    expect(Array.from(again.records.openEnded)).toEqual(Array.from(loaded.records.openEnded));
    expect(Array.from(again.records.discountFiniteEndDay)).toEqual(Array.from(loaded.records.discountFiniteEndDay));
  });

  it('refuses keys with control characters, which the loader uses as separators', async () => {
    await expect(db.kysely.insertInto('customers').values({ account_id: mine.accountId, id: 'cus\u001fbad', name: 'Bad' }).execute()).rejects.toThrow(/customers_id_printable/);
  });

  it('reads the same through a bare Kysely instance (one connection, no twin transaction)', async () => {
    const alone = await loadSnapshot(db.kysely, mine.accountId);
    const twice = await loadSnapshot(db, mine.accountId);
    expect(alone.payments.count).toBe(twice.payments.count);
    expect(alone.records.count).toBe(twice.records.count);
    const request = { resolution: 'month' as const, range: { startYear: 2024, startMonth: 11, endYear: 2025, endMonth: 4 }, today: dayFromIso('2025-04-20') };
    expect(computeMrrSeries(alone, request).total).toEqual(computeMrrSeries(twice, request).total);
  });

  it('refuses an unknown account', async () => {
    await expect(loadSnapshot(db.kysely, 'acc-nobody')).rejects.toThrow(SnapshotError);
  });
});
