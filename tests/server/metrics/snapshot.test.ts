import { describe, expect, it } from 'vitest';
import { DAY_NEVER_AFTER, DAY_NEVER_BEFORE, dayFromIso, isoFromDay } from '../../../server/metrics/days';
import { buildSnapshot, createSnapshotBuilder } from '../../../server/metrics/snapshot/builder';
import { ITEM_ONE_TIME, ITEM_RECURRING, SnapshotError, type CustomerRow, type PaymentRow, type SnapshotRows } from '../../../server/metrics/snapshot/rows';
import { accountRow, business } from './support';

const d = dayFromIso;

describe('the account snapshot', () => {
  it('keeps payments as records sorted by (customer, start day), with the end computed by month arithmetic', () => {
    const snapshot = business({
      customers: ['a', 'b'],
      payments: [
        { id: 'p3', customer: 'b', start: '2024-03-01', total: 100 },
        { id: 'p1', customer: 'a', start: '2024-01-31', months: 1, total: 100 },
        { id: 'p2', customer: 'a', start: '2023-11-30', months: 3, total: 100 },
      ],
    });
    const { records, payments, customers } = snapshot;
    const order = Array.from(records.payment, (p) => payments.ids.get(p));
    expect(order).toEqual(['p2', 'p1', 'p3']);
    expect(Array.from(records.customer, (c) => customers.ids[c])).toEqual(['a', 'a', 'b']);
    expect(Array.from(records.startDay, isoFromDay)).toEqual(['2023-11-30', '2024-01-31', '2024-03-01']);
    expect(Array.from(records.endDay, isoFromDay)).toEqual(['2024-02-29', '2024-02-29', '2024-04-01']);
    expect(payments.ids.indexOf('p3')).toBe(0);
  });

  it('stores monthly amounts as whole minor units (total / months, half to even), split evenly between items', () => {
    const snapshot = business({
      payments: [
        { customer: 'a', start: '2024-01-01', months: 4, total: 10_002 }, // 2500.5 -> 2500
        { customer: 'b', start: '2024-01-01', months: 4, total: 10_006 }, // 2501.5 -> 2502
        { customer: 'c', start: '2024-01-01', months: 1, total: 1_001, items: [{ product: 'x' }, { product: 'fee', type: 'one_time', quantity: 3 }] },
      ],
    });
    const { records, lines } = snapshot;
    expect(Array.from(records.monthlyAmount)).toEqual([2_500, 2_502, 1_001]);
    expect(records.recurringMonthly[2]).toBe(501);
    expect(records.oneTimeMonthly[2]).toBe(500);
    const c = records.lineStart[2] as number;
    expect(Array.from(lines.type.subarray(c, c + 2))).toEqual([ITEM_RECURRING, ITEM_ONE_TIME]);
    expect(Array.from(lines.quantity.subarray(c, c + 2))).toEqual([1, 3]);
    expect(Array.from(lines.total.subarray(c, c + 2))).toEqual([501, 500]);
    expect(snapshot.products.values[records.product[2] as number]).toBe('x');
  });

  it('sums discounts by kind', () => {
    const snapshot = business({
      payments: [{ customer: 'a', start: '2024-01-01', total: 10_000, discounts: [{ kind: 'forever', monthly: 100 }, { kind: 'forever', monthly: 50 }, { kind: 'finite', monthly: 7 }] }],
    });
    expect(snapshot.records.discountForeverMonthly[0]).toBe(150);
    expect(snapshot.records.discountFiniteMonthly[0]).toBe(7);
  });

  it('resolves top-most parents and inherits exclusion from ancestors', () => {
    const snapshot = business({
      customers: [{ id: 'top', include_in_calculations_by_default: false }, { id: 'mid', parent_id: 'top' }, { id: 'leaf', parent_id: 'mid' }, 'solo'],
      payments: [],
    });
    const { customers } = snapshot;
    const index = (id: string) => customers.index.get(id) as number;
    expect(customers.topParent[index('leaf')]).toBe(index('top'));
    expect(customers.parent[index('leaf')]).toBe(index('mid'));
    expect(customers.topParent[index('solo')]).toBe(index('solo'));
    expect(Array.from(customers.included)).toEqual([0, 0, 0, 1]);
  });

  it('gives payment versions their windows: the lowest since always, later ones from their recording day, the current row after the last', () => {
    const snapshot = business({
      payments: [{ id: 'p1', customer: 'a', start: '2024-01-01', total: 300 }],
      versions: [1, 2].map((version) => ({
        payment_id: 'p1',
        version,
        customer_id: 'a',
        started_at: '2024-01-01',
        duration_in_months: 1,
        total_value: version * 100,
        currency: 'USD',
        items: [{ product_key: 'plan', type: 'recurring', quantity: 1 }],
        discounts: [],
        deleted: false,
        valid_from: version === 1 ? '2024-01-01T00:00:00Z' : '2024-01-10T08:00:00Z',
        valid_to: version === 1 ? '2024-01-10T08:00:00Z' : '2024-01-20T23:59:59Z',
      })),
    });
    const { records } = snapshot;
    const rows = Array.from({ length: records.count }, (_, r) => ({
      total: records.totalValue[r],
      from: records.validFromDay[r],
      to: records.validToDay[r],
      current: records.current[r],
    })).sort((a, b) => (a.total as number) - (b.total as number));
    expect(rows).toEqual([
      { total: 100, from: DAY_NEVER_BEFORE, to: d('2024-01-10'), current: 0 },
      { total: 200, from: d('2024-01-10'), to: d('2024-01-20'), current: 0 },
      { total: 300, from: d('2024-01-20'), to: DAY_NEVER_AFTER, current: 1 },
    ]);
  });

  it('keeps time-sensitive segment histories and only the latest value of other segments', () => {
    const snapshot = business({
      customers: ['a'],
      payments: [],
      segments: [
        { id: 'plan', name: 'Plan', value_source: 'parent_and_children', time_sensitive: true },
        { id: 'country', name: 'Country', value_source: 'parent_and_children', time_sensitive: false },
      ],
      segmentValues: [
        { customer_id: 'a', segment_id: 'plan', year: 2024, month: 3, value: 'Pro' },
        { customer_id: 'a', segment_id: 'plan', year: 2024, month: 1, value: 'Starter' },
        { customer_id: 'a', segment_id: 'country', year: 2023, month: 1, value: 'Spain' },
        { customer_id: 'a', segment_id: 'country', year: 2024, month: 5, value: 'France' },
      ],
    });
    const [plan, country] = snapshot.customerSegments;
    expect(Array.from(plan!.month)).toEqual([2024 * 12, 2024 * 12 + 2]);
    expect(Array.from(plan!.value, (v) => plan!.values[v])).toEqual(['Starter', 'Pro']);
    expect(Array.from(country!.month)).toEqual([DAY_NEVER_BEFORE]);
    expect(country!.values[country!.value[0] as number]).toBe('France');
  });

  it('fills exchange rates densely: a day without a rate takes the latest earlier one, days before the first the first', () => {
    const snapshot = business({
      payments: [],
      rates: [
        { day: '2024-01-05', currency: 'USD', rate_per_eur: '1.1' },
        { day: '2024-01-08', currency: 'USD', rate_per_eur: '1.2' },
        { day: '2024-01-03', currency: 'PLN', rate_per_eur: '4.3' },
      ],
    });
    const { rates, currencies } = snapshot;
    const usd = rates.perEur[currencies.index.get('USD') as number] as Float64Array;
    const at = (day: string) => usd[d(day) - rates.baseDay];
    expect(isoFromDay(rates.baseDay)).toBe('2024-01-03');
    expect([at('2024-01-03'), at('2024-01-05'), at('2024-01-06'), at('2024-01-07'), at('2024-01-08')]).toEqual([1.1, 1.1, 1.1, 1.1, 1.2]);
    expect(rates.perEur[currencies.index.get('EUR') as number]?.[0]).toBe(1);
    expect(rates.perEur[currencies.index.get('GBP') ?? -1]).toBeUndefined();
  });

  it('builds the same snapshot from pages as from whole tables', () => {
    const rows: SnapshotRows = {
      account: accountRow(),
      customers: ['a', 'b', 'c'].map((id) => ({ id, parent_id: null, include_in_calculations_by_default: true })),
      payments: Array.from({ length: 7 }, (_, i) => ({ id: `p${i}`, customer_id: ['c', 'a', 'b'][i % 3] as string, started_at: `2024-0${(i % 5) + 1}-0${i + 1}`, duration_in_months: 1 + (i % 3), total_value: 1000 * i, currency: 'USD' })),
      paymentItems: Array.from({ length: 7 }, (_, i) => ({ payment_id: `p${i}`, position: 0, product_key: 'plan', type: 'recurring' as const, quantity: 1 })),
    };
    const whole = buildSnapshot(rows);
    const builder = createSnapshotBuilder(rows.account);
    builder.addCustomers(rows.customers.slice(0, 2));
    builder.addCustomers(rows.customers.slice(2));
    for (let i = 0; i < 7; i += 3) builder.addPayments(rows.payments.slice(i, i + 3));
    builder.addPaymentItems((rows.paymentItems ?? []).slice(0, 4));
    builder.addPaymentItems((rows.paymentItems ?? []).slice(4));
    const paged = builder.finish();
    expect(paged.records).toEqual(whole.records);
    expect(paged.lines).toEqual(whole.lines);
    expect(() => builder.addCustomers([])).toThrow(SnapshotError);
  });

  type MutableRows = { account: SnapshotRows['account']; customers: CustomerRow[]; payments: PaymentRow[]; paymentItems?: SnapshotRows['paymentItems']; exchangeRates?: SnapshotRows['exchangeRates'] };
  it.each<[string, (rows: MutableRows) => void]>([
    ['a payment of an unknown customer', (rows) => rows.payments.push({ id: 'x', customer_id: 'nobody', started_at: '2024-01-01', duration_in_months: 1, total_value: 1, currency: 'USD' })],
    ['an item of an unknown payment', (rows) => (rows.paymentItems = [{ payment_id: 'nope', position: 0, product_key: 'p', type: 'recurring', quantity: 1 }])],
    ['a parent that does not exist', (rows) => rows.customers.push({ id: 'orphan', parent_id: 'ghost', include_in_calculations_by_default: true })],
    ['a duration of 0 months', (rows) => rows.payments.push({ id: 'x', customer_id: 'a', started_at: '2024-01-01', duration_in_months: 0, total_value: 1, currency: 'USD' })],
    ['a rate that is not positive', (rows) => (rows.exchangeRates = [{ day: '2024-01-01', currency: 'USD', rate_per_eur: '0' }])],
    ['a start day that is not a calendar day', (rows) => rows.payments.push({ id: 'x', customer_id: 'a', started_at: '2024-02-30', duration_in_months: 1, total_value: 1, currency: 'USD' })],
    ['a payment id twice', (rows) => rows.payments.push(...['dup', 'dup'].map((id) => ({ id, customer_id: 'a', started_at: '2024-01-01', duration_in_months: 1, total_value: 1, currency: 'USD' })))],
    ['a customer id twice', (rows) => rows.customers.push({ id: 'a', parent_id: null, include_in_calculations_by_default: true })],
  ])('rejects %s', (_name, spoil) => {
    const rows: MutableRows = { account: accountRow(), customers: [{ id: 'a', parent_id: null, include_in_calculations_by_default: true }], payments: [] };
    spoil(rows);
    expect(() => buildSnapshot(rows)).toThrow(/unknown|parent|duration|rate|calendar day|duplicate (payment 'dup'|customer 'a')/);
  });
});
