import { describe, expect, it } from 'vitest';
import { fieldErrors } from '../../models/validation';
import {
  durationInMonthsOf,
  endDateOf,
  formEndDate,
  formMonthlyAmount,
  INVALID_DATE_MESSAGE,
  START_DATE_REQUIRED_MESSAGE,
  isPaymentId,
  isStartDateInWindow,
  majorTextToMinor,
  MINIMAL_VALUE_MESSAGE,
  minorToMajorText,
  monthlyAmountOf,
  MONTHLY_AMOUNT_REQUIRED_MESSAGE,
  NEW_PAYMENT_FORM_VALUES,
  newCustomerFormStruct,
  newPaymentId,
  paymentFormStruct,
  paymentFormToBody,
  paymentToFormValues,
  PRODUCT_NAME_REQUIRED_MESSAGE,
  TOTAL_VALUE_REQUIRED_MESSAGE,
  VALUE_NOT_NUMBER_MESSAGE,
  type Payment,
  type PaymentFormValues,
} from '../../models/payments';

const TODAY = '2024-05-15';
const valid: PaymentFormValues = {
  ...NEW_PAYMENT_FORM_VALUES,
  customer_id: 'cus_1',
  started_at: '2024-05-01',
  total_value: '1200.20',
  currency: 'USD',
  product_key: 'pro',
};

describe('payment ids', () => {
  it("are 'subh' and 12 letters or digits, each one after the one made before it", () => {
    const made = Array.from({ length: 200 }, () => newPaymentId());
    const ids = new Set(made);
    expect(ids.size).toBe(200);
    expect(made.slice(1).every((id, k) => id > (made[k] as string))).toBe(true);
    for (const id of ids) {
      expect(id).toMatch(/^subh[A-Za-z0-9]{12}$/);
      expect(isPaymentId(id)).toBe(true);
    }
  });

  it.each(['subh123', 'subh12345678901!', 'SUBH123456789012', 'subh1234567890123', ''])('refuses %j', (id) => {
    expect(isPaymentId(id)).toBe(false);
  });
});

describe('the period of a payment', () => {
  it.each([
    ['2024-01-15', 1, '2024-02-15'],
    ['2024-01-31', 1, '2024-02-29'],
    ['2023-01-31', 1, '2023-02-28'],
    ['2024-03-31', 1, '2024-04-30'],
    ['2024-11-30', 3, '2025-02-28'],
    ['2024-02-29', 12, '2025-02-28'],
    ['2024-01-01', 24, '2026-01-01'],
  ])('%s plus %d months ends on %s (the day is clamped to the month)', (start, months, end) => {
    expect(endDateOf(start, months)).toBe(end);
  });

  it('counts whole months when the end is a whole number of months after the start', () => {
    expect(durationInMonthsOf('2024-01-31', '2024-02-29')).toBe(1);
    expect(durationInMonthsOf('2024-01-01', '2025-01-01')).toBe(12);
  });

  it('counts days / (365/12) for any other end', () => {
    expect(durationInMonthsOf('2024-01-01', '2024-01-16')).toBeCloseTo(15 / (365 / 12), 12);
    expect(durationInMonthsOf('2024-01-01', '2024-02-02')).toBeCloseTo(32 / (365 / 12), 12);
  });

  it('divides the total by the months exactly (a fraction of a minor unit stays)', () => {
    expect(monthlyAmountOf(10_000, 3)).toBeCloseTo(3333.3333333, 6);
    expect(monthlyAmountOf(120_000, 12)).toBe(10_000);
  });
});

describe('the start date window of a new payment', () => {
  it.each([
    ['2024-03-16', true],
    ['2024-03-15', false],
    ['2024-05-16', true],
    ['2024-05-17', false],
    ['2024-05-15', true],
    ['2024-02-30', false],
    ['15-05-2024', false],
  ])('%s is %s with today 2024-05-15', (date, inside) => {
    expect(isStartDateInWindow(date, TODAY)).toBe(inside);
  });
});

describe('amounts typed in the form', () => {
  it.each([
    ['1200.20', 'USD', 120_020],
    ['1200,2', 'USD', 120_020],
    ['15', 'JPY', 15],
    ['1.005', 'KWD', 1005],
    [' 7 ', 'usd', 700],
  ])('%j %s is %d minor units', (typed, currency, minor) => {
    expect(majorTextToMinor(typed, currency)).toBe(minor);
  });

  it.each(['', 'abc', '-5', '1e3', '12.'])('%j is not an amount', (typed) => {
    expect(majorTextToMinor(typed, 'USD')).toBeNull();
  });

  it('shows minor units as major units', () => {
    expect(minorToMajorText(120_020, 'USD')).toBe('1200.2');
    expect(minorToMajorText(15, 'JPY')).toBe('15');
  });
});

describe('the payment form', () => {
  const errors = (values: Partial<PaymentFormValues>, isNew = true) =>
    fieldErrors(paymentFormStruct({ today: TODAY, isNew }), { ...valid, ...values });

  it('takes a complete payment', () => {
    expect(errors({})).toEqual({});
  });

  it.each<[Partial<PaymentFormValues>, string, string]>([
    [{ total_value: '' }, 'total_value', TOTAL_VALUE_REQUIRED_MESSAGE],
    [{ total_value: '12a' }, 'total_value', VALUE_NOT_NUMBER_MESSAGE],
    [{ duration_in_months: 0 }, 'duration_in_months', MINIMAL_VALUE_MESSAGE],
    [{ duration_in_months: '' }, 'duration_in_months', MINIMAL_VALUE_MESSAGE],
    [{ duration_in_months: '1.5' }, 'duration_in_months', MINIMAL_VALUE_MESSAGE],
    [{ started_at: '' }, 'started_at', START_DATE_REQUIRED_MESSAGE],
    [{ started_at: '  ' }, 'started_at', START_DATE_REQUIRED_MESSAGE],
    [{ started_at: '17-05-2024' }, 'started_at', INVALID_DATE_MESSAGE],
    [{ started_at: '2024-01-01' }, 'started_at', INVALID_DATE_MESSAGE],
    [{ started_at: '2024-05-17' }, 'started_at', INVALID_DATE_MESSAGE],
    [{ product_key: ' ' }, 'product_key', PRODUCT_NAME_REQUIRED_MESSAGE],
    [{ quantity: 0 }, 'quantity', MINIMAL_VALUE_MESSAGE],
    [{ quantity: '' }, 'quantity', MINIMAL_VALUE_MESSAGE],
    [{ customer_id: '', customer_name: '' }, 'customer_name', 'This field is required'],
    [{ period: 'until', ended_at: '2024-05-01' }, 'ended_at', INVALID_DATE_MESSAGE],
    [{ period: 'until', ended_at: '' }, 'ended_at', INVALID_DATE_MESSAGE],
    [{ period: 'ongoing', monthly_amount: '' }, 'monthly_amount', MONTHLY_AMOUNT_REQUIRED_MESSAGE],
    [{ discount_kind: 'forever', discount_amount: 'x' }, 'discount_amount', VALUE_NOT_NUMBER_MESSAGE],
    [{ discount_kind: 'finite', discount_amount: '5', discount_months: 0 }, 'discount_months', MINIMAL_VALUE_MESSAGE],
  ])('%j: %s says the spec message', (values, field, message) => {
    expect(errors(values)[field]).toBe(message);
  });

  it('shows every message at once', () => {
    expect(errors({ total_value: '', started_at: '', product_key: '', quantity: 0, duration_in_months: 0 })).toEqual({
      total_value: TOTAL_VALUE_REQUIRED_MESSAGE,
      started_at: START_DATE_REQUIRED_MESSAGE,
      product_key: PRODUCT_NAME_REQUIRED_MESSAGE,
      quantity: MINIMAL_VALUE_MESSAGE,
      duration_in_months: MINIMAL_VALUE_MESSAGE,
    });
  });

  it('does not hold an edit to the start date window', () => {
    expect(errors({ started_at: '2020-01-01' }, false)).toEqual({});
  });

  it('needs no total for an open-ended payment and no months for an end date', () => {
    expect(errors({ period: 'ongoing', total_value: '', monthly_amount: '99' })).toEqual({});
    expect(errors({ period: 'until', ended_at: '2024-05-16', duration_in_months: '' })).toEqual({});
  });

  it('checks a new customer name', () => {
    expect(fieldErrors(newCustomerFormStruct, { name: ' ' })).toEqual({ name: 'This field is required' });
    expect(fieldErrors(newCustomerFormStruct, { name: 'Acme' })).toEqual({});
  });

  it('becomes a body in minor units with the period the mode says', () => {
    expect(paymentFormToBody({ ...valid, duration_in_months: '3', invoice_number: ' F/1 ' })).toEqual({
      customer_id: 'cus_1',
      started_at: '2024-05-01',
      duration_in_months: 3,
      total_value: 120_020,
      currency: 'USD',
      invoice_number: 'F/1',
      items: [{ product_key: 'pro', type: 'recurring', quantity: 1 }],
      discount: null,
    });
    const until = paymentFormToBody({ ...valid, customer_id: '', customer_name: 'New Co', period: 'until', ended_at: '2024-05-16' });
    expect(until).toMatchObject({ customer_name: 'New Co', ended_at: '2024-05-16', total_value: 120_020 });
    expect(until).not.toHaveProperty('customer_id');
    const ongoing = paymentFormToBody({ ...valid, period: 'ongoing', monthly_amount: '10', discount_kind: 'finite', discount_amount: '2', discount_months: '3' });
    expect(ongoing).toMatchObject({ ended_at: null, monthly_amount: 1000, discount: { kind: 'finite', monthly_amount: 200, months: 3 } });
    expect(ongoing).not.toHaveProperty('total_value');
  });

  it('shows the monthly amount and the end date as the user types', () => {
    expect(formMonthlyAmount({ ...valid, total_value: '100', duration_in_months: 3 })).toBeCloseTo(3333.33333, 4);
    expect(formEndDate({ ...valid, started_at: '2024-01-31', duration_in_months: 1 })).toBe('2024-02-29');
    expect(formMonthlyAmount({ ...valid, period: 'ongoing', monthly_amount: '12.5' })).toBe(1250);
    expect(formEndDate({ ...valid, period: 'ongoing' })).toBeNull();
    expect(formMonthlyAmount({ ...valid, total_value: 'x' })).toBeNull();
  });

  it('fills the form from an existing payment', () => {
    const payment: Payment = {
      id: 'subhAAAAAAAAAAAA',
      customer: { id: 'c1', name: 'Acme' },
      customer_id: 'c1',
      invoice_number: null,
      started_at: '2024-01-01',
      ended_at: '2024-01-16',
      duration_in_months: 15 / (365 / 12),
      total_value: 5000,
      monthly_amount: 5000 / (15 / (365 / 12)),
      currency: 'EUR',
      items: [{ product_key: 'pro', product_name: 'Pro', type: 'recurring', quantity: 2 }],
      discount: { kind: 'forever', monthly_amount: 150, months: null },
      segments: [],
      latest_history_id: 'subhAAAAAAAAAAAA',
      version: 1,
      source: 'form',
    };
    expect(paymentToFormValues(payment)).toMatchObject({ period: 'until', ended_at: '2024-01-16', total_value: '50', quantity: 2, discount_kind: 'forever', discount_amount: '1.5' });
    expect(paymentToFormValues({ ...payment, ended_at: null, duration_in_months: null, total_value: null, monthly_amount: 990 })).toMatchObject({ period: 'ongoing', monthly_amount: '9.9', total_value: '' });
    expect(paymentToFormValues({ ...payment, ended_at: '2024-04-01', duration_in_months: 3 })).toMatchObject({ period: 'months', duration_in_months: 3 });
  });
});
