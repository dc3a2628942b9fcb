import { randomId } from '@mantine/hooks';
import {
  bucketMaxError,
  bucketMins,
  draftsFromBuckets,
  finalizeBuckets,
  groupsFromMappings,
  mappingsFromGroups,
  REQUIRED,
  SEGMENTATION_ATTRIBUTE_REQUIRED,
  SEGMENTATION_PRODUCT_REQUIRED,
  segmentationNameError,
} from '../../../models/segmentation';
import type { BucketDraft, SegmentationConfiguration, SegmentationDefinition, SegmentationInput, SegmenterTypeInfo, SegmenterTypeName } from '../../../models/segmentation';
import type { ServerProblem } from './segmentationQueries';

/**
 * The segmentation form's values and rules (the rules themselves are models/segmentation.ts,
 * the server checks the same): what the inputs hold, their messages keyed by @mantine/form
 * paths, the input sent to the service, and the server's refusals placed on the fields.
 */

/** A bucket row of the editor (its min is derived from the rows above it). */
export interface BucketRow extends BucketDraft {
  key: string;
}

/** A group of the mappings editor: raw values shown under one name. */
export interface GroupRow {
  key: string;
  name: string;
  values: string[];
}

export interface SegmentationFormValues {
  name: string;
  /** The chosen type's key (typeKey), '' when none. */
  attribute: string;
  configuration: SegmentationConfiguration | null;
  groups: GroupRow[];
  buckets: BucketRow[];
  products: string[];
}

/** What a type and a definition have in common: the attribute a segmentation groups. */
export interface TypeRef {
  type_name: SegmenterTypeName;
  segment_id: string;
}

/** One string for a type (the attribute picker's option value). */
export const typeKey = (type: TypeRef) => `${type.type_name}/${type.segment_id}`;
export const typeRef = (type: SegmenterTypeInfo): TypeRef => ({ type_name: type.name, segment_id: type.segment_id });

export const CONFIGURATION_LABELS: Record<SegmentationConfiguration, string> = {
  mappings: 'Group values',
  buckets: 'Ranges',
  products: 'Products',
};

export const emptyBucket = (): BucketRow => ({ key: randomId(), name: '', max: '' });
export const emptyGroup = (): GroupRow => ({ key: randomId(), name: '', values: [] });
export const bucketRows = (drafts: readonly BucketDraft[]): BucketRow[] => drafts.map((draft) => ({ ...draft, key: randomId() }));
export const bucketDrafts = (rows: readonly BucketRow[]): BucketDraft[] => rows.map(({ name, max }) => ({ name, max }));

/** The configuration a definition uses (what it has, else what its type allows first). */
export function configurationOf(definition: SegmentationDefinition): SegmentationConfiguration | null {
  if (definition.buckets.length > 0) return 'buckets';
  if (definition.products.length > 0) return 'products';
  if (definition.mappings.length > 0) return 'mappings';
  return definition.allowed_configuration[0] ?? null;
}

/** The form of a new segmentation, or of an existing one. */
export function initialFormValues(definition: SegmentationDefinition | null): SegmentationFormValues {
  if (!definition) return { name: '', attribute: '', configuration: null, groups: [emptyGroup()], buckets: [emptyBucket()], products: [] };
  const groups = groupsFromMappings(definition.mappings).map((group) => ({ ...group, key: randomId() }));
  const buckets = bucketRows(draftsFromBuckets(definition.buckets));
  return {
    name: definition.name,
    attribute: typeKey(definition),
    configuration: configurationOf(definition),
    groups: groups.length > 0 ? groups : [emptyGroup()],
    buckets: buckets.length > 0 ? buckets : [emptyBucket()],
    products: [...definition.products],
  };
}

/** The messages of the bucket rows, keyed `{prefix}{index}.max`. */
export function bucketErrors(rows: readonly BucketRow[], prefix = 'buckets.'): Record<string, string> {
  const mins = bucketMins(rows);
  const errors: Record<string, string> = {};
  rows.forEach((row, index) => {
    const error = bucketMaxError(row.max, mins[index] ?? 0);
    if (error) errors[`${prefix}${index}.max`] = error;
  });
  return errors;
}

/** Every message of the form, keyed by @mantine/form paths; `type` is the chosen attribute's type. */
export function segmentationFormErrors(values: SegmentationFormValues, type: SegmenterTypeInfo | null): Record<string, string> {
  const errors: Record<string, string> = {};
  const nameError = segmentationNameError(values.name);
  if (nameError) errors.name = nameError;
  if (!type) {
    errors.attribute = SEGMENTATION_ATTRIBUTE_REQUIRED;
    return errors;
  }
  switch (values.configuration) {
    case 'mappings':
      values.groups.forEach((group, index) => {
        if (group.name.trim() === '') errors[`groups.${index}.name`] = REQUIRED;
        if (group.values.length === 0) errors[`groups.${index}.values`] = REQUIRED;
      });
      break;
    case 'buckets':
      Object.assign(errors, bucketErrors(values.buckets));
      break;
    case 'products':
      if (values.products.length === 0) errors.products = SEGMENTATION_PRODUCT_REQUIRED;
      break;
    case null:
      break;
  }
  return errors;
}

/** What the service is sent: the name, the type, and the chosen configuration only. */
export function segmentationInput(values: SegmentationFormValues, type: TypeRef): SegmentationInput {
  const base = { name: values.name.trim(), type_name: type.type_name, segment_id: type.segment_id };
  switch (values.configuration) {
    case 'mappings':
      return { ...base, mappings: mappingsFromGroups(values.groups.map(({ name, values: groupValues }) => ({ name: name.trim(), values: groupValues }))) };
    case 'buckets':
      return { ...base, buckets: finalizeBuckets(bucketDrafts(values.buckets)) };
    case 'products':
      return { ...base, products: values.products };
    case null:
      return base;
  }
}

/** A bucket segmentation's input with new buckets (the list's inline editor). */
export function bucketsInput(definition: SegmentationDefinition, rows: readonly BucketRow[]): SegmentationInput {
  return { name: definition.name, type_name: definition.type_name, segment_id: definition.segment_id, buckets: finalizeBuckets(bucketDrafts(rows)) };
}

const pointerIndex = (segment: string | undefined) => (segment !== undefined && /^\d+$/.test(segment) ? Number(segment) : null);

/**
 * The server's problems placed on the form's fields (by their JSON pointers); those that point
 * at no field are returned as `other`. A mapping's problem lands on the group holding its value.
 */
export function placeProblems(problems: readonly ServerProblem[], values: Pick<SegmentationFormValues, 'groups' | 'buckets'>, input: SegmentationInput): { fields: Record<string, string>; other: string[] } {
  const fields: Record<string, string> = {};
  const other: string[] = [];
  const place = (path: string | null, detail: string) => {
    if (path === null) other.push(detail);
    else fields[path] ??= detail;
  };
  for (const { pointer, detail } of problems) {
    const [field, index, part] = (pointer ?? '').split('/').filter(Boolean);
    const at = pointerIndex(index);
    switch (field) {
      case 'name':
        place('name', detail);
        break;
      case 'segment_id':
      case 'type_name':
        place('attribute', detail);
        break;
      case 'products':
        place('products', detail);
        break;
      case 'mappings': {
        const mapping = at === null ? undefined : input.mappings?.[at];
        const group = mapping ? values.groups.findIndex((row) => row.values.includes(mapping.value)) : -1;
        place(group < 0 ? null : `groups.${group}.${part === 'name' ? 'name' : 'values'}`, detail);
        break;
      }
      case 'buckets':
        place(at !== null && at < values.buckets.length ? `buckets.${at}.max` : null, detail);
        break;
      default:
        place(null, detail);
    }
  }
  return { fields, other };
}
