import { describe, expect, it } from 'vitest';
import { categoryLabels, chartModelOf, sectionEmptyState, segmentToShow } from '../../../../src/reports/charts/sectionModel';
import { months, mrrSection, segment, series } from './sectionFixtures';

describe('which segment a section draws', () => {
  it('draws the first segmenter the section is split by, else the total', () => {
    const periods = months(2);
    const plan = segment('customer_segment:plan', 'Plan', [series('basic', periods, [1, 2], { segment_value: 'basic' })]);
    const split = mrrSection({ segment_ids: ['customer_segment:plan'], segments: [segment('total', 'Total', [series('MRR', periods, [1, 2])]), plan] });
    expect(segmentToShow(split).segment?.id).toBe('customer_segment:plan');
    expect(segmentToShow(split, 'total').segment?.id).toBe('total');
    expect(segmentToShow(mrrSection()).segment?.id).toBe('total');
  });
});

describe('empty states', () => {
  it('draws a section with values', () => {
    expect(sectionEmptyState(mrrSection())).toBeNull();
  });

  it("says 'Nothing found' when the answer has no segments (failed or empty computation)", () => {
    expect(sectionEmptyState(mrrSection({ segments: [] }))).toBe('nothingFound');
  });

  it("says 'Nothing found' when the segment has no series or no values", () => {
    expect(sectionEmptyState(mrrSection({ segments: [segment('total', 'Total', [])] }))).toBe('nothingFound');
    const periods = months(3);
    expect(sectionEmptyState(mrrSection({ segments: [segment('total', 'Total', [series('MRR', periods, [null, null, null])])] }))).toBe('nothingFound');
  });

  it('says the selected segment is missing when the section was split by a segmenter the answer lacks', () => {
    expect(sectionEmptyState(mrrSection({ segment_ids: ['customer_segment:deleted'] }))).toBe('missingSegment');
    expect(sectionEmptyState(mrrSection(), { segmentId: 'customer_segment:plan' })).toBe('missingSegment');
  });

  it('says weekly sections are not supported while the report displays quarters', () => {
    expect(sectionEmptyState(mrrSection({ resolution: 'week' }), { displayQuarters: true })).toBe('quarterlyUnsupported');
    expect(sectionEmptyState(mrrSection({ resolution: 'week' }), { displayQuarters: false })).toBeNull();
  });

  it('says a quarterly section is not supported when the server refused the resolution', () => {
    const refused = mrrSection({ resolution: 'quarter', recalculation_status: 'failed', error: "MRR cohorts does not support the resolution 'quarter'", segments: [] });
    expect(sectionEmptyState(refused)).toBe('quarterlyUnsupported');
  });
});

describe('chart model', () => {
  it("names a segment's series without a value 'Other' and lists what it groups", () => {
    const periods = months(2);
    const plan = segment(
      'customer_segment:plan',
      'Plan',
      [series('basic', periods, [1, 2], { segment_value: 'basic' }), series('', periods, [3, 4], { segment_value: '' })],
      { grouped_segment_names: ['trial', 'legacy'] },
    );
    const model = chartModelOf(mrrSection({ periods }), plan, false);
    expect(model.series.map((s) => s.name)).toEqual(['basic', 'Other']);
    expect(model.series[1]?.groupedNames).toEqual(['trial', 'legacy']);
  });

  it('aligns each series to the periods, null where a point is missing', () => {
    const periods = months(3);
    const sparse = { name: 'MRR', data_points: [{ time: '2025-03-01', value: 7 }] };
    const model = chartModelOf(mrrSection({ periods }), segment('total', 'Total', [sparse]), false);
    expect(model.series[0]?.data).toEqual([null, null, 7]);
  });

  it('labels quarter-start months Q1..Q4 when the report displays quarters', () => {
    const section = mrrSection({ periods: months(7) });
    expect(categoryLabels(section, true)).toEqual(['Q1 2025', '', '', 'Q2 2025', '', '', 'Q3 2025']);
    expect(categoryLabels(section, false)[0]).toBe('2025-01');
  });

  it('labels quarterly periods Q1..Q4', () => {
    const quarters = [0, 3, 6, 9].map((month) => ({ ...months(1, month)[0]!, label: `2025-Q${month / 3 + 1}` }));
    expect(categoryLabels(mrrSection({ resolution: 'quarter', periods: quarters }), true)).toEqual(['Q1 2025', 'Q2 2025', 'Q3 2025', 'Q4 2025']);
  });
});
