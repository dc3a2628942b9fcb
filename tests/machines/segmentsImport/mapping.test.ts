import { describe, expect, it } from 'vitest';
import {
  defaultMapping,
  emptyMapping,
  isCsvFileName,
  isMappingComplete,
  looksLikeHeader,
  mapColumn,
  mappingProblem,
  pollIntervalMs,
  roleOfColumn,
} from '../../../machines/segmentsImport/mapping';
import { CUSTOMER_COLUMN_REQUIRED_MESSAGE, MAPPING_INCOMPLETE_MESSAGE } from '../../../machines/segmentsImport/messages';

describe('segments import mapping rules', () => {
  it('starts on the first column for Customer ID, and the second for Value only in a two-column file', () => {
    expect(defaultMapping(0)).toEqual({ customerId: null, value: null });
    expect(defaultMapping(1)).toEqual({ customerId: 0, value: null });
    expect(defaultMapping(2)).toEqual({ customerId: 0, value: 1 });
    expect(defaultMapping(5)).toEqual({ customerId: 0, value: null });
  });

  it('keeps one value column at a time and one Customer ID column', () => {
    const mapping = { customerId: 0, value: 1 };
    expect(mapColumn(mapping, 3, 'value')).toEqual({ customerId: 0, value: 3 });
    expect(mapColumn(mapping, 3, 'customerId')).toEqual({ customerId: 3, value: 1 });
  });

  it('unmaps the role a column played when it takes the other one, or none', () => {
    const mapping = { customerId: 0, value: 1 };
    expect(mapColumn(mapping, 0, 'value')).toEqual({ customerId: null, value: 0 });
    expect(mapColumn(mapping, 1, 'customerId')).toEqual({ customerId: 1, value: null });
    expect(mapColumn(mapping, 1, null)).toEqual({ customerId: 0, value: null });
    expect(mapColumn(mapping, 4, null)).toEqual(mapping);
    expect(mapping).toEqual({ customerId: 0, value: 1 });
  });

  it('reads the role of a column', () => {
    const mapping = { customerId: 2, value: 0 };
    expect(roleOfColumn(mapping, 2)).toBe('customerId');
    expect(roleOfColumn(mapping, 0)).toBe('value');
    expect(roleOfColumn(mapping, 1)).toBeNull();
  });

  it("applies the spec's rule: a Customer ID column first, then a value column", () => {
    expect(mappingProblem(emptyMapping())).toBe(CUSTOMER_COLUMN_REQUIRED_MESSAGE);
    expect(mappingProblem({ customerId: null, value: 1 })).toBe(CUSTOMER_COLUMN_REQUIRED_MESSAGE);
    expect(mappingProblem({ customerId: 0, value: null })).toBe(MAPPING_INCOMPLETE_MESSAGE);
    expect(mappingProblem({ customerId: 0, value: 0 })).toBe(MAPPING_INCOMPLETE_MESSAGE);
    expect(mappingProblem({ customerId: 0, value: 1 })).toBeNull();
    expect(isMappingComplete({ customerId: 1, value: 0 })).toBe(true);
  });

  it('takes a first row naming the customer ID, or without digits above a row with some, for a header', () => {
    expect(looksLikeHeader([['Customer ID', 'Plan']])).toBe(true);
    expect(looksLikeHeader([['customer_public_id', 'Plan'], ['acme', 'Pro']])).toBe(true);
    expect(looksLikeHeader([[' id ', 'plan']])).toBe(true);
    expect(looksLikeHeader([['Company', 'Plan'], ['cus_001', 'Pro']])).toBe(true);
    expect(looksLikeHeader([['cus_001', 'Pro'], ['cus_002', 'Basic']])).toBe(false);
    expect(looksLikeHeader([['acme', 'Pro'], ['globex', 'Basic']])).toBe(false);
    expect(looksLikeHeader([['customer-acme', 'Pro'], ['customer-globex', 'Basic']])).toBe(false);
    expect(looksLikeHeader([])).toBe(false);
    expect(looksLikeHeader([[]])).toBe(false);
  });

  it('takes .csv files in any case', () => {
    expect(isCsvFileName('plans.csv')).toBe(true);
    expect(isCsvFileName('PLANS.CSV')).toBe(true);
    expect(isCsvFileName('plans.xlsx')).toBe(false);
    expect(isCsvFileName('csv')).toBe(false);
  });

  it('polls on the CSV import schedule', () => {
    expect([1, 20, 21, 70, 71, 170, 171, 1_000].map(pollIntervalMs)).toEqual([3_000, 3_000, 10_000, 10_000, 20_000, 20_000, 60_000, 60_000]);
  });
});
