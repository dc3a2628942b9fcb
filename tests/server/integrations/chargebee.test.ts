import { describe, expect, it } from 'vitest';
import { CHARGEBEE_API_KEY_EMPTY, CHARGEBEE_SITE_EMPTY, SITE_INVALID } from '../../../models/integrations';
import { billingPeriodInMonths, customerName, invoicePayments, normaliseSite, parseChargebeeConfig, phaseProgress } from '../../../server/integrations/providers/chargebee';
import { fakeCoupon, fakeInvoice } from '../../fakes/chargebee';

/**
 * Chargebee's objects as payments (fixtures in the shape Chargebee answers with, tests/fakes/
 * chargebee.ts): periods, billing periods normalised to months, item types, coupons, currencies;
 * the configuration's checks; the percent estimate.
 */

type Invoice = Parameters<typeof invoicePayments>[0];
const coupons = new Map(
  [fakeCoupon('FOREVER10', 'forever', { name: 'Forever 10%' }), fakeCoupon('THREE', 'limited_period', { months: 3 }), fakeCoupon('ONCE', 'one_time')].map((c) => [String(c.id), c as never]),
);
const subscriptions = new Map([
  ['sub_m', { id: 'sub_m', billing_period: 1, billing_period_unit: 'month' as const }],
  ['sub_y', { id: 'sub_y', billing_period: 1, billing_period_unit: 'year' as const }],
  ['sub_w', { id: 'sub_w', billing_period: 2, billing_period_unit: 'week' as const }],
]);
const paymentsOf = (invoice: Record<string, unknown>) => invoicePayments(invoice as unknown as Invoice, coupons, subscriptions);

describe('Chargebee mapping', () => {
  it('makes a paid monthly plan line a recurring payment over its dates, in its currency', () => {
    const [payment] = paymentsOf(fakeInvoice('inv_1', 'cust_1', { from: '2025-01-15', to: '2025-02-15', amount: 4900, subscriptionId: 'sub_m', currency: 'eur' }));
    expect(payment).toEqual({
      externalId: 'inv_1:li_inv_1',
      customerExternalId: 'cust_1',
      startedAt: '2025-01-15',
      endedAt: '2025-02-15',
      totalValue: 4900,
      monthlyAmount: 4900,
      currency: 'EUR',
      invoiceNumber: 'inv_1',
      productKey: 'pro-USD-monthly',
      itemType: 'recurring',
      quantity: 1,
      discount: null,
    });
  });

  it('normalises billing periods to months: a year is 12, a week 12/52', () => {
    expect(billingPeriodInMonths(1, 'year')).toBe(12);
    expect(billingPeriodInMonths(3, 'month')).toBe(3);
    expect(billingPeriodInMonths(2, 'week')).toBeCloseTo(24 / 52, 10);
    expect(billingPeriodInMonths(30, 'day')).toBeCloseTo(360 / 365, 10);
    expect(billingPeriodInMonths(undefined, 'month')).toBeNull();
    const [yearly] = paymentsOf(fakeInvoice('inv_y', 'c', { from: '2024-03-01', to: '2025-03-01', amount: 120000, subscriptionId: 'sub_y' }));
    expect(yearly?.monthlyAmount).toBe(10000);
    const [weekly] = paymentsOf(fakeInvoice('inv_w', 'c', { from: '2025-01-06', to: '2025-01-20', amount: 2400, subscriptionId: 'sub_w' }));
    expect(weekly?.monthlyAmount).toBeCloseTo(2400 / (24 / 52), 6);
    // A prorated part of a yearly term divides by the months it spans.
    const [part] = paymentsOf(fakeInvoice('inv_p', 'c', { from: '2025-01-01', to: '2025-07-01', amount: 60000, subscriptionId: 'sub_y' }));
    expect(part?.monthlyAmount).toBe(10000);
  });

  it('types metered lines, charges, setup fees and ad hoc lines; a one-time line of no length covers a month', () => {
    const [metered] = paymentsOf(fakeInvoice('i1', 'c', { from: '2025-01-01', to: '2025-02-01', amount: 700, metered: true, entityType: 'addon_item_price' }));
    expect(metered?.itemType).toBe('metered');
    for (const entityType of ['charge_item_price', 'plan_setup', 'adhoc']) {
      const [oneTime] = paymentsOf(fakeInvoice('i2', 'c', { from: '2025-01-10', to: '2025-01-10', amount: 1500, entityType }));
      expect(oneTime).toMatchObject({ itemType: 'one_time', startedAt: '2025-01-10', endedAt: '2025-02-10', monthlyAmount: 1500 });
    }
    expect(paymentsOf(fakeInvoice('i3', 'c', { from: '2025-01-01', to: '2025-02-01', amount: 0 }))).toEqual([]);
  });

  it('turns coupons into discounts: forever stays forever, limited and one-time ones are finite over the line', () => {
    const [forever] = paymentsOf(fakeInvoice('i4', 'c', { from: '2025-01-01', to: '2025-02-01', amount: 5000, subscriptionId: 'sub_m', couponId: 'FOREVER10', discount: 500 }));
    expect(forever?.discount).toEqual({ kind: 'forever', monthlyAmount: 500, months: null, name: 'Forever 10%' });
    const [limited] = paymentsOf(fakeInvoice('i5', 'c', { from: '2025-01-01', to: '2025-02-01', amount: 5000, subscriptionId: 'sub_m', couponId: 'THREE', discount: 1000 }));
    expect(limited?.discount).toEqual({ kind: 'finite', monthlyAmount: 1000, months: 1, name: 'THREE' });
    const [once] = paymentsOf(fakeInvoice('i6', 'c', { from: '2025-01-01', to: '2025-04-01', amount: 15000, couponId: 'ONCE', discount: 1500 }));
    expect(once?.discount).toEqual({ kind: 'finite', monthlyAmount: 500, months: 3, name: 'ONCE' });
  });

  it('names a customer by company, else person, else e-mail, else id', () => {
    expect(customerName({ id: 'x', company: 'Acme', first_name: 'Pat' })).toBe('Acme');
    expect(customerName({ id: 'x', first_name: 'Pat', last_name: 'Lee' })).toBe('Pat Lee');
    expect(customerName({ id: 'x', email: 'a@b.c' })).toBe('a@b.c');
    expect(customerName({ id: 'x' })).toBe('x');
  });

  it('checks the configuration with the spec’s messages and keeps the key as a secret', () => {
    expect(parseChargebeeConfig({})).toEqual([
      { pointer: '/body/chargebee_api_key', detail: CHARGEBEE_API_KEY_EMPTY },
      { pointer: '/body/chargebee_site', detail: CHARGEBEE_SITE_EMPTY },
    ]);
    expect(parseChargebeeConfig(null)).toHaveLength(2);
    expect(parseChargebeeConfig({ chargebee_api_key: 'k', chargebee_site: 'a b' })).toEqual([{ pointer: '/body/chargebee_site', detail: SITE_INVALID }]);
    expect(parseChargebeeConfig({ chargebee_api_key: ' live_abc ', chargebee_site: 'Acme-Test.chargebee.com' })).toEqual({ config: { chargebee_site: 'acme-test' }, secrets: { chargebee_api_key: 'live_abc' } });
    expect(normaliseSite('https://acme.chargebee.com/pages')).toBe('acme');
  });

  it('estimates the percent by phase, growing with every page and never reaching the next phase', () => {
    const steps = [0, 1, 2, 5, 50, 5000].map((pages) => phaseProgress(30, 99, pages));
    expect([...steps].sort((a, b) => a - b)).toEqual(steps);
    expect(steps[0]).toBe(30);
    expect(steps.at(-1)).toBeLessThan(99);
  });
});
