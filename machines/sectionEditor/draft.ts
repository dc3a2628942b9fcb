import { configProblems, findCustomValue, newSeries, normalizedConfig } from '../../models/customSections';
import type { ConfigProblem, CustomFilter, CustomGroup, CustomSectionConfig, CustomSeries, CustomValueSpec, FilterOperator } from '../../models/customSections';
import type { Draft, DraftEdit, DraftFilter, DraftGroup, DraftSeries, FieldRef, GroupOwner, SectionCatalogue } from './types';

/**
 * The form of the custom section editor as pure data: a draft made from a stored config (or a
 * new one), the edits the view sends, and the config the draft stands for: as typed (checked by
 * `configProblems`) and as sent (`normalizedConfig`). Every edit returns a new draft.
 */

/** The resolution of a new section's preview. */
export const DEFAULT_RESOLUTION = 'month';

const keyOf = (n: number) => `k${n}`;

/** The spec of a value: the catalogue's (what the server offers), else the shared list's. */
export function valueSpecOf(catalogue: SectionCatalogue | null, value: { object: string; attribute: string } | null): CustomValueSpec | undefined {
  if (!value) return undefined;
  return catalogue?.values.find((spec) => spec.object === value.object && spec.attribute === value.attribute) ?? findCustomValue(value.object, value.attribute);
}

/** The value's key in the value picker ('payments:mrr'). */
export const valueKey = (value: { object: string; attribute: string }): string => `${value.object}:${value.attribute}`;

/** A field's key in the field pickers ('customer:segment:seg_plan'). */
export const fieldKey = (field: { object: string | null; field: string; field_id: string | null }): string => `${field.object ?? ''}:${field.field}:${field.field_id ?? ''}`;

const numberText = (value: number | null): string => (value === null ? '' : String(value));

function groupToDraft(group: CustomGroup, key: string): DraftGroup {
  return { key, object: group.object, field: group.field, field_id: group.field_id };
}

function filterToDraft(filter: CustomFilter, key: string): DraftFilter {
  return { key, object: filter.object, field: filter.field, field_id: filter.field_id, operator: filter.operator, value: Array.isArray(filter.value) ? [...filter.value] : filter.value };
}

/** Hands out keys for everything a config holds, in order. */
function keyed(start: number) {
  let next = start;
  return { take: () => keyOf(next++), next: () => next };
}

function seriesToDraft(series: CustomSeries, keys: ReturnType<typeof keyed>): DraftSeries {
  return {
    key: keys.take(),
    name: series.name,
    value: { object: series.value.object, attribute: series.value.attribute },
    arguments: Object.fromEntries(Object.entries(series.value.arguments).map(([name, value]) => [name, String(value)])),
    groups: series.groups.map((group) => groupToDraft(group, keys.take())),
    filters: series.filters.map((filter) => filterToDraft(filter, keys.take())),
    reference: numberText(series.reference),
    hidden: series.hidden,
  };
}

/** A new series as the form adds it: MRR, named after its value. */
function addedSeries(keys: ReturnType<typeof keyed>): DraftSeries {
  const series = newSeries();
  return seriesToDraft({ ...series, name: series.value.label }, keys);
}

/** The form of a new section: one series (MRR, named 'MRR'), no groups. */
export function newDraft(): Draft {
  const keys = keyed(1);
  const series = addedSeries(keys);
  return { title: '', groups: [], series: [series], nextKey: keys.next() };
}

/** The form of a stored config (valid: `configProblems` found nothing in it). */
export function draftFromConfig(config: CustomSectionConfig, title = ''): Draft {
  const keys = keyed(1);
  const groups = config.groups.map((group) => groupToDraft(group, keys.take()));
  const series = config.series.map((one) => seriesToDraft(one, keys));
  return { title, groups, series, nextKey: keys.next() };
}

/** A stored config the editor can open: there, and without problems. */
export function readableConfig(config: unknown): CustomSectionConfig | null {
  if (config === undefined || config === null) return null;
  return configProblems(config).length === 0 ? normalizedConfig(config) : null;
}

// ------------------------------------------------------------------ the config a draft stands for

const REFERENCE_NUMBER = /^-?\d+(\.\d+)?$/;

/** A reference line as typed: none when blank, the number, or the text itself (which `configProblems` refuses). */
function referenceAsTyped(reference: string): number | string | null {
  const text = reference.trim();
  if (text === '') return null;
  return REFERENCE_NUMBER.test(text) ? Number(text) : text;
}

const groupAsTyped = (group: DraftGroup) => ({ type: 'group' as const, object: group.object ?? '', field: group.field, field_id: group.field_id });
const filterAsTyped = (filter: DraftFilter) => ({
  type: 'filter' as const,
  object: filter.object ?? '',
  field: filter.field,
  field_id: filter.field_id,
  operator: filter.operator,
  value: filter.value,
});

/** The config as typed: what `configProblems` checks (texts as typed, a missing value as null). */
export function typedConfig(draft: Draft, catalogue: SectionCatalogue | null = null): unknown {
  return {
    groups: draft.groups.map(groupAsTyped),
    series: draft.series.map((series) => ({
      name: series.name,
      value: series.value
        ? { object: series.value.object, attribute: series.value.attribute, label: valueSpecOf(catalogue, series.value)?.label ?? series.value.attribute, arguments: { ...series.arguments } }
        : null,
      groups: series.groups.map(groupAsTyped),
      filters: series.filters.map(filterAsTyped),
      reference: referenceAsTyped(series.reference),
      hidden: series.hidden,
    })),
  };
}

/** Every problem of the draft, at its pointer under the config ('/series/0/name'). */
export function draftProblems(draft: Draft, catalogue: SectionCatalogue | null = null): ConfigProblem[] {
  return configProblems(typedConfig(draft, catalogue));
}

/** The config to send (trimmed, defaults filled in); null while the draft has problems. */
export function requestConfig(draft: Draft, catalogue: SectionCatalogue | null = null): CustomSectionConfig | null {
  const typed = typedConfig(draft, catalogue);
  return configProblems(typed).length === 0 ? normalizedConfig(typed) : null;
}

/** What a preview of the draft asks for, as one text (equal texts: the same chart); null while the draft has problems. */
export function previewRequestKey(draft: Draft, resolution: string, catalogue: SectionCatalogue | null = null): string | null {
  const config = requestConfig(draft, catalogue);
  return config ? JSON.stringify({ config, resolution }) : null;
}

/** The title a new section is created with: as typed, else its series' names. */
export function titleOf(draft: Draft): string {
  const typed = draft.title.trim();
  if (typed) return typed;
  return draft.series.map((series) => series.name.trim()).filter(Boolean).join(', ');
}

// ------------------------------------------------------------------ edits

const replaceAt = <T>(items: readonly T[], index: number, change: (item: T) => T): T[] => items.map((item, k) => (k === index ? change(item) : item));
const removeAt = <T>(items: readonly T[], index: number): T[] => items.filter((_, k) => k !== index);

function moveAt<T>(items: readonly T[], index: number, by: -1 | 1): T[] {
  const target = index + by;
  if (index < 0 || index >= items.length || target < 0 || target >= items.length) return [...items];
  const next = [...items];
  const [moving] = next.splice(index, 1);
  next.splice(target, 0, moving as T);
  return next;
}

/** A filter's value when its operator is `operator`: a text for `eq` (the first of a list), a list otherwise. */
export function valueForOperator(value: string | string[], operator: FilterOperator): string | string[] {
  if (operator === 'eq') return Array.isArray(value) ? (value[0] ?? '') : value;
  if (Array.isArray(value)) return value;
  return value.trim() === '' ? [] : [value];
}

/** The operators a field takes: the catalogue's, else `eq` and `in`. */
export function operatorsOfField(catalogue: SectionCatalogue | null, field: FieldRef): FilterOperator[] {
  const entry = catalogue?.filters.find((item) => fieldKey(item) === fieldKey(field));
  return entry && entry.operators.length > 0 ? [...entry.operators] : ['eq', 'in'];
}

function withGroups(draft: Draft, owner: GroupOwner, change: (groups: DraftGroup[]) => DraftGroup[]): Draft {
  if (owner === null) return { ...draft, groups: change(draft.groups) };
  return { ...draft, series: replaceAt(draft.series, owner, (series) => ({ ...series, groups: change(series.groups) })) };
}

function withSeries(draft: Draft, index: number, change: (series: DraftSeries) => DraftSeries): Draft {
  return { ...draft, series: replaceAt(draft.series, index, change) };
}

function withFilter(draft: Draft, series: number, filter: number, change: (filter: DraftFilter) => DraftFilter): Draft {
  return withSeries(draft, series, (one) => ({ ...one, filters: replaceAt(one.filters, filter, change) }));
}

/** A series given another value: its arguments start from the value's defaults (a typed one of the same name stays), and a name that was the old value's label follows the new one. */
function changeValue(series: DraftSeries, value: DraftSeries['value'], catalogue: SectionCatalogue | null): DraftSeries {
  const before = valueSpecOf(catalogue, series.value);
  const after = valueSpecOf(catalogue, value);
  const named = series.name.trim() === '' || (before !== undefined && series.name.trim() === before.label);
  return {
    ...series,
    value,
    name: named && after ? after.label : series.name,
    arguments: Object.fromEntries((after?.arguments ?? []).map((argument) => [argument.name, series.arguments[argument.name] ?? String(argument.default)])),
  };
}

/** The draft after one edit of the form. Edits naming something that is not there change nothing. */
export function applyEdit(draft: Draft, edit: DraftEdit, catalogue: SectionCatalogue | null = null): Draft {
  switch (edit.kind) {
    case 'title':
      return { ...draft, title: edit.title };
    case 'addSeries': {
      const keys = keyed(draft.nextKey);
      const series = addedSeries(keys);
      return { ...draft, series: [...draft.series, series], nextKey: keys.next() };
    }
    case 'removeSeries':
      return { ...draft, series: removeAt(draft.series, edit.series) };
    case 'moveSeries':
      return { ...draft, series: moveAt(draft.series, edit.series, edit.by) };
    case 'seriesName':
      return withSeries(draft, edit.series, (series) => ({ ...series, name: edit.name }));
    case 'seriesValue':
      return withSeries(draft, edit.series, (series) => changeValue(series, edit.value, catalogue));
    case 'seriesArgument':
      return withSeries(draft, edit.series, (series) => ({ ...series, arguments: { ...series.arguments, [edit.name]: edit.value } }));
    case 'seriesReference':
      return withSeries(draft, edit.series, (series) => ({ ...series, reference: edit.reference }));
    case 'seriesHidden':
      return withSeries(draft, edit.series, (series) => ({ ...series, hidden: edit.hidden }));
    case 'addGroup': {
      if (edit.series !== null && !draft.series[edit.series]) return draft;
      const group: DraftGroup = { key: keyOf(draft.nextKey), object: null, field: '', field_id: null };
      return { ...withGroups(draft, edit.series, (groups) => [...groups, group]), nextKey: draft.nextKey + 1 };
    }
    case 'groupField':
      return withGroups(draft, edit.series, (groups) =>
        replaceAt(groups, edit.group, (group) => ({ ...group, object: edit.field?.object ?? null, field: edit.field?.field ?? '', field_id: edit.field?.field_id ?? null })),
      );
    case 'removeGroup':
      return withGroups(draft, edit.series, (groups) => removeAt(groups, edit.group));
    case 'addFilter': {
      if (!draft.series[edit.series]) return draft;
      const filter: DraftFilter = { key: keyOf(draft.nextKey), object: null, field: '', field_id: null, operator: 'eq', value: '' };
      return { ...withSeries(draft, edit.series, (series) => ({ ...series, filters: [...series.filters, filter] })), nextKey: draft.nextKey + 1 };
    }
    case 'filterField':
      return withFilter(draft, edit.series, edit.filter, (filter) => {
        if (!edit.field) return { ...filter, object: null, field: '', field_id: null, value: valueForOperator('', filter.operator) };
        const operators = operatorsOfField(catalogue, edit.field);
        const operator = operators.includes(filter.operator) ? filter.operator : (operators[0] as FilterOperator);
        // Another field's values are not this one's.
        return { ...filter, ...edit.field, operator, value: valueForOperator('', operator) };
      });
    case 'filterOperator':
      return withFilter(draft, edit.series, edit.filter, (filter) => ({ ...filter, operator: edit.operator, value: valueForOperator(filter.value, edit.operator) }));
    case 'filterValue':
      return withFilter(draft, edit.series, edit.filter, (filter) => ({ ...filter, value: valueForOperator(edit.value, filter.operator) }));
    case 'removeFilter':
      return withSeries(draft, edit.series, (series) => ({ ...series, filters: removeAt(series.filters, edit.filter) }));
  }
}

/**
 * The part of the form an edit changes, as a pointer: the server's refusals at it (or under it)
 * no longer hold. Adding, removing or moving items renumbers the list, so the whole list's go.
 */
export function editedPointer(edit: DraftEdit): string {
  const groupsOf = (owner: GroupOwner) => (owner === null ? '/groups' : `/series/${owner}/groups`);
  switch (edit.kind) {
    case 'title':
      return '/title';
    case 'addSeries':
    case 'removeSeries':
    case 'moveSeries':
      return '/series';
    case 'seriesName':
      return `/series/${edit.series}/name`;
    case 'seriesValue':
      return `/series/${edit.series}`;
    case 'seriesArgument':
      return `/series/${edit.series}/value/arguments/${edit.name}`;
    case 'seriesReference':
      return `/series/${edit.series}/reference`;
    case 'seriesHidden':
      return `/series/${edit.series}/hidden`;
    case 'addGroup':
    case 'removeGroup':
      return groupsOf(edit.series);
    case 'groupField':
      return `${groupsOf(edit.series)}/${edit.group}`;
    case 'addFilter':
    case 'removeFilter':
      return `/series/${edit.series}/filters`;
    case 'filterField':
    case 'filterOperator':
      return `/series/${edit.series}/filters/${edit.filter}`;
    case 'filterValue':
      return `/series/${edit.series}/filters/${edit.filter}/value`;
  }
}

/** `pointer` is `at` or lies under it. */
export const isUnder = (pointer: string, at: string): boolean => pointer === at || pointer.startsWith(`${at}/`);

// ------------------------------------------------------------------ where a message shows

/** Every place of the form a message can show at, by pointer. */
export function fieldPointers(draft: Draft, catalogue: SectionCatalogue | null = null): Set<string> {
  const pointers = new Set<string>(['/title', '/groups', '/series']);
  draft.groups.forEach((_, j) => pointers.add(`/groups/${j}/field`));
  draft.series.forEach((series, k) => {
    const at = `/series/${k}`;
    for (const name of ['name', 'value', 'groups', 'filters', 'reference', 'hidden']) pointers.add(`${at}/${name}`);
    const names = new Set([...Object.keys(series.arguments), ...(valueSpecOf(catalogue, series.value)?.arguments.map((argument) => argument.name) ?? [])]);
    names.forEach((name) => pointers.add(`${at}/value/arguments/${name}`));
    series.groups.forEach((_, j) => pointers.add(`${at}/groups/${j}/field`));
    series.filters.forEach((_, j) => {
      for (const name of ['field', 'operator', 'value']) pointers.add(`${at}/filters/${j}/${name}`);
    });
  });
  return pointers;
}

/**
 * The place a message at `pointer` shows: the pointer itself when the form has that field, else
 * the nearest field or list above it ('/series/0/value/attribute' shows at the value); null
 * when none (the message shows at the top of the form).
 */
export function fieldOfPointer(pointer: string, pointers: ReadonlySet<string>): string | null {
  let at = pointer;
  while (at !== '') {
    if (pointers.has(at)) return at;
    at = at.slice(0, at.lastIndexOf('/'));
  }
  return null;
}
