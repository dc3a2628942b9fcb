import { describe, expect, it } from 'vitest';
import { DAYS_PER_MONTH, readSubscriptionRow, type FieldMapping, type RowContext } from '../../../server/imports/subscriptionRows';

/** The row reader alone: periods of any length, open-ended rows, total values and discounts. */

const context: RowContext = { accountId: 'acc-1', accountCurrency: 'USD', currencyDigits: new Map([['USD', 2]]), slashOrder: null };
const dialog: FieldMapping = { customer_id: 0, started_at: 1, ended_at: 2, monthly_amount: 3 };
const read = (cells: string[], mapping: FieldMapping = dialog) => readSubscriptionRow(cells, mapping, context);
const row = (cells: string[], mapping: FieldMapping = dialog) => {
  const outcome = read(cells, mapping);
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.row;
};
const refusal = (cells: string[], mapping: FieldMapping = dialog) => {
  const outcome = read(cells, mapping);
  return outcome.ok ? null : outcome.message;
};

describe('the subscription row reader', () => {
  it('keeps whole months as before: the end as the day after or the last day, an integer duration, total = monthly x months', () => {
    expect(row(['c', '2025-01-31', '2025-02-28', '10'])).toMatchObject({ endedAt: '2025-02-28', months: 1, totalValue: 1_000, monthlyAmount: 1_000 });
    expect(row(['c', '2025-01-01', '2025-12-31', '10'])).toMatchObject({ endedAt: '2026-01-01', months: 12, totalValue: 12_000, monthlyAmount: 1_000 });
  });

  it('reads any other period in days / (365 / 12) and an empty end as open-ended', () => {
    expect(row(['c', '2025-01-01', '2025-01-08', '30.42'])).toMatchObject({ endedAt: '2025-01-08', months: 7 / DAYS_PER_MONTH, totalValue: Math.round(3_042 * (7 / DAYS_PER_MONTH)), monthlyAmount: 3_042 });
    expect(row(['c', '2025-01-01', '', '30'])).toMatchObject({ endedAt: null, months: null, totalValue: null, monthlyAmount: 3_000 });
    expect(refusal(['c', '2025-01-02', '2025-01-01', '30'])).toBe('Ended at 2025-01-01 is before Started at 2025-01-02');
    expect(refusal(['c', '2125-01-02', '2025-01-01', '30'])).toBe('Ended at 2025-01-01 is before Started at 2125-01-02');
    expect(refusal(['c', '2025-01-01', '2125-01-05', '30'])).toBe('Ended at 2125-01-05 is more than 1200 months after Started at 2025-01-01');
  });

  it('with a Months column: months win, an end must agree; an empty month and end is open-ended, unless the end is not mapped', () => {
    const page: FieldMapping = { customer_id: 0, started_at: 1, ended_at: 2, months: 3, monthly_amount: 4 };
    expect(row(['c', '2025-01-01', '', '2', '10'], page)).toMatchObject({ endedAt: '2025-03-01', months: 2, totalValue: 2_000 });
    expect(row(['c', '2025-01-01', '', '', '10'], page)).toMatchObject({ endedAt: null, months: null, totalValue: null, monthlyAmount: 1_000 });
    expect(refusal(['c', '2025-01-01', '2025-02-10', '2', '10'], page)).toBe('Ended at 2025-02-10 is not 2 month(s) after Started at 2025-01-01');
    expect(refusal(['c', '2025-01-01', '', '10'], { customer_id: 0, started_at: 1, months: 2, monthly_amount: 3 })).toBe('Months is empty');
  });

  it('spreads a total value over the period; refuses it for an open-ended row', () => {
    const total: FieldMapping = { customer_id: 0, started_at: 1, ended_at: 2, total_value: 3 };
    expect(row(['c', '2025-01-01', '2025-04-01', '100'], total)).toMatchObject({ months: 3, totalValue: 10_000, monthlyAmount: 10_000 / 3 });
    expect(row(['c', '2025-01-01', '2025-01-31', '100'], total)).toMatchObject({ months: 1, totalValue: 10_000, monthlyAmount: 10_000 });
    expect(row(['c', '2025-01-01', '2025-01-11', '100'], total)).toMatchObject({ months: 10 / DAYS_PER_MONTH, totalValue: 10_000, monthlyAmount: 10_000 / (10 / DAYS_PER_MONTH) });
    expect(refusal(['c', '2025-01-01', '', '100'], total)).toBe(
      "Total value '100' cannot be spread over an open-ended payment: Ended at is empty (give the end, or import open-ended payments with a Monthly amount column)",
    );
    expect(refusal(['c', '2025-01-01', '2025-02-01', '-1'], total)).toBe("Total value '-1' is negative");
    expect(refusal(['c', '2025-01-01', '2025-02-01', ''], total)).toBe('Total value is empty');
  });

  it('reads a discount: its kind from the column, or finite when it has months, forever otherwise; zero is none', () => {
    const discount: FieldMapping = { ...dialog, discount_amount: 4, discount_kind: 5, discount_months: 6 };
    expect(row(['c', '2025-01-01', '', '30', '5', 'Finite', '2'], discount).discount).toEqual({ kind: 'finite', monthlyAmount: 500, months: 2 });
    expect(row(['c', '2025-01-01', '', '30', '5', '', ''], discount).discount).toEqual({ kind: 'forever', monthlyAmount: 500, months: null });
    expect(row(['c', '2025-01-01', '', '30', '0', '', ''], discount).discount).toBeNull();
    expect(row(['c', '2025-01-01', '', '30'], dialog).discount).toBeNull();
    expect(refusal(['c', '2025-01-01', '', '30', '5', 'finite', '0'], discount)).toBe('Discount months must be between 1 and 1200, got 0');
    expect(refusal(['c', '2025-01-01', '', '30', '', '', '3'], discount)).toBe("Discount monthly amount is empty, but the row gives the discount's months");
    expect(refusal(['c', '2025-01-01', '', '30', 'x', '', ''], discount)).toBe("Discount monthly amount 'x' is not a number");
  });
});
