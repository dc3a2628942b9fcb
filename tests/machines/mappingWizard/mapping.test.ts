import { describe, expect, it } from 'vitest';
import { emptyMapping, isMappingComplete, mapColumn, roleOfColumn, unmappedRequiredRoles } from '../../../machines/mappingWizard/mapping';
import { PAYMENTS_BOTH_AMOUNTS_MESSAGE, PAYMENTS_MAPPING_INCOMPLETE_MESSAGE, paymentsImport } from '../../../machines/mappingWizard/paymentsImport';
import {
  CUSTOMER_COLUMN_REQUIRED_MESSAGE,
  SEGMENTS_MAPPING_INCOMPLETE_MESSAGE,
  segmentsImport,
} from '../../../machines/mappingWizard/segmentsImport';

describe('mapping rules with the payments field roles', () => {
  const { defaultMapping, looksLikeHeader, mappingProblem } = paymentsImport;

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
      // Not spec columns: unmapped until the user picks them.
      total_value: null,
      discount_amount: null,
      discount_kind: null,
      discount_months: null,
    });
    expect(defaultMapping(3)).toEqual({ ...emptyMapping(paymentsImport), customer_id: 0, invoice_number: 1, started_at: 2 });
    expect(roleOfColumn(paymentsImport, defaultMapping(12), 4)).toBeNull();
    expect(roleOfColumn(paymentsImport, defaultMapping(12), 6)).toBe('monthly_amount');
  });

  it('maps a column to one field at most, and a field to one column at most', () => {
    const moved = mapColumn(paymentsImport, defaultMapping(7), 4, 'months');
    expect(moved).toMatchObject({ months: 4 });
    expect(roleOfColumn(paymentsImport, moved, 5)).toBeNull();

    const replaced = mapColumn(paymentsImport, moved, 4, 'units');
    expect(replaced).toMatchObject({ units: 4, months: null });

    expect(mapColumn(paymentsImport, replaced, 4, null)).toMatchObject({ units: null });
    // A role the config does not have maps nothing.
    expect(mapColumn(paymentsImport, replaced, 4, 'value')).toEqual({ ...replaced, units: null });
  });

  it('lists the unmapped required fields in the order of the spec rule, and names the rule while any is', () => {
    const empty = emptyMapping(paymentsImport);
    // The invoice number is optional; the amount and the period are alternatives (one of each).
    expect(unmappedRequiredRoles(paymentsImport, empty)).toEqual(['started_at', 'customer_id']);
    expect(paymentsImport.alternatives).toEqual([
      ['monthly_amount', 'total_value'],
      ['months', 'ended_at'],
    ]);
    expect(unmappedRequiredRoles(paymentsImport, defaultMapping(5))).toEqual([]);
    expect(mappingProblem(defaultMapping(5))).toBe(PAYMENTS_MAPPING_INCOMPLETE_MESSAGE);
    expect(PAYMENTS_MAPPING_INCOMPLETE_MESSAGE).toBe(
      'Subscription import requires mapping of monthly_amount or total_value, started_at, customer_id, months or ended_at',
    );
    expect(isMappingComplete(paymentsImport, defaultMapping(7))).toBe(true);
    // Either period field will do: Ended at alone, or Months alone.
    expect(isMappingComplete(paymentsImport, mapColumn(paymentsImport, defaultMapping(7), 3, null))).toBe(true);
    expect(isMappingComplete(paymentsImport, mapColumn(paymentsImport, defaultMapping(7), 5, null))).toBe(true);
    expect(mappingProblem(mapColumn(paymentsImport, mapColumn(paymentsImport, defaultMapping(7), 5, null), 3, null))).toBe(PAYMENTS_MAPPING_INCOMPLETE_MESSAGE);
    // The total value instead of the monthly amount, not beside it; the invoice number unmapped.
    const total = mapColumn(paymentsImport, mapColumn(paymentsImport, defaultMapping(7), 6, 'total_value'), 1, null);
    expect(isMappingComplete(paymentsImport, total)).toBe(true);
    expect(mappingProblem(mapColumn(paymentsImport, total, 4, 'monthly_amount'))).toBe(PAYMENTS_BOTH_AMOUNTS_MESSAGE);
    expect(PAYMENTS_BOTH_AMOUNTS_MESSAGE).toBe('Map Monthly amount or Total value, not both');
  });

  it('guesses a header row from the amount and start cells', () => {
    const mapping = defaultMapping(7);
    expect(looksLikeHeader([['Customer', 'Invoice', 'Start', 'End', 'Plan', 'Months', 'MRR']], mapping)).toBe(true);
    expect(looksLikeHeader([['cus_1', 'INV-1', '2024-01-01', '', 'Pro', '12', '49.00']], mapping)).toBe(false);
    expect(looksLikeHeader([['Klient', 'Faktura', 'Początek', 'Koniec', 'Plan', 'Miesiące 1-12', 'Kwota']], mapping)).toBe(true);
    expect(looksLikeHeader([], mapping)).toBe(false);
    // Neither amount nor start mapped: a row without any digit.
    expect(looksLikeHeader([['Customer', 'Invoice']], defaultMapping(2))).toBe(true);
    expect(looksLikeHeader([['cus_1', 'INV-1']], defaultMapping(2))).toBe(false);
  });

  it('says all N records imported', () => {
    expect(paymentsImport.allImportedMessage(3)).toBe('all 3 records imported');
    expect(paymentsImport.live).toBe(false);
  });
});

describe('mapping rules with the segments field roles', () => {
  const { defaultMapping, looksLikeHeader, mappingProblem } = segmentsImport;

  it('starts on the first column for Customer ID, and the second for Value only in a two-column file', () => {
    expect(defaultMapping(0)).toEqual({ customerId: null, value: null });
    expect(defaultMapping(1)).toEqual({ customerId: 0, value: null });
    expect(defaultMapping(2)).toEqual({ customerId: 0, value: 1 });
    expect(defaultMapping(5)).toEqual({ customerId: 0, value: null });
  });

  it('keeps one value column at a time and one Customer ID column', () => {
    const mapping = { customerId: 0, value: 1 };
    expect(mapColumn(segmentsImport, mapping, 3, 'value')).toEqual({ customerId: 0, value: 3 });
    expect(mapColumn(segmentsImport, mapping, 3, 'customerId')).toEqual({ customerId: 3, value: 1 });
  });

  it('unmaps the role a column played when it takes the other one, or none', () => {
    const mapping = { customerId: 0, value: 1 };
    expect(mapColumn(segmentsImport, mapping, 0, 'value')).toEqual({ customerId: null, value: 0 });
    expect(mapColumn(segmentsImport, mapping, 1, 'customerId')).toEqual({ customerId: 1, value: null });
    expect(mapColumn(segmentsImport, mapping, 1, null)).toEqual({ customerId: 0, value: null });
    expect(mapColumn(segmentsImport, mapping, 4, null)).toEqual(mapping);
    expect(mapping).toEqual({ customerId: 0, value: 1 });
  });

  it('reads the role of a column', () => {
    const mapping = { customerId: 2, value: 0 };
    expect(roleOfColumn(segmentsImport, mapping, 2)).toBe('customerId');
    expect(roleOfColumn(segmentsImport, mapping, 0)).toBe('value');
    expect(roleOfColumn(segmentsImport, mapping, 1)).toBeNull();
  });

  it("applies the spec's rule: a Customer ID column first, then a value column", () => {
    expect(mappingProblem(defaultMapping(0))).toBe(CUSTOMER_COLUMN_REQUIRED_MESSAGE);
    expect(mappingProblem({ customerId: null, value: 1 })).toBe(CUSTOMER_COLUMN_REQUIRED_MESSAGE);
    expect(mappingProblem({ customerId: 0, value: null })).toBe(SEGMENTS_MAPPING_INCOMPLETE_MESSAGE);
    expect(mappingProblem({ customerId: 0, value: 0 })).toBe(SEGMENTS_MAPPING_INCOMPLETE_MESSAGE);
    expect(mappingProblem({ customerId: 0, value: 1 })).toBeNull();
    expect(isMappingComplete(segmentsImport, { customerId: 1, value: 0 })).toBe(true);
    expect(unmappedRequiredRoles(segmentsImport, { customerId: null, value: null })).toEqual(['customerId', 'value']);
  });

  it('takes a first row naming the customer ID, or without digits above a row with some, for a header', () => {
    const mapping = defaultMapping(2);
    expect(looksLikeHeader([['Customer ID', 'Plan']], mapping)).toBe(true);
    expect(looksLikeHeader([['customer_public_id', 'Plan'], ['acme', 'Pro']], mapping)).toBe(true);
    expect(looksLikeHeader([[' id ', 'plan']], mapping)).toBe(true);
    expect(looksLikeHeader([['Company', 'Plan'], ['cus_001', 'Pro']], mapping)).toBe(true);
    expect(looksLikeHeader([['cus_001', 'Pro'], ['cus_002', 'Basic']], mapping)).toBe(false);
    expect(looksLikeHeader([['acme', 'Pro'], ['globex', 'Basic']], mapping)).toBe(false);
    expect(looksLikeHeader([['customer-acme', 'Pro'], ['customer-globex', 'Basic']], mapping)).toBe(false);
    expect(looksLikeHeader([], mapping)).toBe(false);
    expect(looksLikeHeader([[]], mapping)).toBe(false);
  });

  it('says all N values imported, one value in the singular; it has a live channel', () => {
    expect(segmentsImport.allImportedMessage(1)).toBe('all 1 value imported');
    expect(segmentsImport.allImportedMessage(2)).toBe('all 2 values imported');
    expect(segmentsImport.live).toBe(true);
  });
});
