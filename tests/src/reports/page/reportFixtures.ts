import type { ReportView } from '../../../../src/reports/page/reportApi';
import { mrrSection } from '../charts/sectionFixtures';

/** A report as `GET by_secret` answers it: 'Board, March' over Apr 2025 – Mar 2026, one MRR section, editable. */
export function reportView(overrides: Partial<ReportView> = {}): ReportView {
  return {
    id: 'rep1',
    secret: 'S'.repeat(32),
    account_id: 'acc1',
    title: 'Board, March',
    summary: 'Growth is back.',
    tags: ['board'],
    owner: { name: 'Ada Owner' },
    period: { start_year: 2025, start_month: 4, end_year: 2026, end_month: 3 },
    created_at: '2026-03-01T09:00:00.000Z',
    refreshed_at: '2026-03-02T08:00:00.000Z',
    recalculation_status: 'recalculated',
    freshness_status: 'fresh',
    can_edit: true,
    currency: 'USD',
    settings: { repeatable: true, auto_refresh: true, display_quarters: false, subtract_forever_discount_from_mrr: true, subtract_finite_discount_from_mrr: true, currency: null },
    filter: null,
    filtered_segmenter_name: null,
    filtered_segment_value: null,
    sections: [mrrSection({ id: 'sec-mrr', title: 'MRR' }) as ReportView['sections'][number]],
    ...overrides,
  };
}
