import { describe, expect, it } from 'vitest';
import {
  defaultMapping,
  emptyMapping,
  fieldOfColumn,
  isCsvFileName,
  isMappingComplete,
  looksLikeHeader,
  mapColumn,
  missingRequiredFields,
  pollIntervalMs,
} from '../../../machines/importWizard/mapping';

describe('import mapping rules', () => {
  it("uses the spec's default columns, only for the columns the file has", () => {
    expect(defaultMapping(12)).toEqual({
      customer_id: 0,
      invoice_number: 1,
      started_at: 2,
      ended_at: 3,
      months: 5,
      monthly_amount: 6,
      revenue_type: 7,
      currency: 8,
      product: 9,
      customer_name: 10,
      units: 11,
    });
    expect(defaultMapping(3)).toEqual({ ...emptyMapping(), customer_id: 0, invoice_number: 1, started_at: 2 });
    expect(fieldOfColumn(defaultMapping(12), 4)).toBeNull();
    expect(fieldOfColumn(defaultMapping(12), 6)).toBe('monthly_amount');
  });

  it('maps a column to one field at most, and a field to one column at most', () => {
    const moved = mapColumn(defaultMapping(7), 4, 'months');
    expect(moved).toMatchObject({ months: 4 });
    expect(fieldOfColumn(moved, 5)).toBeNull();

    const replaced = mapColumn(moved, 4, 'units');
    expect(replaced).toMatchObject({ units: 4, months: null });

    expect(mapColumn(replaced, 4, null)).toMatchObject({ units: null });
  });

  it('lists the unmapped required fields in the order of the spec rule', () => {
    expect(missingRequiredFields(emptyMapping())).toEqual(['monthly_amount', 'started_at', 'customer_id', 'invoice_number', 'months']);
    expect(missingRequiredFields(defaultMapping(5))).toEqual(['monthly_amount', 'months']);
    expect(isMappingComplete(defaultMapping(7))).toBe(true);
    // Ended at and the rest are optional.
    expect(isMappingComplete(mapColumn(defaultMapping(7), 3, null))).toBe(true);
  });

  it('guesses a header row from the amount and start cells', () => {
    const mapping = defaultMapping(7);
    expect(looksLikeHeader(['Customer', 'Invoice', 'Start', 'End', 'Plan', 'Months', 'MRR'], mapping)).toBe(true);
    expect(looksLikeHeader(['cus_1', 'INV-1', '2024-01-01', '', 'Pro', '12', '49.00'], mapping)).toBe(false);
    expect(looksLikeHeader(['Klient', 'Faktura', 'Początek', 'Koniec', 'Plan', 'Miesiące 1-12', 'Kwota'], mapping)).toBe(true);
    expect(looksLikeHeader(undefined, mapping)).toBe(false);
    // Neither amount nor start mapped: a row without any digit.
    expect(looksLikeHeader(['Customer', 'Invoice'], defaultMapping(2))).toBe(true);
    expect(looksLikeHeader(['cus_1', 'INV-1'], defaultMapping(2))).toBe(false);
  });

  it('takes .csv files only', () => {
    expect(isCsvFileName('payments.csv')).toBe(true);
    expect(isCsvFileName('PAYMENTS.CSV')).toBe(true);
    expect(isCsvFileName('payments.csv.xlsx')).toBe(false);
    expect(isCsvFileName('payments')).toBe(false);
  });

  it('waits 3 s for the first 20 polls, 10 s up to 70, 20 s up to 170, then 60 s', () => {
    expect([1, 20, 21, 70, 71, 170, 171, 1000].map(pollIntervalMs)).toEqual([3_000, 3_000, 10_000, 10_000, 20_000, 20_000, 60_000, 60_000]);
  });
});
