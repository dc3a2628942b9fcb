import { CUSTOM_OBJECTS, OPERATOR_LABELS } from '../../../models/customSections';
import type { CustomObject, FilterObject, FilterOperator } from '../../../models/customSections';
import { fieldKey, operatorsOfField, valueKey } from '../../../machines/sectionEditor/draft';
import type { CatalogueField, FieldRef, SectionCatalogue } from '../../../machines/sectionEditor/types';

/** The pickers' options of the section editor, from the catalogue (GET /user_filtered_config). */

export interface Option {
  value: string;
  label: string;
}
export interface OptionGroup {
  group: string;
  items: Option[];
}

const VALUE_GROUP_LABELS: Record<CustomObject, string> = { payments: 'Payments', customers: 'Customers', costs: 'Costs' };
const FIELD_GROUP_LABELS: Record<FilterObject, string> = { customer: 'Customer', payment: 'Payment', cost: 'Cost' };
const FIELD_OBJECTS: readonly FilterObject[] = ['customer', 'payment', 'cost'];

/** The value picker: the catalogue's values grouped by what they count (payments, customers, costs). */
export function valueOptions(catalogue: SectionCatalogue): OptionGroup[] {
  return CUSTOM_OBJECTS.map((object) => ({
    group: VALUE_GROUP_LABELS[object],
    items: catalogue.values.filter((value) => value.object === object).map((value) => ({ value: valueKey(value), label: value.label })),
  })).filter((group) => group.items.length > 0);
}

/** The value a picked option names. */
export function valueOfKey(catalogue: SectionCatalogue, key: string | null): { object: CustomObject; attribute: string } | null {
  const spec = key === null ? undefined : catalogue.values.find((value) => valueKey(value) === key);
  return spec ? { object: spec.object, attribute: spec.attribute } : null;
}

/**
 * The objects whose fields a series of `object` takes: a costs value cost fields only, a
 * payments or customers value customer and payment fields (models/customSections.ts). For the
 * section's own groups (every series), any.
 */
export function fieldObjectsOf(object: CustomObject | null | undefined): readonly FilterObject[] {
  if (object === 'costs') return ['cost'];
  if (object === 'payments' || object === 'customers') return ['customer', 'payment'];
  return FIELD_OBJECTS;
}

/**
 * The field picker of a group (`groupable` fields) or a filter (`filterable` ones), grouped by
 * object. A field set earlier that the list no longer offers (the series' value changed) is
 * listed too, so the picker shows it beside its message.
 */
export function fieldOptions(catalogue: SectionCatalogue, use: 'group' | 'filter', objects: readonly FilterObject[], current: FieldRef | null): OptionGroup[] {
  const usable = (field: CatalogueField) => (use === 'group' ? field.groupable : field.filterable);
  const offered = catalogue.filters.filter((field) => usable(field) && objects.includes(field.object));
  const currentKey = current ? fieldKey(current) : null;
  const extra = currentKey && !offered.some((field) => fieldKey(field) === currentKey) ? catalogue.filters.filter((field) => fieldKey(field) === currentKey) : [];
  const fields = [...offered, ...extra];
  return FIELD_OBJECTS.map((object) => ({
    group: FIELD_GROUP_LABELS[object],
    items: fields.filter((field) => field.object === object).map((field) => ({ value: fieldKey(field), label: field.name })),
  })).filter((group) => group.items.length > 0);
}

/** The field a picked option names. */
export function fieldOfKey(catalogue: SectionCatalogue, key: string | null): FieldRef | null {
  const field = key === null ? undefined : catalogue.filters.find((item) => fieldKey(item) === key);
  return field ? { object: field.object, field: field.field, field_id: field.field_id } : null;
}

/** The operator picker of a filter on `field`: its operators, in the spec's words. */
export function operatorOptions(catalogue: SectionCatalogue, field: FieldRef | null): Option[] {
  const operators: readonly FilterOperator[] = field ? operatorsOfField(catalogue, field) : ['eq', 'in'];
  return operators.map((operator) => ({ value: operator, label: OPERATOR_LABELS[operator] }));
}

/** The value picker's options: the field's possible values, and any value set that is not among them (kept, shown). */
export function possibleValueOptions(possible: readonly string[], chosen: string | string[]): string[] {
  const picked = (Array.isArray(chosen) ? chosen : [chosen]).filter((value) => value !== '');
  return [...new Set([...possible, ...picked])];
}
