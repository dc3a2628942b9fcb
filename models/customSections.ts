/**
 * Custom sections (`definition_id` 'user_filtered'): a chart of the account's own series. Client
 * (the section editor) and server (validation, the metrics engine) read these rules from here;
 * docs/custom-sections.md says what every value, argument, group and operator means.
 *
 * A custom section's `config` is `{groups, series}`:
 * - `series`: 1 to MAX_SERIES series, each a `value` (what is summed or counted: one of
 *   CUSTOM_VALUES, with its arguments), its own `groups` (splits: a customer attribute, a payment
 *   or cost attribute, the product, or a segmentation) and `filters` (criteria), a reference line
 *   and whether it is hidden;
 * - `groups`: splits that apply to every series (each series adds its own).
 */

export const USER_FILTERED_DEFINITION_ID = 'user_filtered';
/** A custom section's title until the user gives it one. */
export const CUSTOM_SECTION_TITLE = 'Custom section';

export const CUSTOM_OBJECTS = ['payments', 'customers', 'costs'] as const;
export type CustomObject = (typeof CUSTOM_OBJECTS)[number];

/** What a point of a series measures: money (minor units of the report currency), customers or costs counted, or item units. */
export type CustomValueUnit = 'money' | 'count' | 'units';

export interface CustomArgumentSpec {
  name: string;
  label: string;
  type: 'number';
  /** Inclusive bounds of a whole number. */
  min: number;
  max: number;
  default: number;
  description: string;
}

/** The value of each point shifted this many periods back: 12 at month resolution is the same month a year before. */
export const PERIODS_BACK: CustomArgumentSpec = {
  name: 'periods_back',
  label: 'Periods back',
  type: 'number',
  min: 0,
  max: 60,
  default: 0,
  description: 'Show each point’s value from this many periods earlier (12 months back: the same month a year before).',
};

export interface CustomValueSpec {
  object: CustomObject;
  attribute: string;
  label: string;
  unit: CustomValueUnit;
  arguments: readonly CustomArgumentSpec[];
}

const value = (object: CustomObject, attribute: string, label: string, unit: CustomValueUnit): CustomValueSpec => ({ object, attribute, label, unit, arguments: [PERIODS_BACK] });

/** Every value a series can show, in the order the editor lists them. */
export const CUSTOM_VALUES: readonly CustomValueSpec[] = [
  value('payments', 'mrr', 'MRR', 'money'),
  value('payments', 'arr', 'ARR', 'money'),
  value('payments', 'net_new_mrr', 'Net new MRR', 'money'),
  value('payments', 'new_business_mrr', 'New business MRR', 'money'),
  value('payments', 'expansion_mrr', 'Expansion MRR', 'money'),
  value('payments', 'reactivation_mrr', 'Reactivation MRR', 'money'),
  value('payments', 'contraction_mrr', 'Contraction MRR', 'money'),
  value('payments', 'churned_mrr', 'Churned MRR', 'money'),
  value('payments', 'booked_revenue', 'Booked revenue', 'money'),
  value('payments', 'recognized_revenue', 'Recognized revenue', 'money'),
  value('payments', 'one_time_revenue', 'One-time revenue', 'money'),
  value('payments', 'usage_revenue', 'Usage revenue', 'money'),
  value('payments', 'units_sold', 'Units sold', 'units'),
  value('customers', 'count', 'Paying customers', 'count'),
  value('customers', 'new', 'New customers', 'count'),
  value('customers', 'churned', 'Churned customers', 'count'),
  value('customers', 'reactivated', 'Reactivated customers', 'count'),
  value('customers', 'arpa', 'ARPA', 'money'),
  value('costs', 'value', 'Costs', 'money'),
  value('costs', 'count', 'Number of costs', 'count'),
];

export function findCustomValue(object: string, attribute: string): CustomValueSpec | undefined {
  return CUSTOM_VALUES.find((spec) => spec.object === object && spec.attribute === attribute);
}

// ------------------------------------------------------------------ groups and filters

/** What a group splits by, or a filter tests: the object it belongs to and its field. */
export const FILTER_OBJECTS = ['customer', 'payment', 'cost'] as const;
export type FilterObject = (typeof FILTER_OBJECTS)[number];

/**
 * The fields of each object:
 * - customer `segment` (field_id: the customer segment, i.e. a customer attribute),
 *   `segmentation` (field_id: a segmentation of a customer attribute), `deal_owner`;
 * - payment `product`, `item_type`, `currency`, `attribute` (field_id: a payment attribute),
 *   `segmentation` (field_id: a segmentation of a payment attribute or of products);
 * - cost `attribute` (field_id: a cost attribute); a cost segmentation splits costs but does not
 *   filter them.
 * A costs value takes cost fields only; payments and customers values take customer and payment
 * fields only.
 */
export const FILTER_FIELDS: Record<FilterObject, readonly string[]> = {
  customer: ['segment', 'segmentation', 'deal_owner'],
  payment: ['product', 'item_type', 'currency', 'attribute', 'segmentation'],
  cost: ['attribute'],
};
/** Fields that need a field_id. */
export const FIELDS_WITH_ID = new Set(['segment', 'attribute', 'segmentation']);
/** Fields a group can split by (a deal owner is a filter only). */
export const GROUP_FIELDS: Record<FilterObject, readonly string[]> = {
  customer: ['segment', 'segmentation'],
  payment: ['product', 'item_type', 'currency', 'attribute', 'segmentation'],
  cost: ['attribute', 'segmentation'],
};

/**
 * - `eq`: the field's value is `value` (a text);
 * - `in`: the field's value is one of `value` (a list of texts);
 * - `in_reporting_month`: the customer's value of a (time-sensitive) customer attribute in the
 *   report's reporting month (its last month, or the current one when that is later) is one of
 *   `value`, and that decides for every point: "customers who are on Pro now, over the year".
 *   `eq` and `in` on a customer attribute follow the value month by month instead, as report
 *   filters and segments do.
 */
export const FILTER_OPERATORS = ['eq', 'in', 'in_reporting_month'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];
export const OPERATOR_LABELS: Record<FilterOperator, string> = { eq: 'is', in: 'is one of', in_reporting_month: 'is, in the reporting month, one of' };

/** The operators a field takes. */
export function operatorsOf(object: FilterObject, field: string): readonly FilterOperator[] {
  return object === 'customer' && field === 'segment' ? FILTER_OPERATORS : ['eq', 'in'];
}

export interface CustomFilter {
  type: 'filter';
  object: FilterObject;
  field: string;
  field_id: string | null;
  operator: FilterOperator;
  value: string | string[];
}

export interface CustomGroup {
  type: 'group';
  object: FilterObject;
  field: string;
  field_id: string | null;
}

export interface CustomSeriesValue {
  object: CustomObject;
  attribute: string;
  label: string;
  arguments: Record<string, number>;
}

export interface CustomSeries {
  name: string;
  value: CustomSeriesValue;
  groups: CustomGroup[];
  filters: CustomFilter[];
  /** A horizontal line at this value (in the series' unit: major units for money); null for none. */
  reference: number | null;
  hidden: boolean;
}

export interface CustomSectionConfig {
  groups: CustomGroup[];
  series: CustomSeries[];
}

export const MAX_SERIES = 10;
export const MAX_GROUPS = 3;
export const MAX_FILTERS = 20;
export const MAX_SERIES_NAME_LENGTH = 100;
export const MAX_FILTER_VALUES = 100;
export const MAX_FILTER_VALUE_LENGTH = 255;

/**
 * What a custom section's chart settings offer (its series decide their own units, so its data
 * category is its values as they are): line and bar charts at any resolution.
 */
export const CUSTOM_SECTION_CHOICES = {
  supported_data_types: ['line_chart', 'bar_chart', 'stacked_bar_chart'],
  supported_grouping_periods: ['week', 'month', 'quarter', 'year'],
  data_categories: ['values'],
} as const satisfies Record<string, readonly string[]>;

export const SERIES_NAME_REQUIRED = 'Name is required';
export const ARGUMENT_REQUIRED = 'Required';
export const ARGUMENT_NOT_NUMBER = 'Value must be a number';
export const FILTER_FIELD_REQUIRED = 'Required';
export const FILTER_VALUE_REQUIRED = 'Required';
export const SERIES_REQUIRED = 'Add at least one series';
export const CONFIG_UNREADABLE = 'Something went wrong and we could not parse configuration of this section. Please get in touch.';
export const POSSIBLE_VALUES_FAILURE = 'Could not get possible values';
export const CUSTOM_CONFIG_FAILURE = 'Could not get the values and filters a section can use';
export const CUSTOM_SAVE_FAILURE = 'We could not save this section, please try again';
export const SERIES_NAME_TOO_LONG = `At most ${MAX_SERIES_NAME_LENGTH} characters allowed`;
export const TOO_MANY_SERIES = `At most ${MAX_SERIES} series`;
export const TOO_MANY_GROUPS = `At most ${MAX_GROUPS} groups`;
export const TOO_MANY_FILTERS = `At most ${MAX_FILTERS} filters`;
export const UNKNOWN_VALUE = 'Choose a value from the list';
export const UNKNOWN_FIELD = 'Choose a field from the list';
export const UNKNOWN_OPERATOR = 'Choose an operator from the list';
export const COST_FIELDS_ONLY = 'Costs can only be grouped or filtered by cost fields';
export const NO_COST_FIELDS = 'Payments and customers cannot be grouped or filtered by cost fields';
export const ARGUMENT_OUT_OF_RANGE = (spec: CustomArgumentSpec) => `Value must be a whole number from ${spec.min} to ${spec.max}`;

/** One failure: a JSON pointer into the config ('/series/0/name') and its message. */
export interface ConfigProblem {
  pointer: string;
  detail: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === 'string';

/** An argument as typed ('12', ' 3 ') or stored (12): the number, or the problem. */
export function argumentNumber(spec: CustomArgumentSpec, raw: unknown): { value: number } | { problem: string } {
  if (raw === undefined || raw === null || (isText(raw) && raw.trim() === '')) return { problem: ARGUMENT_REQUIRED };
  const number = typeof raw === 'number' ? raw : isText(raw) && /^-?\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!Number.isFinite(number)) return { problem: ARGUMENT_NOT_NUMBER };
  if (!Number.isInteger(number) || number < spec.min || number > spec.max) return { problem: ARGUMENT_OUT_OF_RANGE(spec) };
  return { value: number };
}

function checkField(item: Record<string, unknown>, pointer: string, fields: Record<FilterObject, readonly string[]>, problems: ConfigProblem[]): void {
  const object = item.object;
  const field = item.field;
  if (!isText(object) || !(FILTER_OBJECTS as readonly string[]).includes(object) || !isText(field) || field.trim() === '') {
    problems.push({ pointer: `${pointer}/field`, detail: FILTER_FIELD_REQUIRED });
    return;
  }
  if (!fields[object as FilterObject].includes(field)) {
    problems.push({ pointer: `${pointer}/field`, detail: UNKNOWN_FIELD });
    return;
  }
  if (FIELDS_WITH_ID.has(field) && (!isText(item.field_id) || item.field_id.trim() === '')) problems.push({ pointer: `${pointer}/field`, detail: FILTER_FIELD_REQUIRED });
}

function checkGroups(groups: unknown, pointer: string, problems: ConfigProblem[]): void {
  if (groups === undefined) return;
  if (!Array.isArray(groups)) {
    problems.push({ pointer, detail: 'Groups must be a list' });
    return;
  }
  if (groups.length > MAX_GROUPS) problems.push({ pointer, detail: TOO_MANY_GROUPS });
  groups.slice(0, MAX_GROUPS).forEach((group, k) => {
    const at = `${pointer}/${k}`;
    if (!isRecord(group) || group.type !== 'group') {
      problems.push({ pointer: `${at}/field`, detail: FILTER_FIELD_REQUIRED });
      return;
    }
    checkField(group, at, GROUP_FIELDS, problems);
  });
}

function checkFilters(filters: unknown, pointer: string, problems: ConfigProblem[]): void {
  if (filters === undefined) return;
  if (!Array.isArray(filters)) {
    problems.push({ pointer, detail: 'Filters must be a list' });
    return;
  }
  if (filters.length > MAX_FILTERS) problems.push({ pointer, detail: TOO_MANY_FILTERS });
  filters.slice(0, MAX_FILTERS).forEach((filter, k) => {
    const at = `${pointer}/${k}`;
    if (!isRecord(filter) || filter.type !== 'filter') {
      problems.push({ pointer: `${at}/field`, detail: FILTER_FIELD_REQUIRED });
      return;
    }
    const before = problems.length;
    checkField(filter, at, FILTER_FIELDS, problems);
    if (problems.length === before) {
      const operators = operatorsOf(filter.object as FilterObject, filter.field as string);
      if (!isText(filter.operator) || !(operators as readonly string[]).includes(filter.operator)) problems.push({ pointer: `${at}/operator`, detail: UNKNOWN_OPERATOR });
    }
    const values = Array.isArray(filter.value) ? filter.value : [filter.value];
    const texts = values.filter((v): v is string => isText(v) && v.trim() !== '');
    if (texts.length === 0 || texts.length !== values.length) problems.push({ pointer: `${at}/value`, detail: FILTER_VALUE_REQUIRED });
    else if (values.length > MAX_FILTER_VALUES || texts.some((v) => v.length > MAX_FILTER_VALUE_LENGTH)) problems.push({ pointer: `${at}/value`, detail: `At most ${MAX_FILTER_VALUES} values of ${MAX_FILTER_VALUE_LENGTH} characters` });
  });
}

/**
 * Every problem of a config as typed or sent, each at its JSON pointer under the config
 * ('/series/0/value/arguments/periods_back'); empty when it can be saved.
 */
export function configProblems(config: unknown): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (config === undefined || config === null) return [{ pointer: '/series', detail: SERIES_REQUIRED }];
  if (!isRecord(config)) return [{ pointer: '', detail: CONFIG_UNREADABLE }];
  checkGroups(config.groups, '/groups', problems);
  const series = config.series;
  if (!Array.isArray(series) || series.length === 0) {
    problems.push({ pointer: '/series', detail: SERIES_REQUIRED });
    return problems;
  }
  if (series.length > MAX_SERIES) problems.push({ pointer: '/series', detail: TOO_MANY_SERIES });
  series.slice(0, MAX_SERIES).forEach((one, k) => {
    const at = `/series/${k}`;
    if (!isRecord(one)) {
      problems.push({ pointer: `${at}/name`, detail: SERIES_NAME_REQUIRED });
      return;
    }
    if (!isText(one.name) || one.name.trim() === '') problems.push({ pointer: `${at}/name`, detail: SERIES_NAME_REQUIRED });
    else if (one.name.trim().length > MAX_SERIES_NAME_LENGTH) problems.push({ pointer: `${at}/name`, detail: SERIES_NAME_TOO_LONG });
    const chosen = isRecord(one.value) ? one.value : null;
    const spec = chosen && isText(chosen.object) && isText(chosen.attribute) ? findCustomValue(chosen.object, chosen.attribute) : undefined;
    if (!chosen || !spec) problems.push({ pointer: `${at}/value`, detail: chosen && (chosen.object || chosen.attribute) ? UNKNOWN_VALUE : ARGUMENT_REQUIRED });
    else {
      const args = isRecord(chosen.arguments) ? chosen.arguments : {};
      for (const argument of spec.arguments) {
        const read = argumentNumber(argument, args[argument.name] ?? argument.default);
        if ('problem' in read) problems.push({ pointer: `${at}/value/arguments/${argument.name}`, detail: read.problem });
      }
    }
    checkGroups(one.groups, `${at}/groups`, problems);
    checkFilters(one.filters, `${at}/filters`, problems);
    if (spec) {
      // Each split and filter of the series (its own and the section's) must belong to what it counts.
      const costs = spec.object === 'costs';
      const mismatched = (items: unknown, pointer: string) => {
        if (!Array.isArray(items)) return;
        items.forEach((item, j) => {
          if (isRecord(item) && isText(item.object) && (item.object === 'cost') !== costs) problems.push({ pointer: `${pointer}/${j}/field`, detail: costs ? COST_FIELDS_ONLY : NO_COST_FIELDS });
        });
      };
      mismatched(one.groups, `${at}/groups`);
      mismatched(one.filters, `${at}/filters`);
      mismatched(config.groups, '/groups');
    }
    if (one.reference !== undefined && one.reference !== null && (typeof one.reference !== 'number' || !Number.isFinite(one.reference))) {
      problems.push({ pointer: `${at}/reference`, detail: ARGUMENT_NOT_NUMBER });
    }
    if (one.hidden !== undefined && typeof one.hidden !== 'boolean') problems.push({ pointer: `${at}/hidden`, detail: 'Must be true or false' });
  });
  if (Array.isArray(series) && problems.length === 0 && series.every((one) => isRecord(one) && one.hidden === true)) {
    problems.push({ pointer: '/series/0/hidden', detail: 'At least one series must be shown' });
  }
  return problems;
}

/**
 * A valid config as stored: texts trimmed, defaults filled in, a filter's value a text for `eq`
 * and a list otherwise. Call after configProblems found nothing.
 */
export function normalizedConfig(config: unknown): CustomSectionConfig {
  const raw = config as Record<string, unknown>;
  const group = (item: Record<string, unknown>): CustomGroup => ({
    type: 'group',
    object: item.object as FilterObject,
    field: (item.field as string).trim(),
    field_id: FIELDS_WITH_ID.has((item.field as string).trim()) ? (item.field_id as string).trim() : null,
  });
  const filter = (item: Record<string, unknown>): CustomFilter => {
    const values = (Array.isArray(item.value) ? item.value : [item.value]).map((v) => String(v).trim());
    const operator = item.operator as FilterOperator;
    return {
      type: 'filter',
      object: item.object as FilterObject,
      field: (item.field as string).trim(),
      field_id: FIELDS_WITH_ID.has((item.field as string).trim()) ? (item.field_id as string).trim() : null,
      operator,
      value: operator === 'eq' ? (values[0] as string) : [...new Set(values)],
    };
  };
  return {
    groups: ((raw.groups as Record<string, unknown>[] | undefined) ?? []).map(group),
    series: (raw.series as Record<string, unknown>[]).map((one) => {
      const chosen = one.value as Record<string, unknown>;
      const spec = findCustomValue(chosen.object as string, chosen.attribute as string) as CustomValueSpec;
      const args = (chosen.arguments as Record<string, unknown> | undefined) ?? {};
      return {
        name: (one.name as string).trim(),
        value: {
          object: spec.object,
          attribute: spec.attribute,
          label: spec.label,
          arguments: Object.fromEntries(spec.arguments.map((argument) => [argument.name, (argumentNumber(argument, args[argument.name] ?? argument.default) as { value: number }).value])),
        },
        groups: ((one.groups as Record<string, unknown>[] | undefined) ?? []).map(group),
        filters: ((one.filters as Record<string, unknown>[] | undefined) ?? []).map(filter),
        reference: typeof one.reference === 'number' ? one.reference : null,
        hidden: one.hidden === true,
      };
    }),
  };
}

/** A group's key: the same split named twice (by the section and a series) is one split. */
export const groupKey = (group: Pick<CustomGroup, 'object' | 'field' | 'field_id'>): string => `${group.object}:${group.field}:${group.field_id ?? ''}`;

/** A new series as the editor starts it: the account's MRR, no groups, no filters. */
export function newSeries(name = ''): CustomSeries {
  return { name, value: { object: 'payments', attribute: 'mrr', label: 'MRR', arguments: { periods_back: 0 } }, groups: [], filters: [], reference: null, hidden: false };
}
