import type { DefinitionId } from '../metrics/definitions/catalogue';

/**
 * The report library's templates (`GET /business_report/templates`): each one a list of
 * section definitions (server/metrics/definitions/catalogue.ts), in the order the report shows
 * them. The client names a new report by the date and the template's suffix.
 */
export interface ReportTemplate {
  id: string;
  name: string;
  description: string;
  /** A new report's default name is the date followed by this (models/constants.ts DEFAULT_REPORT_NAME_SUFFIXES). */
  name_suffix: string;
  definitions: DefinitionId[];
}

export const REPORT_TEMPLATES: readonly ReportTemplate[] = [
  {
    id: 'business_overview',
    name: 'Business overview',
    description: 'MRR and where it moved, customers won and lost, revenue per account and churn: the monthly board pack.',
    name_suffix: 'business overview',
    definitions: ['mrr', 'mrr_movements', 'net_new_mrr', 'customers', 'new_customers', 'churned_customers', 'arpa', 'customer_churn_rate', 'net_mrr_churn_rate', 'one_time_revenue'],
  },
  {
    id: 'customer_success_overview',
    name: 'Customer success overview',
    description: 'Who stays, who leaves and who comes back: churn and retention by customers and by revenue, with cohorts.',
    name_suffix: 'customer success overview',
    definitions: ['customers', 'churned_customers', 'reactivated_customers', 'customer_churn_rate', 'gross_mrr_churn_rate', 'net_revenue_retention', 'gross_revenue_retention', 'customer_cohorts'],
  },
  {
    id: 'saas_metrics',
    name: 'SaaS metrics',
    description: 'The figures investors ask for: MRR, ARR, growth, ARPA, lifetime value, quick ratio, CAC and net revenue retention.',
    name_suffix: 'business report',
    definitions: ['mrr', 'arr', 'net_new_mrr', 'arpa', 'ltv', 'quick_ratio', 'cac', 'net_revenue_retention'],
  },
  {
    id: 'cohorts',
    name: 'Cohorts',
    description: 'Customer and MRR retention of each month’s new customers, with net and gross revenue retention.',
    name_suffix: 'business report',
    definitions: ['customer_cohorts', 'mrr_cohorts', 'net_revenue_retention', 'gross_revenue_retention'],
  },
];
