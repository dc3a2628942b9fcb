import type { ReportSection, SectionSegment, SectionSeries } from '../../../../src/reports/charts/sectionModel';

/** Monthly periods from January 2025, labelled as the server labels them. */
export function months(count: number, startMonth = 0): ReportSection['periods'] {
  return Array.from({ length: count }, (_, index) => {
    const month = startMonth + index;
    const year = 2025 + Math.floor(month / 12);
    const mm = String((month % 12) + 1).padStart(2, '0');
    return {
      label: `${year}-${mm}`,
      first_day: `${year}-${mm}-01`,
      last_day: `${year}-${mm}-28`,
      measure_day: `${year}-${mm}-28`,
      current: false,
      complete: true,
    };
  });
}

export function series(name: string, periods: ReportSection['periods'], values: (number | null)[], extra: Partial<SectionSeries> = {}): SectionSeries {
  return {
    name,
    ...extra,
    data_points: periods.map((period, index) => ({ time: period.first_day, value: values[index] ?? null })),
  };
}

export function segment(id: string, name: string, seriesList: SectionSeries[], extra: Partial<SectionSegment> = {}): SectionSegment {
  return { id, name, is_total: id === 'total', series: seriesList, grouped_segment_names: [], ...extra };
}

/** An MRR line chart over three months in USD cents, total only. */
export function mrrSection(overrides: Partial<ReportSection> = {}): ReportSection {
  const periods = overrides.periods ?? months(3);
  return {
    id: 'sec_mrr',
    definition_id: 'mrr',
    title: 'MRR',
    summary: '',
    data_type: 'line_chart',
    use_hierarchy: false,
    resolution: 'month',
    position: 0,
    data_categories: ['values'],
    decimal: false,
    reference_value: null,
    segment_ids: [],
    underlying_data: 'subscriptions',
    recalculation_status: 'recalculated',
    error: null,
    computed_at: '2025-04-01T00:00:00Z',
    unit: 'minor_units',
    currency: 'USD',
    periods,
    segments: [segment('total', 'Total', [series('MRR', periods, [100_000, 150_000, 212_345])])],
    key_number: { value: 212_345, kind: 'currency', time: '2025-03-01' },
    ...overrides,
  };
}

/** An MRR cohort table: cohorts of January and February 2025. */
export function cohortSection(overrides: Partial<ReportSection> = {}): ReportSection {
  const periods = months(3);
  const jan = {
    name: '2025-01',
    component: '2025-01',
    data_points: [
      { time: '2025-01-01', column: 'initial' as const, value: 100_000, amount: 100_000, count: 4 },
      { time: '2025-01-01', column: 0, value: 1.004, amount: 100_400, count: 4 },
      { time: '2025-02-01', column: 1, value: 0.755, amount: 75_500, count: 3 },
      { time: '2025-03-01', column: 2, value: 0.5, amount: 50_000, count: 2 },
    ],
  };
  const feb = {
    name: '2025-02',
    component: '2025-02',
    data_points: [
      { time: '2025-02-01', column: 'initial' as const, value: 50_000, amount: 50_000, count: 2 },
      { time: '2025-02-01', column: 0, value: 0.994, amount: 49_700, count: 2 },
      { time: '2025-03-01', column: 1, value: 0.333, amount: 16_650, count: 1 },
    ],
  };
  return mrrSection({
    id: 'sec_cohorts',
    definition_id: 'mrr_cohorts',
    title: 'MRR cohorts',
    data_type: 'cohort',
    unit: 'fraction',
    periods,
    segments: [segment('total', 'Total', [jan, feb])],
    key_number: null,
    ...overrides,
  });
}
