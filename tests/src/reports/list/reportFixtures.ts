import type { ReportListItem, ReportTemplate } from '../../../../src/reports/list/types';
import { defaultFakeApi } from '../../renderApp';
import type { FakeApi } from '../../support/fakeApi';

/** A report as GET /business_reports/latest answers it. */
export function apiReport(overrides: Partial<ReportListItem> & Pick<ReportListItem, 'id' | 'title'>): ReportListItem {
  return {
    secret: `secret_${overrides.id}`,
    summary: '',
    tags: [],
    owner: { name: 'Ada Lovelace' },
    period: { start_year: 2025, start_month: 4, end_year: 2026, end_month: 3 },
    created_at: '2026-03-01T00:00:00.000Z',
    refreshed_at: '2026-03-14T06:00:00.000Z',
    recalculation_status: 'recalculated',
    freshness_status: 'fresh',
    can_edit: true,
    ...overrides,
  };
}

export const boardPack = apiReport({
  id: 'rep_board',
  secret: 's3cr3t-board',
  title: 'March board pack',
  summary: 'MRR grew 4% on expansion; churn stayed under 2%.',
  tags: ['board', 'monthly'],
  owner: { name: 'Grace Hopper' },
});

export const churnReview = apiReport({
  id: 'rep_churn',
  title: 'Churn review',
  summary: 'Who left in Q1 and why.',
  tags: ['customer success'],
  period: { start_year: 2025, start_month: 1, end_year: 2025, end_month: 12 },
  owner: null,
  can_edit: false,
  freshness_status: 'stale',
});

export const investorUpdate = apiReport({
  id: 'rep_investors',
  title: 'Investor update',
  tags: ['board'],
  recalculation_status: 'recalculating',
});

export const templates: ReportTemplate[] = [
  {
    id: 'business_overview',
    name: 'Business overview',
    description: 'MRR and where it moved, customers won and lost.',
    name_suffix: 'business overview',
    definitions: ['mrr', 'mrr_movements', 'customers'],
  },
  {
    id: 'customer_success_overview',
    name: 'Customer success overview',
    description: 'Who stays, who leaves and who comes back.',
    name_suffix: 'customer success overview',
    definitions: ['churned_customers', 'customer_cohorts'],
  },
];

/** The default fake API (the signed-in user's calls) answering the reports list and the templates. */
export function reportsApi(items: ReportListItem[] = [boardPack, churnReview, investorUpdate]): FakeApi {
  const api = defaultFakeApi();
  api.on('GET /business_reports/latest', () => ({ status: 200, body: { items } }));
  api.on('GET /business_report/templates', () => ({ status: 200, body: { items: templates } }));
  return api;
}
