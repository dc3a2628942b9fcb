import { DEMO_CUSTOMER_SEGMENTS, type DemoBusiness } from '../../server/demo/generate';
import type { CustomSectionConfig, CustomSeries } from '../../models/customSections';
import { findCustomValue, USER_FILTERED_DEFINITION_ID } from '../../models/customSections';
import type { SectionRequest, SectionResult } from '../../server/metrics/definitions/types';
import type { DuckMetrics, DuckMrrRequest, DuckMrrResult, DuckSeries } from './duckdbMetrics';
import { PAYMENT_ATTRIBUTE_ID, segmentId } from './demoSnapshot';

/**
 * The custom-section part of `npm run bench:metrics`: a report of ten custom sections, each
 * grouped by a customer attribute (the generated business's country, plan, industry or company
 * size; plan changes over time) with three series filtered by the payments' channel (a payment
 * attribute), computed by the engine as the report computes them, and by DuckDB in SQL, one
 * statement per section: the section's filter and split, all movement classes at once.
 * The results are compared series by series, group by group, month by month, to the cent.
 */

/** The payment attribute the sections filter by, as DuckDB loads it. */
export const CHANNEL = 'channel';
const CHANNELS = ['Self-serve', 'Sales'] as const;

type SeriesValue = 'mrr' | 'new_business_mrr' | 'expansion_mrr' | 'reactivation_mrr' | 'contraction_mrr' | 'churned_mrr' | 'count' | 'new' | 'churned' | 'reactivated';

interface SeriesSpec {
  object: 'payments' | 'customers';
  attribute: SeriesValue;
  /** The DuckDB series field it reads, and the sign the report shows it with (losses negative). */
  field: keyof DuckSeries;
  sign: 1 | -1;
}

const SERIES: Record<string, SeriesSpec> = {
  mrr: { object: 'payments', attribute: 'mrr', field: 'mrr', sign: 1 },
  new_business: { object: 'payments', attribute: 'new_business_mrr', field: 'newBusiness', sign: 1 },
  expansion: { object: 'payments', attribute: 'expansion_mrr', field: 'expansion', sign: 1 },
  reactivation: { object: 'payments', attribute: 'reactivation_mrr', field: 'reactivation', sign: 1 },
  contraction: { object: 'payments', attribute: 'contraction_mrr', field: 'contraction', sign: -1 },
  churn: { object: 'payments', attribute: 'churned_mrr', field: 'churn', sign: -1 },
  customers: { object: 'customers', attribute: 'count', field: 'customers', sign: 1 },
  new_customers: { object: 'customers', attribute: 'new', field: 'newCustomers', sign: 1 },
  churned_customers: { object: 'customers', attribute: 'churned', field: 'churnedCustomers', sign: 1 },
  reactivated_customers: { object: 'customers', attribute: 'reactivated', field: 'reactivatedCustomers', sign: 1 },
};

const TRIPLETS: readonly (readonly (keyof typeof SERIES)[])[] = [
  ['mrr', 'new_business', 'churn'],
  ['customers', 'expansion', 'contraction'],
  ['mrr', 'reactivation', 'new_customers'],
  ['churned_customers', 'churn', 'reactivated_customers'],
];

export interface CustomSectionSpec {
  /** The customer attribute (demo segment key) the section is grouped by. */
  segment: string;
  /** The channels its series keep (one: `eq`; both: `in`). */
  channels: readonly string[];
  series: readonly (keyof typeof SERIES)[];
}

/** Ten sections, no two with the same split and filter (each one engine pass and one DuckDB statement). */
export const CUSTOM_SECTIONS: readonly CustomSectionSpec[] = (() => {
  const sections: CustomSectionSpec[] = [];
  const keys = DEMO_CUSTOMER_SEGMENTS.map((segment) => segment.key);
  for (const channel of CHANNELS) for (const key of keys) sections.push({ segment: key, channels: [channel], series: TRIPLETS[sections.length % TRIPLETS.length] as (keyof typeof SERIES)[] });
  for (const key of keys.slice(0, 2)) sections.push({ segment: key, channels: CHANNELS, series: TRIPLETS[sections.length % TRIPLETS.length] as (keyof typeof SERIES)[] });
  return sections;
})();

function seriesConfig(spec: CustomSectionSpec, name: keyof typeof SERIES): CustomSeries {
  const series = SERIES[name] as SeriesSpec;
  const value = findCustomValue(series.object, series.attribute);
  if (!value) throw new Error(`no custom value ${series.object}.${series.attribute}`);
  return {
    name: value.label,
    value: { object: series.object, attribute: series.attribute, label: value.label, arguments: {} },
    groups: [],
    filters: [
      {
        type: 'filter',
        object: 'payment',
        field: 'attribute',
        field_id: PAYMENT_ATTRIBUTE_ID,
        operator: spec.channels.length === 1 ? 'eq' : 'in',
        value: spec.channels.length === 1 ? (spec.channels[0] as string) : [...spec.channels],
      },
    ],
    reference: null,
    hidden: false,
  };
}

export function customConfig(spec: CustomSectionSpec): CustomSectionConfig {
  return {
    groups: [{ type: 'group', object: 'customer', field: 'segment', field_id: segmentId(spec.segment) }],
    series: spec.series.map((name) => seriesConfig(spec, name)),
  };
}

/** The report's custom sections, monthly over the range [from, to] ('YYYY-MM'). */
export function customRequests(from: string, to: string, today: string): SectionRequest[] {
  const [startYear, startMonth] = from.split('-').map(Number) as [number, number];
  const [endYear, endMonth] = to.split('-').map(Number) as [number, number];
  return CUSTOM_SECTIONS.map((spec) => ({
    definition_id: USER_FILTERED_DEFINITION_ID,
    range: { start_year: startYear, start_month: startMonth, end_year: endYear, end_month: endMonth },
    resolution: 'month',
    today,
    custom: customConfig(spec),
  }));
}

/** Each section's statement for DuckDB: its channel filter and its customer-attribute split. */
export function duckCustomRequests(base: Omit<DuckMrrRequest, 'filter' | 'split'>): DuckMrrRequest[] {
  return CUSTOM_SECTIONS.map((spec) => ({
    ...base,
    filter: { operator: 'and', criteria: [{ kind: 'payment_attribute', attribute: CHANNEL, values: spec.channels }] },
    split: { kind: 'customer_segment', segment: spec.segment },
  }));
}

/** Loads what the sections filter and split by into DuckDB (after `load`): the customer attributes and the payments' channel. */
export async function loadCustomInputs(duck: DuckMetrics, business: Pick<DemoBusiness, 'segmentValues' | 'payments'>): Promise<void> {
  await duck.loadCustomerSegments(DEMO_CUSTOMER_SEGMENTS, business.segmentValues);
  await duck.loadPaymentAttribute(
    CHANNEL,
    business.payments.map((p) => ({ payment_id: p.id, value: p.channel })),
  );
}

/**
 * The plain numbers of the ten sections: for every section, series and group ('Total' for the
 * total), its points month by month; a point without a value is null.
 */
export type CustomDigest = Map<string, (number | null)[]>;

const key = (section: number, series: number, group: string) => `section ${section + 1} series ${series + 1} ${group}`;

export function engineCustomDigest(results: readonly SectionResult[]): CustomDigest {
  const digest: CustomDigest = new Map();
  results.forEach((result, section) => {
    for (const segment of result.segments) {
      for (const series of segment.series) {
        const k = Number(/^series:(\d+)$/.exec(series.component ?? '')?.[1]);
        if (!Number.isInteger(k)) throw new Error(`section ${section + 1}: a series without its component: ${series.name}`);
        digest.set(
          key(section, k, segment.is_total ? 'Total' : (series.segment_value ?? series.name)),
          series.data_points.map((p) => p.value),
        );
      }
    }
  });
  return digest;
}

export function duckCustomDigest(results: readonly DuckMrrResult[]): CustomDigest {
  const digest: CustomDigest = new Map();
  results.forEach((result, section) => {
    const spec = CUSTOM_SECTIONS[section] as CustomSectionSpec;
    spec.series.forEach((name, k) => {
      const { field, sign } = SERIES[name] as SeriesSpec;
      const values = (series: DuckSeries) => series[field].map((v) => (v === 0 ? 0 : sign * v));
      digest.set(key(section, k, 'Total'), values(result.total));
      for (const [group, series] of result.groups) digest.set(key(section, k, group), values(series));
    });
  });
  return digest;
}

/** Readable differences (none: equal); a group one side lacks must be all zeros on the other. */
export function compareCustom(engine: CustomDigest, duck: CustomDigest, limit = 20): string[] {
  const differences: string[] = [];
  const keys = [...new Set([...engine.keys(), ...duck.keys()])].sort();
  for (const k of keys) {
    const a = engine.get(k);
    const b = duck.get(k);
    const length = Math.max(a?.length ?? 0, b?.length ?? 0);
    for (let i = 0; i < length; i++) {
      const x = a ? a[i] : 0;
      const y = b ? b[i] : 0;
      if (x !== y && differences.length < limit) differences.push(`${k} month ${i + 1}: engine ${String(x)}, duckdb ${String(y)}`);
    }
  }
  if (engine.size === 0 || duck.size === 0) differences.push(`no series: engine ${engine.size}, duckdb ${duck.size}`);
  return differences;
}
