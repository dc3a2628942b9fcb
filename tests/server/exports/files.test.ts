import Papa from 'papaparse';
import { readSheet } from 'read-excel-file/node';
import { describe, expect, it } from 'vitest';
import { contentDisposition, fileStem, toCsv, toXlsx } from '../../../server/reports/exports/files';
import { sectionDataTable, shownNumber } from '../../../server/reports/exports/tables';
import type { SectionResult } from '../../../server/metrics/definitions/types';

describe('export files', () => {
  it('prefixes a single quote to text cells that start like a formula, and keeps numbers (negative ones too) numeric', () => {
    const csv = toCsv({
      header: ['Name', 'Value'],
      rows: [
        ['=SUM(A1:A2)', -12.5],
        ['+1', 3],
        ['-minus', 0],
        ['@cmd', null],
        ['\tTabbed', 1],
        ['\rReturn', 2],
        ['=multi\nline', 4],
        ['plain, with comma', 5],
        ['-12.5', 6],
      ],
    });
    expect(csv.startsWith('\uFEFF')).toBe(true);
    const lines = csv.slice(1).split('\r\n');
    expect(lines[0]).toBe('Name,Value');
    expect(lines[1]).toBe(`"'=SUM(A1:A2)",-12.5`);
    expect(lines[2]).toBe(`"'+1",3`);
    expect(lines[3]).toBe(`"'-minus",0`);
    expect(lines[4]).toBe(`"'@cmd",`);
    // Text that merely looks like a negative number is text, so it is neutralised too.
    expect(csv).toContain(`"'-12.5",6`);
    const parsed = Papa.parse<string[]>(csv.slice(1), { skipEmptyLines: true }).data;
    expect(parsed.map((row) => row[0])).toEqual(['Name', "'=SUM(A1:A2)", "'+1", "'-minus", "'@cmd", "'\tTabbed", "'\rReturn", "'=multi\nline", 'plain, with comma', "'-12.5"]);
  });

  it('writes XLSX with text as text (never a formula) and numbers as numbers', async () => {
    const buffer = await toXlsx({ header: ['Name', 'Value'], rows: [['=SUM(A1:A2)', -12.5], ['Ada', null]] }, 'MRR: by [country]');
    const sheet = await readSheet(buffer);
    expect(sheet).toEqual([
      ['Name', 'Value'],
      ['=SUM(A1:A2)', -12.5],
      ['Ada', null],
    ]);
  });

  it('names files in plain ASCII', () => {
    expect(fileStem('Net MRR — churn (Ü)')).toBe('net-mrr-churn-u');
    expect(fileStem('***')).toBe('section');
    expect(contentDisposition('a"b.csv')).toBe('attachment; filename="ab.csv"');
  });

  it('shows money in major units of its currency and fractions as percentages', () => {
    expect(shownNumber(123_456, 'minor_units', 'USD')).toBe(1234.56);
    expect(shownNumber(123_456, 'minor_units', 'JPY')).toBe(123_456);
    expect(shownNumber(0.0525, 'fraction', null)).toBe(5.25);
    expect(shownNumber(7, 'count', null)).toBe(7);
  });

  it('writes a rate section with percentages and leaves undefined points empty', () => {
    const result: SectionResult = {
      definition_id: 'churn_rate',
      data_type: 'line_chart',
      resolution: 'month',
      data_category: 'values',
      unit: 'fraction',
      currency: 'USD',
      periods: [
        { label: '2026-01', first_day: '2026-01-01', last_day: '2026-01-31', measure_day: '2026-01-31', current: false, complete: true },
        { label: '2026-02', first_day: '2026-02-01', last_day: '2026-02-28', measure_day: '2026-02-28', current: false, complete: true },
      ],
      segments: [{ id: 'total', name: 'Total', is_total: true, grouped_segment_names: [], series: [{ name: 'Churn rate', data_points: [{ time: '2026-01-01', value: 0.05 }, { time: '2026-02-01', value: null }] }] }],
    };
    expect(sectionDataTable(result, {})).toEqual({
      header: ['Period', 'Start date', 'Churn rate (%)'],
      rows: [
        ['2026-01', '2026-01-01', 5],
        ['2026-02', '2026-02-01', null],
      ],
    });
  });

  it('writes an MRR cohort table as the page shows it: initial money, then shares as percentages', () => {
    const period = (month: string) => ({ label: month, first_day: `${month}-01`, last_day: `${month}-28`, measure_day: `${month}-28`, current: false, complete: true });
    const result: SectionResult = {
      definition_id: 'mrr_cohorts',
      data_type: 'cohort',
      resolution: 'month',
      data_category: 'values',
      unit: 'fraction',
      currency: 'EUR',
      periods: [period('2026-01'), period('2026-02')],
      segments: [
        {
          id: 'total',
          name: 'Total',
          is_total: true,
          grouped_segment_names: [],
          series: [
            { name: '2026-01', component: '2026-01', data_points: [{ time: '2026-01-01', value: 1, amount: 12_050, count: 2, column: 'initial' }, { time: '2026-01-01', value: 1, count: 2, column: 0 }, { time: '2026-02-01', value: 0.5, count: 1, column: 1 }] },
            { name: '2026-02', component: '2026-02', data_points: [{ time: '2026-02-01', value: 1, amount: 3_000, count: 1, column: 'initial' }, { time: '2026-02-01', value: 1, count: 1, column: 0 }] },
          ],
        },
      ],
    };
    expect(sectionDataTable(result, {})).toEqual({
      header: ['Cohort', 'initial (EUR)', 'month 0 (%)', 'month 1 (%)'],
      rows: [
        ['2026-01', 120.5, 100, 50],
        ['2026-02', 30, 100, null],
      ],
    });
    expect(sectionDataTable(result, { variant: 'customer_count' }).rows).toEqual([
      ['2026-01', 2, 2, 1],
      ['2026-02', 1, 1, null],
    ]);
  });
});
