import type { Resolution } from '../periods';
import type { DataCategory } from '../../db/schema';
import type { DataType, KeyNumberKind, SegmenterType, UnderlyingData } from './types';

/**
 * The section catalogue (METRICS.md section 7): every chart a report can hold, what it
 * accepts, and the formula behind it in words a finance lead can check. The numbers come
 * from `computeSections` (computeSection.ts); this file only describes.
 */

export const DEFINITION_IDS = [
  'mrr',
  'arr',
  'mrr_movements',
  'net_new_mrr',
  'customers',
  'new_customers',
  'churned_customers',
  'reactivated_customers',
  'arpa',
  'customer_churn_rate',
  'gross_mrr_churn_rate',
  'net_mrr_churn_rate',
  'net_revenue_retention',
  'gross_revenue_retention',
  'ltv',
  'quick_ratio',
  'customer_cohorts',
  'mrr_cohorts',
  'one_time_revenue',
  'booked_revenue',
  'recognized_revenue',
  'usage_revenue',
  'units_sold',
  'free_customers',
  'free_to_paid',
  'costs',
  'cac',
  'deals',
] as const;
export type DefinitionId = (typeof DEFINITION_IDS)[number];

/** A full default report: the twenty subscription sections, MRR through booked revenue. */
export const DEFAULT_REPORT_DEFINITIONS: readonly DefinitionId[] = DEFINITION_IDS.slice(0, DEFINITION_IDS.indexOf('booked_revenue') + 1);

export interface SectionDefinition {
  id: DefinitionId;
  name: string;
  description: string;
  /** The formula, as METRICS.md states it. */
  formula: string;
  supported_data_types: readonly DataType[];
  default_data_type: DataType;
  supported_grouping_periods: readonly Resolution[];
  /** The first is the default. */
  data_categories: readonly DataCategory[];
  segmenter_types: readonly SegmenterType[];
  underlying_data: UnderlyingData;
  /** Digits shown: 0, or 2 where the section sets decimals. */
  decimals: 0 | 2;
  /** Kind of the key number in the default data category; null: the section has none (cohort tables). */
  key_number_kind: KeyNumberKind | null;
  default_call_to_action: string;
  segmenter_call_to_action: string;
  /** Available only when the account has CRM deals. */
  requires_deals: boolean;
}

const ALL_RESOLUTIONS: readonly Resolution[] = ['week', 'month', 'quarter', 'year'];
const CHARTS: readonly DataType[] = ['line_chart', 'bar_chart'];
const CUSTOMER_LEVEL: readonly SegmenterType[] = ['total', 'customer_segment', 'subscription_segment'];
const PER_CUSTOMER: readonly SegmenterType[] = ['total', 'customer_segment'];
const MONEY_FLOW: readonly DataCategory[] = ['values', 'counts', 'month_over_month_growth', 'moving_average3'];
const RATE: readonly DataCategory[] = ['values', 'moving_average3'];

type Entry = Omit<SectionDefinition, 'requires_deals' | 'supported_grouping_periods' | 'decimals' | 'default_data_type'> &
  Partial<Pick<SectionDefinition, 'requires_deals' | 'supported_grouping_periods' | 'decimals' | 'default_data_type'>>;

const ENTRIES: readonly Entry[] = [
  {
    id: 'mrr',
    name: 'MRR',
    description: 'Monthly recurring revenue at the end of each period.',
    formula: "Sum of every paying customer's MRR at the period's last day (today for the current period). Counts: paying customers. Units: quantities of the items that carry MRR.",
    supported_data_types: ['line_chart', 'bar_chart', 'stacked_bar_chart'],
    data_categories: ['values', 'counts', 'units', 'month_over_month_growth', 'month_over_month_retention', 'moving_average3'],
    segmenter_types: CUSTOMER_LEVEL,
    underlying_data: 'subscriptions',
    key_number_kind: 'currency',
    default_call_to_action: 'See how your recurring revenue grows',
    segmenter_call_to_action: 'See which segments your recurring revenue comes from',
  },
  {
    id: 'arr',
    name: 'ARR',
    description: 'Annual run rate: MRR x 12.',
    formula: 'MRR at the end of the period x 12.',
    supported_data_types: ['line_chart', 'bar_chart', 'stacked_bar_chart'],
    data_categories: ['values', 'counts', 'month_over_month_growth', 'month_over_month_retention', 'moving_average3'],
    segmenter_types: CUSTOMER_LEVEL,
    underlying_data: 'subscriptions',
    key_number_kind: 'currency',
    default_call_to_action: 'See your annual run rate',
    segmenter_call_to_action: 'See your annual run rate by segment',
  },
  {
    id: 'mrr_movements',
    name: 'MRR movements',
    description: 'What changed MRR in each period: new business, expansion, reactivation, contraction, churn and exchange rates.',
    formula:
      'Per customer, MRR at the end of the period against the end of the period before: new business, expansion, reactivation (positive), contraction and churn (negative), FX adjustment, and their net. New + expansion + reactivation - contraction - churn + FX = MRR(p) - MRR(p-1).',
    supported_data_types: ['stacked_bar_chart', 'bar_chart', 'line_chart'],
    data_categories: ['values', 'counts'],
    segmenter_types: CUSTOMER_LEVEL,
    underlying_data: 'subscriptions',
    key_number_kind: 'currency',
    default_call_to_action: 'See what moves your MRR',
    segmenter_call_to_action: 'See what moves your MRR in each segment',
  },
  {
    id: 'net_new_mrr',
    name: 'Net new MRR',
    description: 'The net change of MRR in each period.',
    formula: 'New business + expansion + reactivation - contraction - churn + FX adjustment = MRR(p) - MRR(p-1). Counts: new + reactivated - churned customers.',
    supported_data_types: CHARTS,
    data_categories: ['values', 'counts', 'moving_average3'],
    segmenter_types: CUSTOMER_LEVEL,
    underlying_data: 'subscriptions',
    key_number_kind: 'currency',
    default_call_to_action: 'See how much MRR you add each period',
    segmenter_call_to_action: 'See the net MRR change by segment',
  },
  {
    id: 'customers',
    name: 'Customers',
    description: 'Paying customers at the end of each period.',
    formula: 'Customers (top-most parents with use hierarchy) with MRR > 0 at the end of the period.',
    supported_data_types: ['line_chart', 'bar_chart', 'stacked_bar_chart'],
    data_categories: ['counts', 'month_over_month_growth', 'month_over_month_retention', 'moving_average3'],
    segmenter_types: CUSTOMER_LEVEL,
    underlying_data: 'subscriptions',
    key_number_kind: 'other',
    default_call_to_action: 'See how many customers pay you',
    segmenter_call_to_action: 'See your paying customers by segment',
  },
  {
    id: 'new_customers',
    name: 'New customers',
    description: 'Customers paying for the first time, and their new MRR.',
    formula: 'Customers with MRR 0 at the end of p-1, MRR > 0 at the end of p, never paying at an earlier period end. Values: their new business MRR.',
    supported_data_types: CHARTS,
    data_categories: ['counts', 'values', 'month_over_month_growth', 'moving_average3'],
    segmenter_types: CUSTOMER_LEVEL,
    underlying_data: 'subscriptions',
    key_number_kind: 'other',
    default_call_to_action: 'See how many new customers you win',
    segmenter_call_to_action: 'See where your new customers come from',
  },
  {
    id: 'churned_customers',
    name: 'Churned customers',
    description: 'Customers who stopped paying, and the MRR they took with them.',
    formula: 'Customers with MRR > 0 at the end of p-1 and 0 at the end of p. Values: their MRR at the end of p-1.',
    supported_data_types: CHARTS,
    data_categories: ['counts', 'values', 'month_over_month_growth', 'moving_average3'],
    segmenter_types: CUSTOMER_LEVEL,
    underlying_data: 'subscriptions',
    key_number_kind: 'other',
    default_call_to_action: 'See how many customers you lose',
    segmenter_call_to_action: 'See which segments churn',
  },
  {
    id: 'reactivated_customers',
    name: 'Reactivated customers',
    description: 'Former customers who pay again.',
    formula: 'Customers with MRR 0 at the end of p-1, MRR > 0 at the end of p, and MRR > 0 at some earlier period end. Values: their MRR at the end of p.',
    supported_data_types: CHARTS,
    data_categories: ['counts', 'values', 'month_over_month_growth', 'moving_average3'],
    segmenter_types: CUSTOMER_LEVEL,
    underlying_data: 'subscriptions',
    key_number_kind: 'other',
    default_call_to_action: 'See how many customers come back',
    segmenter_call_to_action: 'See which segments come back',
  },
  {
    id: 'arpa',
    name: 'ARPA',
    description: 'Average revenue per account.',
    formula: 'MRR at the end of p / paying customers at the end of p.',
    supported_data_types: CHARTS,
    data_categories: ['values', 'month_over_month_growth', 'moving_average3'],
    segmenter_types: CUSTOMER_LEVEL,
    underlying_data: 'subscriptions',
    key_number_kind: 'currency',
    decimals: 2,
    default_call_to_action: 'See how much an average customer pays',
    segmenter_call_to_action: 'Compare the average customer across segments',
  },
  {
    id: 'customer_churn_rate',
    name: 'Customer churn rate',
    description: 'Share of paying customers lost in the period (logo churn).',
    formula: 'Churned customers in p / paying customers at the end of p-1.',
    supported_data_types: CHARTS,
    data_categories: RATE,
    segmenter_types: CUSTOMER_LEVEL,
    underlying_data: 'subscriptions',
    key_number_kind: 'percent',
    decimals: 2,
    default_call_to_action: 'See how many of your customers leave',
    segmenter_call_to_action: 'Compare customer churn across segments',
  },
  {
    id: 'gross_mrr_churn_rate',
    name: 'Gross MRR churn rate',
    description: 'Share of MRR lost to churn and contraction.',
    formula: '(Churn + contraction in p) / MRR at the end of p-1.',
    supported_data_types: CHARTS,
    data_categories: RATE,
    segmenter_types: CUSTOMER_LEVEL,
    underlying_data: 'subscriptions',
    key_number_kind: 'percent',
    decimals: 2,
    default_call_to_action: 'See how much revenue you lose',
    segmenter_call_to_action: 'Compare revenue churn across segments',
  },
  {
    id: 'net_mrr_churn_rate',
    name: 'Net MRR churn rate',
    description: 'MRR lost net of expansion and reactivation; negative when existing customers grow.',
    formula: '(Churn + contraction - expansion - reactivation in p) / MRR at the end of p-1. FX adjustment is not churn.',
    supported_data_types: CHARTS,
    data_categories: RATE,
    segmenter_types: CUSTOMER_LEVEL,
    underlying_data: 'subscriptions',
    key_number_kind: 'percent',
    decimals: 2,
    default_call_to_action: 'See whether your customers grow faster than they leave',
    segmenter_call_to_action: 'Compare net revenue churn across segments',
  },
  {
    id: 'net_revenue_retention',
    name: 'Net revenue retention',
    description: 'Trailing 12 months: how much of the MRR of a year ago the same customers pay now.',
    formula: 'Sum of MRR now of the customers paying 12 months before / their MRR then.',
    supported_data_types: CHARTS,
    data_categories: RATE,
    segmenter_types: PER_CUSTOMER,
    underlying_data: 'subscriptions',
    key_number_kind: 'percent',
    decimals: 2,
    default_call_to_action: 'See how your customers of a year ago grew',
    segmenter_call_to_action: 'Compare net revenue retention across segments',
  },
  {
    id: 'gross_revenue_retention',
    name: 'Gross revenue retention',
    description: 'Trailing 12 months: the MRR of a year ago that is kept, expansion left out.',
    formula: 'Sum over the customers paying 12 months before of min(MRR now, MRR then) / their MRR then.',
    supported_data_types: CHARTS,
    data_categories: RATE,
    segmenter_types: PER_CUSTOMER,
    underlying_data: 'subscriptions',
    key_number_kind: 'percent',
    decimals: 2,
    default_call_to_action: 'See how much revenue you keep',
    segmenter_call_to_action: 'Compare gross revenue retention across segments',
  },
  {
    id: 'ltv',
    name: 'LTV',
    description: 'Customer lifetime value.',
    formula: 'ARPA at the end of p / mean customer churn rate of the 6 periods before p; empty when that mean is 0.',
    supported_data_types: CHARTS,
    data_categories: RATE,
    segmenter_types: CUSTOMER_LEVEL,
    underlying_data: 'subscriptions',
    key_number_kind: 'currency',
    default_call_to_action: 'See what a customer is worth',
    segmenter_call_to_action: 'Compare customer lifetime value across segments',
  },
  {
    id: 'quick_ratio',
    name: 'Quick ratio',
    description: 'MRR won for every unit of MRR lost.',
    formula: '(New business + expansion + reactivation) / (contraction + churn); empty when nothing was lost.',
    supported_data_types: CHARTS,
    data_categories: RATE,
    segmenter_types: CUSTOMER_LEVEL,
    underlying_data: 'subscriptions',
    key_number_kind: 'other',
    decimals: 2,
    default_call_to_action: 'See how efficiently you grow',
    segmenter_call_to_action: 'Compare growth efficiency across segments',
  },
  {
    id: 'customer_cohorts',
    name: 'Customer cohorts',
    description: 'Of the customers who started paying in a period, the share still paying later.',
    formula: "Cohort = the period of a customer's first MRR at a period end. 'initial' = the cohort's customers; column k = share of them paying at the end of period cohort + k.",
    supported_data_types: ['cohort'],
    supported_grouping_periods: ['month', 'quarter', 'year'],
    data_categories: ['counts'],
    segmenter_types: PER_CUSTOMER,
    underlying_data: 'subscriptions',
    key_number_kind: null,
    default_call_to_action: 'See how long your customers stay',
    segmenter_call_to_action: 'Compare customer retention of cohorts across segments',
  },
  {
    id: 'mrr_cohorts',
    name: 'MRR cohorts',
    description: 'Of the MRR a cohort started with, how much it pays later; above 100 % when it expands.',
    formula:
      "Cohort = the period of a customer's first MRR at a period end. 'initial' = the cohort's new MRR on the day each customer started paying; 'month 0' = its MRR at the cohort period's last day; column k = its MRR at the end of period cohort + k, relative to 'initial' (can exceed 100 %).",
    supported_data_types: ['cohort'],
    supported_grouping_periods: ['month', 'quarter', 'year'],
    data_categories: ['values'],
    segmenter_types: PER_CUSTOMER,
    underlying_data: 'subscriptions',
    key_number_kind: null,
    default_call_to_action: 'See how the revenue of your cohorts develops',
    segmenter_call_to_action: 'Compare revenue retention of cohorts across segments',
  },
  {
    id: 'one_time_revenue',
    name: 'One-time revenue',
    description: 'Setup fees and other one-time items.',
    formula: 'Sum of the totals of one_time items of payments starting in the period.',
    supported_data_types: ['bar_chart', 'line_chart', 'stacked_bar_chart'],
    default_data_type: 'bar_chart',
    data_categories: ['values', 'counts', 'units', 'month_over_month_growth', 'moving_average3'],
    segmenter_types: CUSTOMER_LEVEL,
    underlying_data: 'subscriptions',
    key_number_kind: 'currency',
    default_call_to_action: 'See your one-time revenue',
    segmenter_call_to_action: 'See your one-time revenue by segment',
  },
  {
    id: 'booked_revenue',
    name: 'Booked revenue',
    description: 'Total contract value booked.',
    formula: 'Sum of the totals of payments starting in the period (every item type, before discounts).',
    supported_data_types: ['bar_chart', 'line_chart', 'stacked_bar_chart'],
    default_data_type: 'bar_chart',
    data_categories: ['values', 'counts', 'units', 'month_over_month_growth', 'moving_average3'],
    segmenter_types: CUSTOMER_LEVEL,
    underlying_data: 'subscriptions',
    key_number_kind: 'currency',
    default_call_to_action: 'See how much you book',
    segmenter_call_to_action: 'See your bookings by segment',
  },
  {
    id: 'recognized_revenue',
    name: 'Recognized revenue',
    description: 'Revenue earned in the period.',
    formula:
      'Recurring item totals spread day by day over the days their payment covers (metered too when the account counts it in MRR), plus one-time item totals on their start day; the current period up to today.',
    supported_data_types: ['bar_chart', 'line_chart', 'stacked_bar_chart'],
    default_data_type: 'bar_chart',
    data_categories: MONEY_FLOW,
    segmenter_types: CUSTOMER_LEVEL,
    underlying_data: 'subscriptions',
    key_number_kind: 'currency',
    default_call_to_action: 'See the revenue you earned',
    segmenter_call_to_action: 'See your earned revenue by segment',
  },
  {
    id: 'usage_revenue',
    name: 'Usage revenue',
    description: 'Metered (usage-based) revenue.',
    formula: 'Metered item totals spread day by day over the days their payment covers; the current period up to today.',
    supported_data_types: ['bar_chart', 'line_chart', 'stacked_bar_chart'],
    default_data_type: 'bar_chart',
    data_categories: ['values', 'counts', 'units', 'month_over_month_growth', 'moving_average3'],
    segmenter_types: CUSTOMER_LEVEL,
    underlying_data: 'subscriptions',
    key_number_kind: 'currency',
    default_call_to_action: 'See your usage revenue',
    segmenter_call_to_action: 'See your usage revenue by segment',
  },
  {
    id: 'units_sold',
    name: 'Units sold',
    description: 'Item quantities sold.',
    formula: 'Sum of the item quantities of payments starting in the period.',
    supported_data_types: ['bar_chart', 'line_chart', 'stacked_bar_chart'],
    default_data_type: 'bar_chart',
    data_categories: ['units', 'counts', 'month_over_month_growth', 'moving_average3'],
    segmenter_types: CUSTOMER_LEVEL,
    underlying_data: 'subscriptions',
    key_number_kind: 'other',
    default_call_to_action: 'See how many units you sell',
    segmenter_call_to_action: 'See your units sold by segment',
  },
  {
    id: 'free_customers',
    name: 'Free customers',
    description: 'Customers on a free plan.',
    formula: 'Customers with a freemium item covering the end of the period and MRR 0 then.',
    supported_data_types: CHARTS,
    data_categories: ['counts', 'month_over_month_growth', 'moving_average3'],
    segmenter_types: PER_CUSTOMER,
    underlying_data: 'subscriptions',
    key_number_kind: 'other',
    default_call_to_action: 'See how many customers use your free plan',
    segmenter_call_to_action: 'See your free customers by segment',
  },
  {
    id: 'free_to_paid',
    name: 'Free to paid',
    description: 'New paying customers who started on a free plan.',
    formula: 'New customers of the period whose first freemium item started before the paid run that made them new. Values: their new MRR.',
    supported_data_types: CHARTS,
    data_categories: ['counts', 'values', 'month_over_month_growth', 'moving_average3'],
    segmenter_types: PER_CUSTOMER,
    underlying_data: 'subscriptions',
    key_number_kind: 'other',
    default_call_to_action: 'See how many free customers start paying',
    segmenter_call_to_action: 'See free-to-paid conversions by segment',
  },
  {
    id: 'costs',
    name: 'Costs',
    description: 'Costs by their date.',
    formula: 'Sum of cost values dated in the period, each converted at the rate of its date.',
    supported_data_types: ['bar_chart', 'line_chart', 'stacked_bar_chart'],
    default_data_type: 'bar_chart',
    data_categories: MONEY_FLOW,
    segmenter_types: ['total', 'cost_segment'],
    underlying_data: 'costs',
    key_number_kind: 'currency',
    default_call_to_action: 'See what you spend',
    segmenter_call_to_action: 'See your costs by category',
  },
  {
    id: 'cac',
    name: 'CAC',
    description: 'Customer acquisition cost.',
    formula: 'Costs dated in the period (with a cost segmenter: of that cost segment) / new customers of the period.',
    supported_data_types: CHARTS,
    data_categories: RATE,
    segmenter_types: ['total', 'cost_segment'],
    underlying_data: 'costs',
    key_number_kind: 'currency',
    default_call_to_action: 'See what a new customer costs you',
    segmenter_call_to_action: 'See acquisition cost by cost category',
  },
  {
    id: 'deals',
    name: 'Deals',
    description: 'CRM pipeline: deal value by stage.',
    formula: 'Sum of the values of deals by their current stage, in the period they entered it.',
    supported_data_types: ['stacked_bar_chart', 'bar_chart'],
    data_categories: ['values', 'counts'],
    segmenter_types: ['total'],
    underlying_data: 'deals',
    key_number_kind: 'currency',
    requires_deals: true,
    default_call_to_action: 'See your sales pipeline',
    segmenter_call_to_action: 'See your sales pipeline by stage',
  },
];

export const CATALOGUE: readonly SectionDefinition[] = ENTRIES.map((entry) => ({
  ...entry,
  requires_deals: entry.requires_deals ?? false,
  supported_grouping_periods: entry.supported_grouping_periods ?? ALL_RESOLUTIONS,
  decimals: entry.decimals ?? 0,
  default_data_type: entry.default_data_type ?? (entry.supported_data_types[0] as DataType),
}));

const BY_ID = new Map<string, SectionDefinition>(CATALOGUE.map((definition) => [definition.id, definition]));

export function findDefinition(id: string): SectionDefinition | undefined {
  return BY_ID.get(id);
}

/** The unit and key-number kind of a definition's numbers in a data category. */
export function categoryKind(definition: SectionDefinition, category: DataCategory): KeyNumberKind {
  if (category === 'month_over_month_growth' || category === 'month_over_month_retention') return 'percent';
  if (category === 'counts' || category === 'units') return 'other';
  return definition.key_number_kind ?? 'other';
}
